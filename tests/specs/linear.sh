#!/usr/bin/env bash
# afmt-gen's work grows with the spec, never with its square (issue 37.8:
# a 456 KB spec took 1.15 s): for each shape that once was quadratic
# (tests/specs/linear_specs.py), the work afmt-gen --check reports
# (AFMT_GEN_WORK=1: bytes of C scanned, names tried) for a spec 8 times
# as big is at most 12 times that of the small one.  Counted, not timed.
#   tests/specs/linear.sh [BUILD]
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/../.."
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
work() { # shape n: the work of one spec
    python3 tests/specs/linear_specs.py "$1" "$2" "$TMP/$1_$2.json" &&
        AFMT_GEN_WORK=1 ASAN_OPTIONS=detect_leaks=0 "$BUILD"/afmt-gen --check "$TMP/$1_$2.json" 2>&1 |
        sed -n 's/.*afmt-gen work \([0-9]*\)$/\1/p'
}
for shape_n in structs:20 repeats:50 regions:50 cases:50; do
    shape=${shape_n%:*} n=${shape_n#*:}
    small=$(work "$shape" "$n") big=$(work "$shape" $((n * 8)))
    if [ -z "$small" ] || [ -z "$big" ]; then
        echo "FAIL linear $shape: afmt-gen reported no work (small '$small', big '$big')"
        fails=$((fails + 1))
    elif [ "$big" -le $((small * 12)) ]; then
        echo "PASS linear $shape: 8x the spec, $((big / small))x the work ($small -> $big)"
    else
        echo "FAIL linear $shape: 8x the spec, $((big / small))x the work ($small -> $big): quadratic again?"
        fails=$((fails + 1))
    fi
done
[ "$fails" -eq 0 ]
