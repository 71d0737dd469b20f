#!/usr/bin/env bash
# make vendor-test: vendoring builds exactly as docs/VENDORING.md says.
#
# For every shipped format, and for a format generated out of tree
# (tests/specs/newformat/toyfmt.json), an empty temporary folder gets only
# runtime/ (its folders kept) + <format>.{c,h} in its afmt/ (included as "afmt/<format>.h")
# + the main.c, list.c and main.cpp of docs/VENDORING.md
# (extracted from the markdown, so the document cannot drift; `rawarray`
# replaced by the format's name).  Built with gcc and clang
# `-std=c11 -Wall -Wextra -Werror -pedantic` and no other flag, and with
# g++ -std=c++17 for main.cpp; main.cpp writes a sample with the writer and
# reads it back, main.c (both C builds) validates that sample, the corpus
# files of the format and a truncated copy (which it must reject).
# Also: a generated file refuses to compile against a runtime of another
# ABI, with a message that says to regenerate.
# Usage: tests/vendor/run_vendor.sh [BUILD_DIR]; prints PASS/FAIL lines.
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
STRICT="-std=c11 -Wall -Wextra -Werror -pedantic"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}

pass() { echo "PASS vendor $*"; }
fail() { echo "FAIL vendor $*"; }

# The code block after "<!-- vendor-test: NAME -->" in docs/VENDORING.md.
# (every such block, in order, for a NAME given to several)
extract() {
    awk -v want="<!-- vendor-test: $1 -->" '
        $0 == want { found = 1; next }
        found == 1 && /^```/ { found = 2; next }
        found == 2 && /^```/ { found = 0; next }
        found == 2 { print }' docs/VENDORING.md
}
extract main.c > "$TMP/main.c.in"
extract main.cpp > "$TMP/main.cpp.in"
extract list.c > "$TMP/list.c.in"
if [ ! -s "$TMP/main.c.in" ] || [ ! -s "$TMP/main.cpp.in" ] || [ ! -s "$TMP/list.c.in" ]; then
    fail "docs/VENDORING.md: the main.c / main.cpp / list.c blocks are missing"
    exit 1
fi

# Out of tree: a spec the repository does not ship, generated elsewhere.
mkdir -p "$TMP/toygen"
# afmt-gen frees little before exit: no leak check for it under ASan
# (as tests/run.sh does for its afmt-gen calls).
if ! ASAN_OPTIONS=detect_leaks=0 "$BUILD"/afmt-gen -o "$TMP/toygen" tests/specs/newformat/toyfmt.json >"$TMP/gen.log" 2>&1; then
    fail "afmt-gen toyfmt.json: $(head -3 "$TMP/gen.log")"
fi

# The document's own commands, as written: its "vendor-test: sh" blocks,
# in order, in an empty folder holding its main.c, list.c and main.cpp,
# with AFMT the sources (so a command a reader would copy is a command
# that works: issue 25, point 6).
extract sh > "$TMP/doc.sh"
if [ "$(grep -c 'vendor-test: sh' docs/VENDORING.md)" -lt 4 ] || [ ! -s "$TMP/doc.sh" ]; then
    fail "docs/VENDORING.md: its command blocks ('<!-- vendor-test: sh -->') are missing"
else
    mkdir -p "$TMP/doc" && cp "$TMP/main.c.in" "$TMP/doc/main.c" && cp "$TMP/list.c.in" "$TMP/doc/list.c" &&
        cp "$TMP/main.cpp.in" "$TMP/doc/main.cpp"
    if (cd "$TMP/doc" && AFMT=$ROOT bash -e -o pipefail "$TMP/doc.sh") > "$TMP/doc.log" 2>&1; then
        pass "docs/VENDORING.md's commands run as written ($(grep -c . "$TMP/doc.sh") lines)"
    else
        fail "docs/VENDORING.md's commands as written: $(tail -5 "$TMP/doc.log")"
    fi
    grep -q "examples/test.ra: valid" "$TMP/doc.log" && grep -q "^array 0: c64\[3,4\]" "$TMP/doc.log" &&
        grep -q "out.ra: wrote and read back f64\[2,3\]" "$TMP/doc.log" &&
        pass "docs/VENDORING.md's programs print what it says" ||
        fail "docs/VENDORING.md's programs' output: $(head -5 "$TMP/doc.log")"
fi

