#!/usr/bin/env bash
# make EXTRA_SPECS=DIR: afmt and afmt-validate know the formats of DIR/*.json
# (specs outside the repository: tests/specs/newformat/toyfmt.json, the
# read-only tests/specs/readonly/rofmt.json and tests/specs/newformat/farfmt.json,
# whose magic is 1000 bytes in, copied to a temporary folder),
# the repository is left as it was (git status), and a plain `make`
# afterwards gives the standard tools back.
# Usage: tests/extra/run_extra_specs.sh [BUILD_DIR]; prints PASS/FAIL lines.
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/../.."
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
pass() { echo "PASS extra-specs $*"; }
fail() { echo "FAIL extra-specs $*"; }
mk() { make --no-print-directory -s BUILD="$BUILD" "$@"; }

mkdir -p "$TMP/specs"
cp tests/specs/newformat/toyfmt.json tests/specs/readonly/rofmt.json tests/specs/newformat/farfmt.json "$TMP/specs/"
before=$(git status --porcelain 2>/dev/null; git stash list 2>/dev/null | wc -l)

if mk EXTRA_SPECS="$TMP/specs" >"$TMP/log" 2>&1; then
    pass "make EXTRA_SPECS=DIR builds"
else
    fail "make EXTRA_SPECS=DIR: $(tail -5 "$TMP/log")"
    mk >/dev/null 2>&1
    exit 1
fi
formats=$("$BUILD"/afmt formats 2>&1)
if echo "$formats" | grep -q '^toyfmt' && echo "$formats" | grep -q '^rofmt' && echo "$formats" | grep -q '^rawarray'; then
    pass "afmt formats lists toyfmt, rofmt and the shipped formats"
else
    fail "afmt formats: $formats"
fi
# a toyfmt file made by the extra-aware afmt, then found and validated by
# the extra-aware afmt-validate (detected by its magic)
if "$BUILD"/afmt random --to toyfmt -o "$TMP/a.toy" '[2][3]i32' 2>"$TMP/log" &&
   out=$("$BUILD"/afmt-validate "$TMP/a.toy" 2>&1) && echo "$out" | grep -q toyfmt; then
    pass "afmt-validate knows toyfmt: $out"
else
    fail "afmt-validate on a toyfmt file: $(cat "$TMP/log") ${out:-}"
fi
# the read-only format: validated, and refused as a target with its reason
printf 'ROF1\1\2\3\4\5\6\7\10\1\2\0\0\0\0\0\300\77\0\0\0\300' > "$TMP/b.rof"
if out=$("$BUILD"/afmt-validate "$TMP/b.rof" 2>&1) && echo "$out" | grep -q rofmt; then
    pass "afmt-validate knows the read-only rofmt: $out"
else
    fail "afmt-validate on a rofmt file: $out"
fi
out=$("$BUILD"/afmt convert --to rofmt "$TMP/a.toy" "$TMP/c.rof" 2>&1); rc=$?
if [ $rc -eq 1 ] && echo "$out" | grep -q "rofmt is read-only: the capture time comes from the instrument" &&
   [ ! -e "$TMP/c.rof" ]; then
    pass "afmt convert --to rofmt refuses (exit 1), saying why: $out"
else
    fail "afmt convert --to rofmt: exit $rc: $out"
fi

# a magic 1000 bytes in (farfmt's detect rule): found from a path and from
# a pipe; a file that ends before the magic does not match, nor does one
# with other bytes there (undetected: afmt-validate then names the format
# that got furthest, "(closest match)", and says where it failed)
if "$BUILD"/afmt random --to farfmt -o "$TMP/a.far" '[5]u8' 2>"$TMP/log" &&
   out=$("$BUILD"/afmt-validate "$TMP/a.far" 2>&1) && echo "$out" | grep -q 'ok farfmt' &&
   pipe=$("$BUILD"/afmt-validate - < "$TMP/a.far" 2>&1) && echo "$pipe" | grep -q 'ok farfmt' &&
   pipe2=$(cat "$TMP/a.far" | "$BUILD"/afmt-validate - 2>&1) && echo "$pipe2" | grep -q 'ok farfmt'; then
    pass "detection at byte 1000: from a path ($out) and from pipes"
else
    fail "detection at byte 1000: $(cat "$TMP/log") ${out:-} / ${pipe:-} / ${pipe2:-}"
fi
head -c 1002 "$TMP/a.far" > "$TMP/short.far"
{ head -c 1000 "$TMP/a.far"; printf 'NEAR'; tail -c +1005 "$TMP/a.far"; } > "$TMP/other.far"
for f in short other; do
    out=$("$BUILD"/afmt-validate "$TMP/$f.far" 2>&1); rc=$?
    if [ $rc -eq 1 ] && echo "$out" | grep -q "invalid farfmt (closest match): magic at offset 1000"; then
        pass "a file with $f bytes at 1000 is not detected as farfmt: $out"
    else
        fail "$f.far: exit $rc: $out"
    fi
done

# make install refuses EXTRA_SPECS before it builds anything (exit 2)
out=$(make --no-print-directory BUILD="$TMP/nobuild" EXTRA_SPECS="$TMP/specs" install \
      DESTDIR="$TMP/dest" 2>&1); rc=$?
if [ $rc -eq 2 ] && echo "$out" | grep -q "make install: not with EXTRA_SPECS" &&
   [ ! -e "$TMP/nobuild" ] && [ ! -e "$TMP/dest" ]; then
    pass "make install EXTRA_SPECS=DIR refuses before building (exit 2)"
else
    fail "make install EXTRA_SPECS=DIR: exit $rc, built: $(ls "$TMP/nobuild" 2>&1 | head -3): $out"
fi

after=$(git status --porcelain 2>/dev/null; git stash list 2>/dev/null | wc -l)
[ "$before" = "$after" ] && pass "git status unchanged (spec/ and generated/ untouched)" ||
    fail "git status changed: $(diff <(echo "$before") <(echo "$after"))"
[ -d "$BUILD/extra/gen" ] && [ -f "$BUILD/extra/gen/toyfmt.c" ] && pass "output under $BUILD/extra" ||
    fail "no $BUILD/extra/gen/toyfmt.c"

# back to the standard build: the tools no longer know the extra formats
if mk >"$TMP/log" 2>&1 && ! "$BUILD"/afmt formats 2>&1 | grep -q '^toyfmt' &&
   ! "$BUILD"/afmt-validate "$TMP/a.toy" >/dev/null 2>&1; then
    pass "a plain make afterwards relinks the standard tools"
else
    fail "after a plain make the tools still know toyfmt (or make failed: $(tail -3 "$TMP/log"))"
fi
