#!/usr/bin/env bash
# The ClusterFuzzLite / OSS-Fuzz build script (.clusterfuzzlite/build.sh),
# run as OSS-Fuzz runs it for libFuzzer + ASan: clang, its CFLAGS and
# LIB_FUZZING_ENGINE, into a temporary $OUT.  Passes when every target of
# the registry (and the all-format ones) is in $OUT, runs one input, and
# has its dictionary, options and seed corpus.  Run by `make fuzz-cflite`.
#
#   CFLITE_OUT=DIR        build into DIR and keep it (default: a temporary
#                         $OUT, removed at the end).  .ci/run builds into
#                         build/fuzz, so that `FUZZ_NO_BUILD=1 make
#                         fuzz-smoke` fuzzes these very targets: one build
#                         of every target instead of two
#   CFLITE_SANITIZE=LIST  the sanitizers (default address, as OSS-Fuzz's
#                         ASan build; .ci/run: address,undefined, the
#                         union of OSS-Fuzz's ASan and UBSan builds)
#   FUZZ_WERROR=1         warnings in fuzz/ fatal (OSS-Fuzz: 0)
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
command -v clang >/dev/null || { echo "SKIP: no clang"; exit 0; }
if [ -n "${CFLITE_OUT:-}" ]; then
    mkdir -p "$CFLITE_OUT"
    OUT=$(cd "$CFLITE_OUT" && pwd)
else
    OUT=$(mktemp -d "${TMPDIR:-/tmp}/afmt-cflite.XXXXXX")
    trap 'rm -rf "$OUT"' EXIT
fi
SANITIZE=${CFLITE_SANITIZE:-address}
SAN_FLAGS="-fsanitize=$SANITIZE"
case ",$SANITIZE," in *,address,*) SAN_FLAGS="$SAN_FLAGS -fsanitize-address-use-after-scope" ;; esac
case ",$SANITIZE," in *,undefined,*) SAN_FLAGS="$SAN_FLAGS -fno-sanitize-recover=all" ;; esac
export OUT SRC=$ROOT/.. AFMT_DIR=$ROOT CC=clang CXX=clang++
export CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only $SAN_FLAGS -fsanitize=fuzzer-no-link"
export FUZZ_WERROR=${FUZZ_WERROR:-0}
export LIB_FUZZING_ENGINE="-fsanitize=fuzzer"
fail=0
if ! bash .clusterfuzzlite/build.sh > "$OUT.log" 2>&1; then
    cat "$OUT.log"; echo "FAIL .clusterfuzzlite/build.sh exited non-zero"; exit 1
fi
rm -f "$OUT.log"
formats=$(sed -n 's/^ *"format": *"\([a-z0-9_]*\)".*/\1/p' spec/*.json)
for t in validate roundtrip convert $(for f in $formats; do echo validate_$f roundtrip_$f stream_$f; done); do
    if [ -x "$OUT/$t" ] && [ -f "$OUT/$t.options" ] && [ -f "$OUT/${t}_seed_corpus.zip" ]; then
        echo "PASS cflite: $t built into \$OUT with options and seed corpus"
    else
        echo "FAIL cflite: $t missing in \$OUT (or its .options / _seed_corpus.zip)"; fail=1
    fi
done
for f in $formats; do
    if [ -f "$OUT/validate_$f.dict" ]; then echo "PASS cflite: validate_$f.dict"; else echo "FAIL cflite: no validate_$f.dict"; fail=1; fi
done
t=validate_$(echo $formats | cut -d' ' -f1)
run_dir=$(mktemp -d "${TMPDIR:-/tmp}/afmt-cflite-run.XXXXXX")
if "$OUT/$t" -runs=100 "$run_dir" >/dev/null 2>&1; then
    echo "PASS cflite: $t runs"
else
    echo "FAIL cflite: $t does not run"; fail=1
fi
rm -rf "$run_dir"
exit $fail
