#!/usr/bin/env bash
# Vendoring one format takes only the runtime parts it uses (issue 37):
# `make vendor VENDOR_FORMATS=<format>` fills an afmt/ folder with every
# header and only the runtime .c files the format calls into
# (tools/runtime_parts.py).  For a small format (npy) and an archive one
# (torch: zip + pickle), in an empty folder: the copy leaves out parts
# the format does not use, builds with docs/VENDORING.md's main.c and
# its one command (gcc -std=c11 -pedantic -Werror, no other flag) and
# links with nothing missing, validates the corpus files afmt-validate
# accepts and rejects a truncated one.
# Usage: tests/vendor/run_vendor_parts.sh [BUILD_DIR]; prints PASS/FAIL lines.
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/../.."
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
STRICT="-std=c11 -Wall -Wextra -Werror -pedantic"

pass() { echo "PASS vendor-parts $*"; }
fail() { echo "FAIL vendor-parts $*"; }

# docs/VENDORING.md's main.c (as run_vendor.sh extracts it)
awk -v want="<!-- vendor-test: main.c -->" '
    $0 == want { found = 1; next }
    found == 1 && /^```/ { found = 2; next }
    found == 2 && /^```/ { exit }
    found == 2 { print }' docs/VENDORING.md > "$TMP/main.c.in"
[ -s "$TMP/main.c.in" ] || { fail "docs/VENDORING.md: no main.c block"; exit 1; }
all_c=$(ls runtime/*/*.c | wc -l)

# format, a part it must leave out, a part it must take
for want in "npy archive/afmt_zip.c text/afmt_header_arrays.c" \
            "torch text/afmt_header_arrays.c pickle/afmt_pickle.c"; do
    set -- $want
    fmt=$1 left_out=$2 taken=$3
    d=$TMP/$fmt
    mkdir -p "$d"
    if ! make --no-print-directory -s BUILD="$BUILD" vendor VENDOR_FORMATS="$fmt" VENDOR_DIR="$d/afmt" \
            > "$TMP/make.log" 2>&1; then
        fail "$fmt: make vendor: $(tail -3 "$TMP/make.log")"
        continue
    fi
    n=$(ls "$d"/afmt/*/*.c | wc -l)
    if [ "$n" -lt "$all_c" ] && [ ! -e "$d/afmt/$left_out" ] && [ -f "$d/afmt/$taken" ]; then
        pass "$fmt: make vendor takes $n of the runtime's $all_c .c files ($taken, not $left_out)"
    else
        fail "$fmt: make vendor took $n of $all_c .c files (want fewer, $taken and not $left_out)"
    fi
    sed "s/rawarray/$fmt/g" "$TMP/main.c.in" > "$d/main.c"
    if (cd "$d" && gcc $STRICT -o check main.c afmt/*.c afmt/*/*.c) > "$TMP/cc.log" 2>&1; then
        pass "$fmt: gcc $STRICT main.c afmt/*.c afmt/*/*.c builds with only those files"
    else
        fail "$fmt: the build of the partial copy: $(grep -m3 -E 'error|undefined' "$TMP/cc.log")"
        continue
    fi
    checked=0 first=
    for f in corpus/"$fmt"/*; do
        [ -f "$f" ] && "$BUILD"/afmt-validate --format "$fmt" "$f" >/dev/null 2>&1 || continue
        [ -n "$first" ] || first=$f
        if out=$("$d/check" "$f" 2>&1); then checked=$((checked + 1))
        else fail "$fmt: the partial copy rejects the valid $f: $out"; fi
    done
    [ "$checked" -gt 0 ] && pass "$fmt: the partial copy validates $checked corpus files" ||
        fail "$fmt: no corpus file validated"
    if [ -n "$first" ]; then
        head -c $(( $(wc -c < "$first") - 1 )) "$first" > "$TMP/short"
        out=$("$d/check" "$TMP/short" 2>&1); rc=$?
        [ $rc -eq 1 ] && echo "$out" | grep -q invalid &&
            pass "$fmt: the partial copy rejects a truncated file" ||
            fail "$fmt: truncated file: exit $rc: $out"
    fi
done
