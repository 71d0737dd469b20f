#!/usr/bin/env bash
# The CLI on the public API (issue 23, point 3): the tools are the
# library's first users, so cli/ uses what a program linked against an
# installed afmt can use, nothing more.  Checked:
#  - no cli/ file includes a runtime header but afmt.h (the internal ones
#    say INTERNAL HEADER on their first line), nor the registry's
#    generated table header (afmt_formats.h: not installed);
#  - every cli/*.c compiles with only the public headers on the include
#    path: runtime/afmt.h, each generated/<format>.h, and the reference
#    interpreter's afmt_interp.h (interp/, the tools' own library), as
#    make install puts them, -Werror.
# Usage: tests/abi/run_cli_public.sh; prints PASS/FAIL lines.
set -u
cd "$(dirname "$0")/../.."
CC=${CC:-cc}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

pass() { echo "PASS cli-public $*"; }
fail() { echo "FAIL cli-public $*"; }

# (by the name beside afmt.h, or by the runtime/ folder it is in)
internal=$(cd runtime && ls afmt_*.h */afmt_*.h | tr '\n' ' ')
bad=""
for h in $internal afmt_formats.h; do
    hits=$(grep -l "^#include [\"<]\\(afmt/\\)\\?$h[\">]" cli/*.c cli/*.h 2>/dev/null | tr '\n' ' ')
    [ -n "$hits" ] && bad="$bad $h: $hits;"
done
[ -z "$bad" ] && pass "no cli/ file includes an internal header" ||
    fail "internal headers included:$bad"

# The check must be able to fail: a file including one is caught.
printf '#include "afmt_internal.h"\n' > "$TMP/probe.c"
mkdir -p "$TMP/pub"
cp runtime/afmt.h interp/afmt_interp.h "$TMP/pub/"
for h in generated/*.h; do [ "$h" = generated/afmt_formats.h ] || cp "$h" "$TMP/pub/"; done
if $CC -std=c11 -I"$TMP/pub" -fsyntax-only "$TMP/probe.c" 2>/dev/null; then
    fail "an internal header is reachable with only the public ones on the path"
else
    pass "an internal header is not reachable with only the public ones on the path"
fi

failed=""
for f in cli/*.c; do
    if ! $CC -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Wall -Wextra -Werror \
        -I"$TMP/pub" -fsyntax-only "$f" 2> "$TMP/err"; then
        failed="$failed $f"
        head -3 "$TMP/err"
    fi
done
n=$(ls cli/*.c | wc -l)
[ -z "$failed" ] && pass "all $n cli/*.c compile with only the public headers" ||
    fail "these need more than the public headers:$failed"
