#!/usr/bin/env bash
# The reference interpreter refuses a bad spec with the checker's words
# and runs no emitter to do so (issue 37): `afmt-validate --spec` on each
# spec of tests/specs/bad/checker_*.json prints exactly the diagnostics
# `afmt-gen --check` prints (its .expected), and, with AFMT_GEN_WORK=1
# (emit_format prints the work it did), no line of emitter work; a good
# spec still goes through the emitters (its work line is there) until
# every diagnostic lives in gen/check.c.
#   tests/specs/run_interp_check.sh [BUILD]
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/../.."
VALIDATE=$PWD/$BUILD/afmt-validate
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export ASAN_OPTIONS=detect_leaks=0
fails=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

printf 'x' > "$TMP/input"
for spec in tests/specs/bad/checker_*.json; do
    name=$(basename "$spec" .json)
    AFMT_GEN_WORK=1 "$VALIDATE" --spec "$spec" "$TMP/input" > /dev/null 2> "$TMP/err"; rc=$?
    want=$(grep -v '^rc=' "${spec%.json}.expected")
    got=$(grep "^$spec: " "$TMP/err")
    if [ $rc -eq 2 ] && [ "$got" = "$want" ] && ! grep -q 'afmt-gen work' "$TMP/err"; then
        pass "interpreter refuses $name with the checker's diagnostics, no emitter run"
    else
        fail "interpreter on $name: exit $rc, stderr: $(head -5 "$TMP/err")"
    fi
done

AFMT_GEN_WORK=1 "$VALIDATE" --spec spec/rawarray.json "$TMP/input" > /dev/null 2> "$TMP/err"
if grep -q 'spec/rawarray.json: afmt-gen work' "$TMP/err"; then
    pass "interpreter checks a good spec through the emitters too (their diagnostics are not all in gen/check.c)"
else
    fail "interpreter on spec/rawarray.json: no emitter work reported: $(head -3 "$TMP/err")"
fi
[ "$fails" -eq 0 ]