formats=$(for s in spec/*.json; do basename "$s" .json; done)
# The runtime's objects, compiled once per compiler from a vendored copy of
# runtime/: every format's afmt/ holds the same runtime bytes, compiled
# with the same flags, so each format's builds below compile only what
# differs (its generated files and the programs) and link these.  The
# documented one-line command, `cc $STRICT -o check main.c afmt/*.c afmt/*/*.c`, runs
# as written for the first format and for toyfmt, with both compilers.
runtime_c=$(cd runtime && ls ./*/*.c | sed 's|^\./||')
for cc in gcc clang; do
    mkdir -p "$TMP/rt-$cc/afmt" && cp -R runtime/. "$TMP/rt-$cc/afmt/"
    if (cd "$TMP/rt-$cc" && printf '%s\n' $runtime_c |
            xargs -P 2 -I{} sh -c "$cc $STRICT -c afmt/{} -o \$(basename {} .c).o") > "$TMP/rt.log" 2>&1; then
        pass "the runtime: $cc $STRICT afmt/*/*.c compiles ($(echo $runtime_c | wc -w) files)"
    else
        fail "the runtime: $cc $STRICT: $(grep -m3 -E 'error|warning' "$TMP/rt.log")"
    fi
done
literal_formats="$(echo $formats | cut -d' ' -f1) toyfmt"
for fmt in $formats toyfmt; do
    src=generated
    [ "$fmt" = toyfmt ] && src=$TMP/toygen
    [ -f "$src/$fmt.c" ] || { fail "$fmt: no $src/$fmt.c"; continue; }
    d=$TMP/$fmt
    mkdir -p "$d/afmt"
    cp -R runtime/. "$d/afmt/"
    cp "$src/$fmt.c" "$src/$fmt.h" "$d/afmt/"
    # a format whose archive members are another format's (npz: npy)
    # vendors that one too, as docs/VENDORING.md says
    for dep in $(sed -n 's/^#include "\([a-z0-9_]*\)\.h"$/\1/p' "$src/$fmt.c"); do
        [ "$dep" != "$fmt" ] && [ -f "$src/$dep.c" ] && cp "$src/$dep.c" "$src/$dep.h" "$d/afmt/"
    done
    sed "s/rawarray/$fmt/g" "$TMP/main.c.in" > "$d/main.c"
    sed "s/rawarray/$fmt/g" "$TMP/main.cpp.in" > "$d/main.cpp"
    ext=$(sed -n 's/.*"extensions": *\[ *"\([^"]*\)".*/\1/p' "$( [ $fmt = toyfmt ] && echo tests/specs/newformat/toyfmt.json || echo spec/$fmt.json)" | head -1)
    sample=$TMP/sample-$fmt${ext:-.bin}
    # a read-only format ("read_only" in its spec) writes nothing: its
    # sample is the first seed of its corpus (not its README.md), and
    # main.cpp must be refused
    read_only=
    if [ "$fmt" != toyfmt ] && grep -q '"read_only"' "spec/$fmt.json"; then
        read_only=1
        for f in corpus/"$fmt"/*; do
            [ -f "$f" ] && [ "${f##*/}" != README.md ] && { cp "$f" "$sample"; break; }
        done
    fi

    # the format's own sources: afmt/*.c (the runtime's are in afmt/*/)
    own_c=$(cd "$d" && echo afmt/*.c)
    # C++: the runtime through gcc, main.cpp through g++.
    if (cd "$d" && mkdir -p obj && for c in $own_c; do
            gcc $STRICT -c "$c" -o "obj/$(basename "${c%.c}").o" || exit 1; done &&
        g++ -std=c++17 -Wall -Wextra -Werror -pedantic -o roundtrip main.cpp obj/*.o "$TMP"/rt-gcc/*.o) >"$TMP/cxx.log" 2>&1; then
        pass "$fmt: g++ -std=c++17 main.cpp builds"
        if [ -n "$read_only" ]; then
            if out=$("$d/roundtrip" "$TMP/ro-out" 2>&1); then
                fail "$fmt: main.cpp wrote a file of a read-only format"
            elif echo "$out" | grep -q "is read-only"; then
                pass "$fmt: main.cpp is refused: the format is read-only"
            else
                fail "$fmt: main.cpp refused without saying the format is read-only: $out"
            fi
        elif out=$("$d/roundtrip" "$sample" 2>&1); then
            pass "$fmt: main.cpp wrote and read back a sample ($out)"
        else
            fail "$fmt: main.cpp roundtrip: $out"
        fi
        # list.c (the visitor example) against the same objects
        sed "s/rawarray/$fmt/g" "$TMP/list.c.in" > "$TMP/list-$fmt.c"
        if (cd "$d" && gcc $STRICT -I. -o list "$TMP/list-$fmt.c" obj/*.o "$TMP"/rt-gcc/*.o) >"$TMP/list.log" 2>&1 &&
           out=$("$d/list" "$sample" 2>&1) && echo "$out" | grep -q "^array 0: "; then
            pass "$fmt: list.c lists the sample's arrays"
        else
            fail "$fmt: list.c: $(head -3 "$TMP/list.log") $out"
        fi
    else
        fail "$fmt: g++ build: $(grep -m3 -E 'error|undefined' "$TMP/cxx.log")"
    fi

    for cc in gcc clang; do
        case " $literal_formats " in
            *" $fmt "*) how="as written" sources=$(cd "$d" && echo afmt/*.c afmt/*/*.c) objects= ;;
            *) how="the runtime's objects shared" sources=$own_c objects=$(echo "$TMP"/rt-$cc/*.o) ;;
        esac
        # shellcheck disable=SC2086
        if ! (cd "$d" && $cc $STRICT -o "check-$cc" main.c $sources $objects) >"$TMP/cc.log" 2>&1; then
            fail "$fmt: $cc $STRICT main.c afmt/*.c afmt/*/*.c ($how): $(grep -m3 -E 'error|undefined' "$TMP/cc.log")"
            continue
        fi
        pass "$fmt: $cc $STRICT main.c afmt/*.c afmt/*/*.c builds ($how)"
        inputs=()
        [ -f "$sample" ] && inputs+=("$sample")
        for f in corpus/"$fmt"/*; do
            [ -f "$f" ] && "$BUILD"/afmt-validate --format "$fmt" "$f" >/dev/null 2>&1 && inputs+=("$f")
        done
        if [ ${#inputs[@]} -eq 0 ]; then fail "$fmt: no sample to validate"; continue; fi
        for f in "${inputs[@]}"; do
            if out=$("$d/check-$cc" "$f" 2>&1); then
                pass "$fmt: $cc build validates $(basename "$f")"
            else
                fail "$fmt: $cc build rejects the valid $f: $out"
            fi
        done
        # A truncated sample must be refused (exit 1) with a reason.
        head -c $(( $(wc -c < "${inputs[0]}") - 1 )) "${inputs[0]}" > "$TMP/short"
        out=$("$d/check-$cc" "$TMP/short" 2>&1); rc=$?
        if [ $rc -eq 1 ] && echo "$out" | grep -q invalid; then
            pass "$fmt: $cc build rejects a truncated sample"
        else
            fail "$fmt: $cc build on a truncated sample: exit $rc: $out"
        fi
    done
done

# The amalgamation (make amalgamate): one afmt.c and afmt.h, for two
# formats and for every shipped one, built by gcc and clang (one at -O0,
# the other at -O2: a build of the 1.2 MB file takes 10-20 s; with the
# project's warnings too) and used from main.c and list.c (C) and
# main.cpp (g++), which include "afmt.h" instead of "afmt/<format>.h".
PROJECT_WARN="-Wshadow -Wstrict-prototypes -Wmissing-prototypes"
# (the first set has a spec of its own, toyfmt, given as its .json)
for set in "rawarray npy tests/specs/newformat/toyfmt.json" "$(for s in spec/*.json; do basename "$s" .json; done | paste -sd' ')"; do
    a=$TMP/amal-$(echo "$set" | wc -w)
    if ! make --no-print-directory -s BUILD="$BUILD" amalgamate FORMATS="$set" AMALGAMATION="$a" > "$TMP/amal.log" 2>&1; then
        fail "amalgamation ($set): make amalgamate: $(tail -3 "$TMP/amal.log")"
        continue
    fi
    what="amalgamation of $(echo "$set" | wc -w) formats"
    case $set in "rawarray npy "*) builds="gcc:-O2 clang:-O0" ;; *) builds="gcc:-O0 clang:-O2" ;; esac
    for b in $builds; do
        cc=${b%%:*} opt=${b#*:}
        if (cd "$a" && $cc $STRICT $PROJECT_WARN $opt -c afmt.c -o "afmt-$cc.o") > "$TMP/amal.log" 2>&1; then
            pass "$what: $cc $STRICT $PROJECT_WARN $opt afmt.c builds"
        else
            fail "$what: $cc $opt afmt.c: $(grep -m3 -E 'error|warning' "$TMP/amal.log")"
        fi
    done
    sed 's|"afmt/rawarray.h"|"afmt.h"|' "$TMP/main.c.in" > "$a/main.c"
    sed 's|"afmt/rawarray.h"|"afmt.h"|' "$TMP/list.c.in" > "$a/list.c"
    sed 's|"afmt/rawarray.h"|"afmt.h"|' "$TMP/main.cpp.in" > "$a/main.cpp"
    if (cd "$a" && gcc $STRICT -o check main.c afmt-gcc.o && clang $STRICT -o list list.c afmt-clang.o &&
        g++ -std=c++17 -Wall -Wextra -Werror -pedantic -o roundtrip main.cpp afmt-gcc.o) > "$TMP/amal.log" 2>&1; then
        pass "$what: main.c (gcc), list.c (clang), main.cpp (g++) build against it"
    else
        fail "$what: the examples: $(grep -m3 -E 'error|undefined' "$TMP/amal.log")"
        continue
    fi
    out=$("$a/check" examples/test.ra 2>&1) && [ "$out" = "examples/test.ra: valid" ] &&
        pass "$what: main.c validates examples/test.ra" || fail "$what: main.c: $out"
    out=$("$a/list" examples/test.ra 2>&1) && echo "$out" | grep -q "^array 0: c64\[3,4\]" &&
        pass "$what: list.c lists its array" || fail "$what: list.c: $out"
    out=$("$a/roundtrip" "$TMP/amal.ra" 2>&1) && echo "$out" | grep -q "wrote and read back f64\[2,3\]" &&
        pass "$what: main.cpp writes and reads back a file" || fail "$what: main.cpp: $out"
    head -c 100 examples/test.ra > "$TMP/amal-short.ra"
    out=$("$a/check" "$TMP/amal-short.ra" 2>&1); rc=$?
    [ $rc -eq 1 ] && echo "$out" | grep -q invalid &&
        pass "$what: main.c rejects a truncated file" || fail "$what: truncated file: exit $rc: $out"
    case $set in *toyfmt.json*)
        grep -q "afmt_toyfmt_validate" "$a/afmt.h" && pass "$what: a spec of its own (toyfmt.json) is in afmt.h" ||
            fail "$what: afmt.h does not declare afmt_toyfmt_validate" ;;
    esac
    n=$(grep -c "^#line 1 " "$a/afmt.c")
    check_formats=$(grep -o 'the formats [a-z0-9_, ]* and' "$a/afmt.c" | head -1 | sed 's/ and$//')
    [ -n "$check_formats" ] && pass "$what: afmt.c says what it holds ($n source files; $check_formats)" ||
        fail "$what: afmt.c does not say which formats it holds"
done

# ABI pin: the same generated file against a runtime of another ABI.
d=$TMP/abi
mkdir -p "$d"
cp -R runtime/. "$d/" && cp generated/rawarray.c generated/rawarray.h "$d/"
abi=$(sed -n 's/^#define AFMT_RUNTIME_ABI \([0-9]*\)$/\1/p' runtime/afmt.h)
if [ -z "$abi" ]; then
    fail "abi: no '#define AFMT_RUNTIME_ABI N' in runtime/afmt.h"
else
    (cd "$d" && gcc $STRICT -c rawarray.c -o ok.o) >"$TMP/abi.log" 2>&1 &&
        pass "abi: rawarray.c compiles against its own runtime (ABI $abi)" ||
        fail "abi: rawarray.c does not compile against its own runtime: $(head -3 "$TMP/abi.log")"
    sed -i "s/^#define AFMT_RUNTIME_ABI $abi\$/#define AFMT_RUNTIME_ABI $((abi + 1))/" "$d/afmt.h"
    for cc in gcc clang; do
        if (cd "$d" && $cc $STRICT -c rawarray.c -o bumped.o) >"$TMP/abi.log" 2>&1; then
            fail "abi: $cc compiled rawarray.c against runtime ABI $((abi + 1))"
        elif grep -q "generated by afmt-gen .* for runtime ABI $abi.*regenerate" "$TMP/abi.log"; then
            pass "abi: $cc refuses rawarray.c against ABI $((abi + 1)), saying to regenerate"
        else
            fail "abi: $cc failed without the regenerate message: $(head -3 "$TMP/abi.log")"
        fi
    done
fi
