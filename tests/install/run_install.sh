#!/usr/bin/env bash
# make install / make uninstall, and building against the installed afmt.
#
# 1. `make install DESTDIR=STAGE PREFIX=/usr/local` puts every file under
#    STAGE/usr/local and nowhere else; `make uninstall` with the same
#    variables leaves no file there.
# 2. `make install PREFIX=TMP/prefix`: tests/install/example.c is built with
#    `pkg-config --cflags --libs afmt` (PKG_CONFIG_PATH=TMP/prefix/lib/pkgconfig)
#    against libafmt.so (run with LD_LIBRARY_PATH), and with -static and
#    `pkg-config --static` against libafmt.a (no libafmt.so needed); both
#    validate, read, write and read back a sample of every shipped format
#    made by the installed `afmt random`.  A format generated out of tree by
#    the installed afmt-gen compiles against the installed headers and, with
#    tests/install/own_format.c, links and runs against libafmt.so.
#    The same through CMake (tests/install/cmake: find_package(afmt),
#    afmt::afmt and afmt::afmt_static); SKIP when there is no cmake.
#    Then `make uninstall` leaves no file in the prefix.
# Usage: tests/install/run_install.sh [BUILD_DIR]; prints PASS/FAIL lines.
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/../.."
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
# The example is compiled like the library was (under make asan, CFLAGS
# carries the sanitizers, which the program must link too).
CCX=${CC:-cc}
EXFLAGS="-std=c11 -Wall -Wextra -Werror -pedantic ${CFLAGS:-}"

pass() { echo "PASS install $*"; }
fail() { echo "FAIL install $*"; }
files_under() { (cd "$1" && find . \( -type f -o -type l \) | sort); }
mk() { make --no-print-directory -s BUILD="$BUILD" "$@"; }

# ---- 1. staged install (DESTDIR)
stage=$TMP/stage
if mk install DESTDIR="$stage" PREFIX=/usr/local >"$TMP/log" 2>&1; then
    outside=$(cd "$stage" && find . -mindepth 1 -maxdepth 2 | grep -v '^\./usr$\|^\./usr/local$')
    [ -z "$outside" ] && pass "DESTDIR: everything under DESTDIR/usr/local" || fail "DESTDIR: files outside PREFIX: $outside"
    want="./bin/afmt ./bin/afmt-gen ./bin/afmt-validate ./include/afmt/afmt.h ./include/afmt/rawarray.h
