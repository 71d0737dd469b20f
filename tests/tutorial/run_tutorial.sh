#!/usr/bin/env bash
# docs/TUTORIAL.md works as written: its blocks marked
# "<!-- tutorial: file NAME -->" are saved as NAME and those marked
# "<!-- tutorial: run -->" run in order, as one bash -e script, in an empty
# temporary folder with AFMT set to this checkout.  The make it runs is a
# plain one, as a reader's (no flags inherited from `make test`): it uses
# build/, and the tutorial's last step gives back the standard tools.
# Usage: tests/tutorial/run_tutorial.sh; prints PASS/FAIL lines.
set -u
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
unset MAKEFLAGS MFLAGS MAKELEVEL CFLAGS CC BUILD
export ASAN_OPTIONS=detect_leaks=0
pass() { echo "PASS tutorial $*"; }
fail() { echo "FAIL tutorial $*"; }

# the folders the tutorial's first command makes, for the files saved by name
mkdir -p "$TMP/work/specs" "$TMP/work/vendor"
awk -v dir="$TMP/work" '
    /^<!-- tutorial: run -->$/ { mode = "run"; next }
    /^<!-- tutorial: file .* -->$/ { mode = "file"; name = $4; next }
    mode != "" && !inblock && /^```/ { inblock = 1; n++; if (mode == "file") print "file " name > (dir "/.blocks"); next }
    inblock && /^```/ { inblock = 0; mode = ""; next }
    inblock && mode == "run" { print > (dir "/.script") }
    inblock && mode == "file" { print > (dir "/" name) }
' docs/TUTORIAL.md
nfiles=$(grep -c '^file ' "$TMP/work/.blocks" 2>/dev/null)
if [ ! -s "$TMP/work/.script" ] || [ "${nfiles:-0}" -lt 2 ]; then
    fail "no tutorial blocks found in docs/TUTORIAL.md"
    exit 1
fi
pass "extracted $(wc -l < "$TMP/work/.script") command lines and $nfiles files"

out=$(cd "$TMP/work" && AFMT=$ROOT bash -e .script 2>&1); rc=$?
if [ $rc -ne 0 ]; then
    fail "a tutorial command failed (exit $rc): $(echo "$out" | tail -8)"
    make -s -C "$ROOT" >/dev/null 2>&1
    exit 1
fi
pass "every command ran"
check() { # what, pattern
    if echo "$out" | grep -q -- "$2"; then pass "$1"; else fail "$1: no '$2' in: $(echo "$out" | tail -12)"; fi
}
check "afmt-validate --spec accepts the hand-made file" 'hand.grd: ok grid f32\[2,3\] row-major'
check "afmt-validate --spec rejects the cut file" 'hand-short.grd: invalid grid: data at offset 14: needs 24 bytes'
check "afmt info --spec lists the fields" 'dims'
check "afmt-gen wrote grid.c" '^grid\.c$'
check "afmt formats lists grid" '^grid'
check "afmt-validate accepts the sample" 'sample.grd: ok grid f32\[2,3\] row-major'
check "afmt-validate rejects the cut file" 'short.grd.*needs 24 bytes.*only 6 left'
check "afmt-validate's exit status is 1" '^exit status 1$'
check "the C program accepts the sample" 'sample.grd: a valid grid'
check "the C program rejects the cut file" 'short.grd: not a valid grid: .*only 6 left'
if "$ROOT"/build/afmt formats 2>&1 | grep -q '^grid'; then
    fail "after the tutorial the tools still know grid"
else
    pass "the standard tools are back"
fi
