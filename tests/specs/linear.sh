#!/usr/bin/env bash
# afmt-gen's work grows with the spec, never with its square (issue 37.8:
# a 456 KB spec took 1.15 s): for each shape that once was quadratic
# (tests/specs/linear_specs.py), the work afmt-gen --check reports
# (AFMT_GEN_WORK=1: bytes of C scanned, and names tried, each) for a spec
# 8 times as big is at most 12 times that of the small one.  Counted, not
# timed.
#   tests/specs/linear.sh [BUILD]
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/../.."
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
work() { # shape n: the work and tries of one spec, "W T"
    python3 tests/specs/linear_specs.py "$1" "$2" "$TMP/$1_$2.json" &&
        AFMT_GEN_WORK=1 ASAN_OPTIONS=detect_leaks=0 "$BUILD"/afmt-gen --check "$TMP/$1_$2.json" 2>&1 |
        sed -n 's/.*afmt-gen work \([0-9]*\) tries \([0-9]*\)$/\1 \2/p'
}
# within: what, small, big: big at most 12 times small (+ 100: a count near 0)
within() {
    if [ "$3" -le $(($2 * 12 + 100)) ]; then
        echo "PASS linear $1: 8x the spec, $2 -> $3"
    else
        echo "FAIL linear $1: 8x the spec, $2 -> $3 ($(($3 / ($2 + 1)))x): quadratic again?"
        fails=$((fails + 1))
    fi
}
for shape_n in structs:20 repeats:50 regions:50 cases:50; do
    shape=${shape_n%:*} n=${shape_n#*:}
    read -r small_work small_tries < <(work "$shape" "$n")
    read -r big_work big_tries < <(work "$shape" $((n * 8)))
    if [ -z "${small_tries:-}" ] || [ -z "${big_tries:-}" ]; then
        echo "FAIL linear $shape: afmt-gen reported no work"
        fails=$((fails + 1))
        continue
    fi
    within "$shape (bytes of C scanned)" "$small_work" "$big_work"
    within "$shape (names tried)" "$small_tries" "$big_tries"
done
[ "$fails" -eq 0 ]