./lib/libafmt.a ./lib/libafmt.so ./lib/pkgconfig/afmt.pc ./lib/cmake/afmt/afmtConfig.cmake ./lib/cmake/afmt/afmtConfigVersion.cmake ./lib/cmake/afmt/afmtGenerate.cmake ./share/man/man1/afmt-gen.1 ./share/man/man1/afmt.1
./share/man/man1/afmt-validate.1"
    missing=
    for f in $want; do [ -e "$stage/usr/local/$f" ] || missing="$missing $f"; done
    [ -z "$missing" ] && pass "DESTDIR: tools, man pages, libraries, headers, afmt.pc installed" || fail "DESTDIR: missing:$missing"
    for f in bin/afmt lib/libafmt.a include/afmt/afmt.h; do
        m=$(stat -c %a "$stage/usr/local/$f")
        case $f in bin/*) w=755 ;; *) w=644 ;; esac
        [ "$m" = "$w" ] && pass "DESTDIR: $f mode $m" || fail "DESTDIR: $f mode $m, want $w"
    done
    grep -q '^prefix=/usr/local$' "$stage/usr/local/lib/pkgconfig/afmt.pc" &&
        pass "DESTDIR: afmt.pc names the final prefix, not DESTDIR" || fail "DESTDIR: afmt.pc: $(head -3 "$stage/usr/local/lib/pkgconfig/afmt.pc")"
    if mk uninstall DESTDIR="$stage" PREFIX=/usr/local >"$TMP/log" 2>&1 && [ -z "$(files_under "$stage")" ]; then
        pass "DESTDIR: make uninstall leaves no file"
    else
        fail "DESTDIR: after make uninstall: $(files_under "$stage" | head -5) $(head -3 "$TMP/log")"
    fi
else
    fail "make install DESTDIR=...: $(tail -3 "$TMP/log")"
fi

# ---- 2. a real prefix, used through pkg-config
prefix=$TMP/prefix
if ! mk install PREFIX="$prefix" >"$TMP/log" 2>&1; then
    fail "make install PREFIX=...: $(tail -3 "$TMP/log")"
    exit 1
fi
pass "make install PREFIX=$prefix"
# the installed afmt-validate's SARIF log names its installed man page
uri=$("$prefix/bin/afmt-validate" --sarif examples/test.ra 2>/dev/null | grep -o '"informationUri":"[^"]*"')
case $uri in
*"\"file://$(cd "$prefix" && pwd -P)/share/man/man1/afmt-validate.1\"") pass "installed --sarif: informationUri is the installed man page" ;;
*) fail "installed --sarif: informationUri '$uri'" ;;
esac
lib=$prefix/lib
soname=$(readelf -d "$lib/libafmt.so" 2>/dev/null | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
real=$(readlink -f "$lib/libafmt.so")
if [ -n "$soname" ] && [ "$(readlink "$lib/libafmt.so")" = "$soname" ] && [ -L "$lib/$soname" ] &&
   [ "$(readlink -f "$lib/$soname")" = "$real" ] && [[ $(basename "$real") == "$soname".*.* ]]; then
    pass "libafmt.so -> $soname -> $(basename "$real")"
else
    fail "shared library names: soname '$soname', $(ls -l "$lib" | grep libafmt | tr '\n' ' ')"
fi
if nm -g --defined-only "$lib/libafmt.a" "$real" 2>/dev/null | grep -q 'afmt_cli\|cmd_formats\| main$'; then
    fail "the libraries hold CLI objects: $(nm -g --defined-only "$lib/libafmt.a" | grep -m3 'afmt_cli\| main$')"
else
    pass "no CLI object in libafmt.a or libafmt.so"
fi

export PKG_CONFIG_PATH=$lib/pkgconfig
cflags=$(pkg-config --cflags afmt) && libs=$(pkg-config --libs afmt) && slibs=$(pkg-config --static --libs afmt)
if [ -z "${libs:-}" ]; then
    fail "pkg-config does not find afmt.pc"
    exit 1
fi
pass "pkg-config: cflags '$cflags', libs '$libs', static '$slibs'"

# samples of every shipped format, made by the installed tools
samples=()
for spec in spec/*.json; do
    fmt=$(basename "$spec" .json)
    [ "$fmt" = futhark ] && ext=.fut || ext=$(sed -n 's/.*"extensions": *\[ *"\([^"]*\)".*/\1/p' "$spec" | head -1)
    out=$TMP/sample-$fmt${ext:-.bin}
    if grep -q '"read_only"' "$spec"; then
        # a read-only format writes nothing: refused by name, its corpus
        # seeds stand in as samples
        if "$prefix/bin/afmt" random --seed 7 --to "$fmt" -o "$out" '[3][4]f64' >"$TMP/log" 2>&1; then
            fail "installed afmt random --to $fmt wrote a read-only format"
        elif grep -q "is read-only" "$TMP/log"; then
            pass "installed afmt random --to $fmt: refused, read-only"
        else
            fail "installed afmt random --to $fmt: refused without saying why: $(head -2 "$TMP/log")"
        fi
        # its seeds that hold arrays (the example reads at least one)
        for f in corpus/"$fmt"/*; do
            [ -f "$f" ] && "$prefix/bin/afmt-validate" --json "$f" 2>/dev/null | grep -q '"array_count":[1-9]' && samples+=("$f")
        done
        continue
    fi
    if "$prefix/bin/afmt" random --seed 7 --to "$fmt" -o "$out" '[3][4]f64' >"$TMP/log" 2>&1 &&
       "$prefix/bin/afmt-validate" --format "$fmt" "$out" >/dev/null 2>&1; then
        samples+=("$out")
    else
        fail "installed afmt random --to $fmt: $(head -2 "$TMP/log")"
    fi
done

# dynamic: libafmt.so, found through LD_LIBRARY_PATH
if $CCX $EXFLAGS -o "$TMP/ex-shared" tests/install/example.c $cflags $libs 2>"$TMP/cc.log"; then
    if readelf -d "$TMP/ex-shared" | grep -q "NEEDED.*\[$soname\]"; then
        pass "dynamic example needs $soname"
    else
        fail "dynamic example does not need $soname"
    fi
    if out=$(LD_LIBRARY_PATH=$lib "$TMP/ex-shared" "${samples[@]}" 2>&1); then
        pass "dynamic example: every format: $(echo "$out" | wc -l) files validated, read, written, read back"
    else
        fail "dynamic example: $out"
    fi
else
    fail "dynamic build with pkg-config: $(head -5 "$TMP/cc.log")"
fi

# A custom prefix is not on the loader's path: without LD_LIBRARY_PATH the
# program does not start; with an rpath from pkg-config's libdir, as
# README.md and docs/API.md say, it does (issue 25, point 7).
if [ -x "$TMP/ex-shared" ]; then
    if env -u LD_LIBRARY_PATH "$TMP/ex-shared" "${samples[@]}" > /dev/null 2>&1; then
        fail "the dynamic example starts without LD_LIBRARY_PATH or an rpath (is $lib on the loader's path?)"
    else
        pass "the dynamic example needs LD_LIBRARY_PATH or an rpath to start"
    fi
fi
libdir=$(pkg-config --variable=libdir afmt)
if $CCX $EXFLAGS -o "$TMP/ex-rpath" tests/install/example.c $cflags $libs -Wl,-rpath,"$libdir" 2>"$TMP/cc.log"; then
    if out=$(env -u LD_LIBRARY_PATH "$TMP/ex-rpath" "${samples[@]}" 2>&1); then
        pass "linked with -Wl,-rpath,\$(pkg-config --variable=libdir afmt): starts with no LD_LIBRARY_PATH"
    else
        fail "rpath example: $out"
    fi
else
    fail "rpath build: $(head -5 "$TMP/cc.log")"
fi

# static: as README.md says, -static with pkg-config --static; under the
# sanitizers (which cannot link -static) name the archive instead, since
# the linker prefers the .so for -lafmt
case "${CFLAGS:-}" in
*sanitize*) static_link=$(echo "$slibs" | sed 's/-lafmt\b/-l:libafmt.a/') ;;
*) static_link="-static $slibs" ;;
esac
if $CCX $EXFLAGS -o "$TMP/ex-static" tests/install/example.c $cflags $static_link 2>"$TMP/cc.log"; then
    if readelf -d "$TMP/ex-static" | grep -q "NEEDED.*libafmt"; then
        fail "static example still needs libafmt.so"
    elif out=$("$TMP/ex-static" "${samples[@]}" 2>&1); then
        pass "static example: every format: $(echo "$out" | wc -l) files validated, read, written, read back"
    else
        fail "static example: $out"
    fi
else
    fail "static build with pkg-config --static: $(head -5 "$TMP/cc.log")"
fi

# namespaced: pkg-config's Cflags reach <afmt/afmt.h>, <afmt/npy.h>, and
# put no generic name ("npy.h", "afmt.h") on the include path
case " $cflags " in
*" -I$prefix/include "*) pass "pkg-config --cflags: -I$prefix/include, headers reached as <afmt/...>" ;;
*) fail "pkg-config --cflags: '$cflags' has no -I$prefix/include" ;;
esac
for h in afmt.h npy.h; do
    if printf '#include "%s"\nint afmt_probe;\n' "$h" | $CCX $EXFLAGS $cflags -c -x c -o /dev/null - 2>/dev/null; then
        fail "\"$h\" is on the include path pkg-config gives ($cflags): a generic name"
    else
        pass "\"$h\" is not on the include path pkg-config gives, <afmt/$h> is"
    fi
done

# installed internal headers: those afmt_internal.h includes (generated code
# needs them) and no other; each says INTERNAL HEADER on its first line;
# every "..." include of an installed header is installed
inc=$prefix/include/afmt
formats=$(for s in spec/*.json; do basename "$s" .json; done)
needed=$(sed -n 's/^#include "\([a-z]*\/afmt_[a-z0-9_]*\.h\)"$/\1/p' runtime/afmt_internal.h)
problems=
# (the internal ones in the runtime/ folders they have there: core/...)
for h in $(cd "$inc" && find . -name '*.h' | sed 's|^\./||' | sort); do
    base=${h%.h}
    if [ "$h" = afmt.h ] || echo "$formats" | grep -qx "$base"; then
        head -1 "$inc/$h" | grep -q 'INTERNAL HEADER' && problems="$problems $h(public,marked-internal)"
        continue
    fi
    [ "$h" = afmt_internal.h ] || echo "$needed" | grep -qx "$h" || problems="$problems $h(not-needed-by-generated-code)"
    head -1 "$inc/$h" | grep -q 'INTERNAL HEADER' || problems="$problems $h(unmarked)"
done
for h in $(cd "$inc" && find . -name '*.h' | sed 's|^\./||'); do
    for q in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$inc/$h"); do
        [ -f "$(dirname "$inc/$h")/$q" ] || problems="$problems $h-includes-missing-$q"
    done
done
[ -z "$problems" ] && pass "installed headers: afmt.h, $(echo $formats | wc -w) formats, $(echo "$needed" | wc -l) + 1 internal ones (marked, what generated code needs)" ||
    fail "installed headers:$problems"

# a format of one's own, generated by the installed afmt-gen, compiled
# against the installed headers and library, either way: with pkg-config's
# Cflags (the generated files then reach <afmt/afmt.h>) and with the flat
# -I<includedir>/afmt of a build that names the runtime's folder
if ASAN_OPTIONS=detect_leaks=0 "$prefix/bin/afmt-gen" -o "$TMP/own" tests/specs/newformat/toyfmt.json >"$TMP/log" 2>&1 &&
   $CCX $EXFLAGS -I"$TMP/own" -c -o "$TMP/toyfmt.o" "$TMP/own/toyfmt.c" $cflags 2>"$TMP/cc.log" &&
   $CCX $EXFLAGS -I"$TMP/own" -c -o "$TMP/toyfmt-flat.o" "$TMP/own/toyfmt.c" -I"$inc" 2>>"$TMP/cc.log"; then
    pass "installed afmt-gen's output compiles against the installed headers (pkg-config's <afmt/...>, and -I$inc)"
    # ... and links against libafmt.so, which exports what generated code
    # calls (AFMT_GEN_API) though it hides the rest of the runtime
    if $CCX $EXFLAGS -I"$TMP/own" -o "$TMP/own-shared" tests/install/own_format.c "$TMP/toyfmt.o" \
           $cflags $libs 2>"$TMP/cc.log" &&
       out=$(LD_LIBRARY_PATH=$lib "$TMP/own-shared" 2>&1); then
        pass "own format linked against libafmt.so: $out"
    else
        fail "own format against libafmt.so: $(head -3 "$TMP/cc.log") ${out:-}"
    fi
else
    fail "own format against the installed headers: $(head -3 "$TMP/log" "$TMP/cc.log")"
fi

# CMake: find_package(afmt) against the same prefix (tests/install/cmake),
# the example linked to afmt::afmt and afmt::afmt_static, the own format to
# afmt::afmt; a version this afmt does not meet is refused
if ! command -v cmake >/dev/null 2>&1; then
    echo "SKIP install cmake: no cmake on this machine (make deps-test installs it)"
elif [ ! -f "$prefix/lib/cmake/afmt/afmtConfig.cmake" ]; then
    fail "cmake: no $prefix/lib/cmake/afmt/afmtConfig.cmake installed"
else
    version=$(sed -n 's/^#define AFMT_VERSION_STRING "\(.*\)"$/\1/p' runtime/afmt.h)
    cmk=$TMP/cmake-build
    if cmake -S tests/install/cmake -B "$cmk" -DCMAKE_PREFIX_PATH="$prefix" -DAFMT_WANT_VERSION="${version%.*}" \
             -DOWN_DIR="$TMP/own" -DCMAKE_C_COMPILER="$CCX" -DCMAKE_C_FLAGS="$EXFLAGS" \
             -DCMAKE_EXE_LINKER_FLAGS="${CFLAGS:-}" >"$TMP/cmake.log" 2>&1 &&
       cmake --build "$cmk" >>"$TMP/cmake.log" 2>&1; then
        pass "cmake: find_package(afmt ${version%.*}) builds the example (afmt::afmt, afmt::afmt_static) and an own format"
        readelf -d "$cmk/example_shared" | grep -q "NEEDED.*\[$soname\]" &&
            pass "cmake: afmt::afmt links $soname" || fail "cmake: example_shared does not need $soname"
        readelf -d "$cmk/example_static" | grep -q "NEEDED.*libafmt" &&
            fail "cmake: afmt::afmt_static still needs libafmt.so" || pass "cmake: afmt::afmt_static needs no libafmt.so"
        for ex in example_shared example_static; do
            if out=$(LD_LIBRARY_PATH=$lib "$cmk/$ex" "${samples[@]}" 2>&1); then
                pass "cmake: $ex: every format: $(echo "$out" | wc -l) files validated, read, written, read back"
            else
                fail "cmake: $ex: $out"
            fi
        done
        out=$(LD_LIBRARY_PATH=$lib "$cmk/own_shared" 2>&1) && pass "cmake: own format against afmt::afmt: $out" ||
            fail "cmake: own format: $out"
    else
        fail "cmake: find_package(afmt) project: $(grep -m3 -i 'error' "$TMP/cmake.log")"
    fi
    if cmake -S tests/install/cmake -B "$TMP/cmake-v9" -DCMAKE_PREFIX_PATH="$prefix" -DAFMT_WANT_VERSION=9.0 \
             -DCMAKE_C_COMPILER="$CCX" >"$TMP/cmake.log" 2>&1; then
        fail "cmake: find_package(afmt 9.0) found afmt $version"
    elif grep -q 'compatible' "$TMP/cmake.log" && grep -q 'considered but not accepted' "$TMP/cmake.log"; then
        pass "cmake: find_package(afmt 9.0) refused (afmt $version is installed)"
    else
        fail "cmake: find_package(afmt 9.0) failed for another reason: $(grep -m3 -i error "$TMP/cmake.log")"
    fi
fi

# examples/build-systems against this installation: a format of its own
# (grid.json) generated at build time by the installed afmt-gen, through
# the CMake package's afmt_generate and through meson and pkg-config
bs=$(pwd)/examples/build-systems
if command -v cmake >/dev/null 2>&1; then
    if cmake -S "$bs" -B "$TMP/bs-cmake" -DAFMT_INSTALLED=ON -DCMAKE_PREFIX_PATH="$prefix" \
             -DCMAKE_C_COMPILER="$CCX" >"$TMP/bs.log" 2>&1 && cmake --build "$TMP/bs-cmake" >>"$TMP/bs.log" 2>&1 &&
       grep -q "afmt-gen: .*grid.json" "$TMP/bs.log" && out=$("$TMP/bs-cmake/grid_roundtrip" 2>&1); then
        pass "cmake: the package's afmt_generate builds examples/build-systems' own format ($out)"
    else
        fail "cmake: afmt_generate against the installation: $(grep -m3 -iE 'error|fail' "$TMP/bs.log") ${out:-}"
    fi
fi
if command -v meson >/dev/null 2>&1 && command -v ninja >/dev/null 2>&1; then
    if PKG_CONFIG_PATH=$prefix/lib/pkgconfig meson setup "$TMP/bs-meson" "$bs" -Dafmt_installed=true \
             -Dafmt_gen="$prefix/bin/afmt-gen" >"$TMP/bs.log" 2>&1 && ninja -C "$TMP/bs-meson" >>"$TMP/bs.log" 2>&1 &&
       out=$("$TMP/bs-meson/grid_roundtrip" 2>&1); then
        pass "meson: examples/build-systems against the installation (pkg-config afmt) ($out)"
    else
        fail "meson: examples/build-systems against the installation: $(grep -m3 -iE 'error|fail' "$TMP/bs.log") ${out:-}"
    fi
else
    echo "SKIP install meson: no meson and ninja on this machine (pip install meson ninja, or Debian: meson ninja-build)"
fi

if mk uninstall PREFIX="$prefix" >"$TMP/log" 2>&1 && [ -z "$(files_under "$prefix")" ]; then
    pass "make uninstall leaves no file in the prefix"
else
    fail "after make uninstall: $(files_under "$prefix" | head -5) $(head -3 "$TMP/log")"
fi
