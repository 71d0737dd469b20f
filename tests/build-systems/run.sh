#!/usr/bin/env bash
# examples/build-systems, built as a project that vendors afmt would build
# it: its own format (grid.json) compiled at build time by afmt-gen, through
# cmake/afmtGenerate.cmake's afmt_generate (and afmt_add_runtime: the
# runtime from these sources) and through its meson.build's custom_target;
# each program writes, validates and reads back a grid, and afmt-validate
# --spec agrees with its file.  A changed spec is generated again.  (The
# same project against an installed afmt: tests/install/run_install.sh.)
# Usage: tests/build-systems/run.sh [BUILD_DIR]   One PASS/FAIL line per check.
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BUILD=$(cd "$BUILD" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
FAILED=0
pass() { echo "PASS build-systems $*"; }
fail() { echo "FAIL build-systems $*"; FAILED=1; }
GEN=$BUILD/afmt-gen
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
# a copy of the example, so that the check of a changed spec edits no source
cp -r examples/build-systems "$TMP/src"

agrees() { # NAME FILE: afmt-validate --spec reads what the program wrote
    if out=$("$BUILD/afmt-validate" --spec "$TMP/src/grid.json" "$2" 2>&1) &&
       [ "$out" = "$2: ok grid f32[2,3] row-major" ]; then pass "$1: afmt-validate --spec grid.json agrees"
    else fail "$1: afmt-validate on its file" "$out"; fi
}

if ! command -v cmake > /dev/null 2>&1; then
    echo "SKIP build-systems cmake: no cmake (Debian: cmake; make deps-test installs it)"
else
    c=$TMP/cmake
    if cmake -S "$TMP/src" -B "$c" -DAFMT_SOURCE_DIR="$ROOT" -DAFMT_GEN_EXECUTABLE="$GEN" > "$TMP/log" 2>&1 &&
       cmake --build "$c" -j2 >> "$TMP/log" 2>&1; then
        pass "cmake: afmt_generate and afmt_add_runtime build the project"
        grep -q "afmt-gen: .*grid.json" "$TMP/log" && pass "cmake: afmt-gen ran on grid.json at build time" ||
            fail "cmake: no afmt-gen step in the build" "$(tail -3 "$TMP/log")"
        out=$("$c/grid_roundtrip" "$TMP/c.grd" 2>&1) && pass "cmake: the program: $out" || fail "cmake: the program" "$out"
        agrees cmake "$TMP/c.grd"
        # a changed spec is generated again: a fifth type code, used by the writer
        sed -i 's/{ "key": \[4\], "dtype": "f64" } \] }/{ "key": [4], "dtype": "f64" }, { "key": [5], "dtype": "u16" } ] }/' \
            "$TMP/src/grid.json"
        cmake --build "$c" > "$TMP/log2" 2>&1
        grep -q "afmt-gen: .*grid.json" "$TMP/log2" && grep -q '"u16"\|AFMT_U16' "$c/afmt-gen/grid.c" &&
            pass "cmake: a changed spec is generated again (grid.c knows the new u16 code)" ||
            fail "cmake: a changed spec" "$(tail -3 "$TMP/log2")"
        cp examples/build-systems/grid.json "$TMP/src/grid.json"
    else
        fail "cmake: the project" "$(grep -m3 -iE 'error' "$TMP/log")"
    fi
fi

if ! command -v meson > /dev/null 2>&1 || ! command -v ninja > /dev/null 2>&1; then
    echo "SKIP build-systems meson: no meson and ninja (Debian: meson ninja-build; make deps-test installs them)"
else
    m=$TMP/meson
    if meson setup "$m" "$TMP/src" -Dafmt_dir="$ROOT" -Dafmt_gen="$GEN" > "$TMP/log" 2>&1 &&
       ninja -C "$m" >> "$TMP/log" 2>&1; then
        pass "meson: the custom_target and the runtime's static_library build the project (warning_level 3, werror)"
        out=$("$m/grid_roundtrip" "$TMP/m.grd" 2>&1) && pass "meson: the program: $out" || fail "meson: the program" "$out"
        agrees meson "$TMP/m.grd"
    else
        fail "meson: the project" "$(grep -m3 -iE 'error' "$TMP/log" "$m/meson-logs/meson-log.txt" 2>/dev/null)"
    fi
fi
exit $FAILED
