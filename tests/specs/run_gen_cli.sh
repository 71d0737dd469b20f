#!/usr/bin/env bash
# afmt-gen's command line and make regen (issue 21, bugs 5 and 6):
# - without -o it writes nothing (no default directory: the shipped
#   generated/ is written only by make regen) and says why, exit 2;
# - one bad spec among good ones prints only its own diagnostics and one
#   "nothing written" line, and writes nothing, exit 1;
# - make regen removes a generated file no spec produces any more, and
#   make check-regen then agrees (in a copy of the tree).
#   tests/specs/run_gen_cli.sh [BUILD]
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/../.."
ROOT=$PWD
GEN=$ROOT/$BUILD/afmt-gen
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export ASAN_OPTIONS=detect_leaks=0
fails=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

# 1. no -o: nothing written, in a directory that has a generated/ of its own
mkdir -p "$TMP/repo/generated"
echo keep > "$TMP/repo/generated/afmt_formats.c"
cp tests/specs/newformat/toyfmt.json "$TMP/repo/"
(cd "$TMP/repo" && "$GEN" toyfmt.json > "$TMP/out" 2> "$TMP/err"); rc=$?
listing=$(cd "$TMP/repo" && find . -type f | sort | tr '\n' ' ')
if [ $rc -eq 2 ] && grep -q -- '-o DIR' "$TMP/err" &&
   [ "$listing" = "./generated/afmt_formats.c ./toyfmt.json " ] && [ "$(cat "$TMP/repo/generated/afmt_formats.c")" = keep ]; then
    pass "afmt-gen without -o writes nothing and exits 2"
else
    fail "afmt-gen without -o: exit $rc, files: $listing, stderr: $(cat "$TMP/err")"
fi

# 2. one bad spec among good ones
cp tests/specs/bad/unknown_table.json "$TMP/"
"$GEN" -o "$TMP/out1" spec/rawarray.json "$TMP/unknown_table.json" tests/specs/newformat/toyfmt.json 2> "$TMP/err"; rc=$?
want="$TMP/unknown_table.json: /body/1: unknown table 'nope'
afmt-gen: nothing written to $TMP/out1: a spec has errors"
if [ $rc -eq 1 ] && [ "$(cat "$TMP/err")" = "$want" ] && [ ! -e "$TMP/out1" ]; then
    pass "one bad spec among good ones: only its diagnostics, nothing written, exit 1"
else
    fail "one bad spec among good ones: exit $rc, stderr: $(cat "$TMP/err"), out1 exists: $([ -e "$TMP/out1" ] && echo yes || echo no)"
fi
# ... and into an existing directory: left as it was
mkdir -p "$TMP/out2" && echo old > "$TMP/out2/afmt_formats.c"
"$GEN" -o "$TMP/out2" spec/rawarray.json "$TMP/unknown_table.json" 2> /dev/null
if [ "$(ls "$TMP/out2")" = afmt_formats.c ] && [ "$(cat "$TMP/out2/afmt_formats.c")" = old ]; then
    pass "a bad spec leaves an existing output directory as it was"
else
    fail "a bad spec changed the output directory: $(ls "$TMP/out2")"
fi

# 3. make regen removes what no spec produces; check-regen agrees.  In a
# copy of the tree (timestamps kept, so nothing is rebuilt) with this
# build's afmt-gen; skipped without re2c, which make regen needs.
if ! command -v "${RE2C:-re2c}" > /dev/null 2>&1; then
    echo "SKIP make regen removes stale files: no re2c (make deps-test installs it)"
else
    mkdir -p "$TMP/tree"
    cp -a Makefile gen spec generated runtime registry "$TMP/tree/"
    mkdir -p "$TMP/tree/build"
    cp -a "$BUILD/afmt-gen" "$TMP/tree/build/"
    cp -a "$BUILD/obj" "$TMP/tree/build/" 2> /dev/null
    touch "$TMP/tree/build/afmt-gen"
    echo "/* a spec that is gone */" > "$TMP/tree/generated/gone.c"
    echo "gone" > "$TMP/tree/generated/fuzz/gone.dict"
    stale=$(make -s -C "$TMP/tree" BUILD=build check-regen 2>&1)
    make -s -C "$TMP/tree" BUILD=build regen > "$TMP/regen.log" 2>&1; rc=$?
    if [ $rc -eq 0 ] && [ ! -e "$TMP/tree/generated/gone.c" ] && [ ! -e "$TMP/tree/generated/fuzz/gone.dict" ] &&
       [ -f "$TMP/tree/generated/rawarray.c" ] && [ -f "$TMP/tree/generated/gen/expr_lexer.c" ] &&
       echo "$stale" | grep -q 'Only in generated: gone.c' &&
       make -s -C "$TMP/tree" BUILD=build check-regen > "$TMP/check.log" 2>&1; then
        pass "make regen removes generated files no spec produces; check-regen then passes"
    else
        fail "make regen and stale files: rc $rc: $(head -5 "$TMP/regen.log") / before: $stale / after: $(head -3 "$TMP/check.log")"
    fi
fi
[ "$fails" -eq 0 ]
