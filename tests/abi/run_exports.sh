#!/usr/bin/env bash
# What libafmt.so exports, against the headers that declare it.
#
# libafmt.so is built with -fvisibility=hidden and a version script: it
# must export exactly the declarations marked AFMT_API (runtime/afmt.h and
# each format's generated/<format>.h: the public API) or AFMT_GEN_API (the
# internal headers: what generated code calls), every one at the version
# node AFMT_<runtime ABI>.  Checked:
#  - every exported symbol is declared with one of the two marks (nothing
#    of the runtime's private business leaks), and every marked declaration
#    is exported (a marked declaration with no definition is a stale mark);
#  - AFMT_API only in the public headers, AFMT_GEN_API only in internal ones;
#  - every function afmt.h or a generated header declares carries AFMT_API
#    (one without would be hidden from .so users);
#  - every afmt_* symbol the shipped generated code calls is exported, so a
#    format generated out of tree links against libafmt.so.
# Usage: tests/abi/run_exports.sh [BUILD_DIR]; prints PASS/FAIL lines.
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/../.."
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

pass() { echo "PASS exports $*"; }
fail() { echo "FAIL exports $*"; }

abi=$(sed -n 's/^#define AFMT_RUNTIME_ABI \([0-9]*\)$/\1/p' runtime/afmt.h)
so=$(ls "$BUILD"/libafmt.so.$abi.*.* 2>/dev/null | head -1)
if [ -z "$abi" ] || [ -z "$so" ]; then
    fail "no $BUILD/libafmt.so.$abi.*.* (runtime ABI '$abi'): build it first"
    exit 1
fi

# Exported: name and version of every defined dynamic symbol (not the
# version node itself, an absolute symbol named AFMT_<ABI>).
nm -D --defined-only "$so" | awk '$2 != "A" { print $3 }' | sort > "$TMP/exported.ver"
sed 's/@.*//' "$TMP/exported.ver" | sort -u > "$TMP/exported"
bad_ver=$(grep -v "@@AFMT_$abi\$" "$TMP/exported.ver" | head -5 | tr '\n' ' ')
[ -z "$bad_ver" ] && pass "every symbol at version AFMT_$abi ($(wc -l < "$TMP/exported") symbols)" ||
    fail "symbols not at version AFMT_$abi: $bad_ver"

# Declared: the name a marked declaration declares (the first afmt_* name
# followed by "(", "[" or ";" on its first line).
marked() { # MARK FILES...
    local mark=$1
    shift
    grep -h "^$mark " "$@" | grep -o 'afmt_[A-Za-z0-9_]*[[:space:]]*[(\[;]' | sed 's/[[:space:]]*[(\[;]$//' |
        awk '!seen[$0]++'
}
public_h="runtime/afmt.h $(ls generated/*.h)"
internal_h=$(ls runtime/*.h runtime/*/*.h | grep -v '^runtime/afmt\.h$')
{ marked AFMT_API $public_h; marked AFMT_GEN_API $internal_h; } | sort -u > "$TMP/declared"

leaks=$(comm -23 "$TMP/exported" "$TMP/declared")
[ -z "$leaks" ] && pass "every exported symbol is declared AFMT_API or AFMT_GEN_API" ||
    fail "exported but declared with neither mark: $(echo $leaks)"
stale=$(comm -13 "$TMP/exported" "$TMP/declared")
[ -z "$stale" ] && pass "every AFMT_API / AFMT_GEN_API declaration is exported ($(wc -l < "$TMP/declared"))" ||
    fail "marked but not exported: $(echo $stale)"

wrong=$(grep -l '^AFMT_GEN_API ' $public_h; grep -l '^AFMT_API ' $internal_h)
[ -z "$wrong" ] && pass "AFMT_API only in public headers, AFMT_GEN_API only in internal ones" ||
    fail "a mark in the wrong kind of header: $(echo $wrong)"

# A top-level declaration in a public header that is no function or object
# of afmt's (no typedef, struct, static inline, macro, comment) must be marked.
unmarked=$(grep -Hn '^[A-Za-z_].*\bafmt_[A-Za-z0-9_]*[[:space:]]*[(\[]' $public_h |
           grep -v ':\(AFMT_API\|static\|typedef\|struct\|union\|enum\|extern "C"\)\b')
[ -z "$unmarked" ] && pass "every function and object of the public headers is marked AFMT_API" ||
    fail "declared without AFMT_API (hidden from libafmt.so users): $(echo "$unmarked" | head -3)"

# What the shipped generated code calls is reachable in the shared library.
nm -u "$BUILD"/obj/generated/*.o | awk '$2 ~ /^afmt_/ { print $2 }' | sort -u > "$TMP/called"
unreached=$(comm -23 "$TMP/called" "$TMP/exported")
[ -z "$unreached" ] && pass "every afmt_* function generated code calls is exported ($(wc -l < "$TMP/called"))" ||
    fail "generated code calls these, libafmt.so does not export them (mark their declarations AFMT_GEN_API): $(echo $unreached)"

# The check can fail: a private runtime function is known not to be there.
grep -qx afmt_meta_parse "$TMP/exported" && fail "afmt_meta_parse (private) is exported" ||
    pass "afmt_meta_parse (private) is not exported"
