#!/usr/bin/env bash
# Build ggml's GGUF reader (the ggml-base library: gguf.cpp and ggml.c) from
# a ggml source tree fetched by hand, OUTSIDE this repository, for the GGUF
# peers of `make bench` (bench/gguf_bench.sh) and of the verdict check
# (tests/golden/gguf_verdicts.sh).  Nothing is downloaded here.
#
#   bash bench/build_ggml.sh SRC [GGML_DIR]
#
#   SRC       a ggml source tree (a checkout of github.com/ggml-org/ggml), or
#             a bare git directory of one (its HEAD is exported first)
#   GGML_DIR  where to build (default /work/ggml-build; must not lie inside
#             this repository); it ends up holding include/, lib/ and
#             bin/gguf_check (tests/golden/gguf_check.c linked against it)
#
# Then:  GGML_DIR=/work/ggml-build make bench
# Only the CPU-independent ggml-base target is built (about a minute on
# 2 cores): no backend, no examples, no tests.
set -euo pipefail
die() { echo "build_ggml: $*" >&2; exit 1; }
[ $# -ge 1 ] || die "usage: bash bench/build_ggml.sh SRC [GGML_DIR]"
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SRC=$(cd "$1" && pwd) || die "no such directory: $1"
OUT=${2:-${GGML_DIR:-/work/ggml-build}}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
case "$OUT/" in "$ROOT"/*) die "$OUT is inside the repository; build ggml outside it" ;; esac
command -v cmake > /dev/null || die "cmake is not installed (apt-get install cmake)"

if [ ! -f "$SRC/CMakeLists.txt" ] && git --git-dir="$SRC" rev-parse HEAD > /dev/null 2>&1; then
    rm -rf "$OUT/src"
    mkdir -p "$OUT/src"
    git --git-dir="$SRC" archive HEAD | tar -x -C "$OUT/src"
    git --git-dir="$SRC" rev-parse HEAD > "$OUT/src/COMMIT"
    SRC=$OUT/src
fi
[ -f "$SRC/src/gguf.cpp" ] || die "$SRC does not look like ggml (no src/gguf.cpp)"

JOBS=${JOBS:-2}
nice cmake -S "$SRC" -B "$OUT/cmake" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
    -DGGML_BUILD_TESTS=OFF -DGGML_BUILD_EXAMPLES=OFF -DGGML_CPU=OFF -DGGML_BACKEND_DL=OFF -DGGML_OPENMP=OFF > "$OUT/cmake.log"
nice cmake --build "$OUT/cmake" --target ggml-base -j "$JOBS" >> "$OUT/cmake.log"
lib=$(find "$OUT/cmake" -name 'libggml-base.a' | head -1)
[ -n "$lib" ] || die "no libggml-base.a after the build (see $OUT/cmake.log)"
mkdir -p "$OUT/lib" "$OUT/bin"
rm -rf "$OUT/include"
cp -r "$SRC/include" "$OUT/include"
cp "$lib" "$OUT/lib/"
# The verdict program and the bench peer, linked against it.
for p in tests/golden/gguf_check bench/ggml_peer; do
    c++ -O2 -o "$OUT/bin/$(basename "$p")" -x c "$ROOT/$p.c" -x none \
        -I"$OUT/include" "$OUT/lib/libggml-base.a" -lm -lpthread
done
# What make bench prints among its peers: cmake's "ggml version" and the commit.
commit=$(cat "$SRC/COMMIT" 2> /dev/null || git -C "$SRC" rev-parse HEAD 2> /dev/null || echo '?')
version=$(sed -n 's/^-- ggml version: *//p' "$OUT/cmake.log" | head -1)
echo "${version:-?} (commit ${commit:0:12})" > "$OUT/VERSION"
echo "build_ggml: ggml $(cat "$OUT/VERSION") in $OUT"
echo "build_ggml: use GGML_DIR=$OUT"
