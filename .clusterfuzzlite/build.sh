#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build: every afmt fuzz target into $OUT, built
# with the engine's $CC, $CFLAGS and $LIB_FUZZING_ENGINE by fuzz/build.sh
# (validate_<format>, stream_<format>, roundtrip_<format>, validate,
# roundtrip, convert; each with its .dict and .options), plus a seed corpus
# per target ($OUT/<target>_seed_corpus.zip) from corpus/ (crafted/ and
# grown/ included) and the golden
# inputs.  $SRC/afmt is this repository (see Dockerfile); a project that
# vendors afmt points AFMT_DIR at its copy.
AFMT_DIR=${AFMT_DIR:-$SRC/afmt}
cd "$AFMT_DIR"
# OSS-Fuzz runners have no liblz4.so: link it statically when present.
# Warnings in fuzz/ are not fatal here (a new compiler of OSS-Fuzz's must
# not stop the build) unless the caller asks (FUZZ_WERROR=1: afmt's CI).
FUZZ_WERROR=${FUZZ_WERROR:-0} FUZZ_STATIC_LZ4=1 OUT=$OUT bash fuzz/build.sh
rm -rf "$OUT/obj"
# validate_F, roundtrip_F and stream_F share one seed corpus: zipped once
# per format (and once for the all-format targets), then copied.
zips=$(mktemp -d)
for t in $(cd "$OUT" && ls | grep -vE '\.(dict|options|zip)$'); do
    [ -x "$OUT/$t" ] || continue
    fmt=""
    case "$t" in *_*) fmt=${t#*_} ;; esac
    if [ -f "$zips/${fmt:-all}.zip" ]; then
        cp "$zips/${fmt:-all}.zip" "$OUT/${t}_seed_corpus.zip"
        continue
    fi
    tmp=$(mktemp -d)
    for f in corpus/${fmt:-*}/* corpus/grown/${fmt:-*}/* corpus/crafted/${fmt:-*}/* tests/${fmt:-*}/*/input; do
        [ -f "$f" ] || continue
        case "$f" in */README*) continue ;; esac
        cp "$f" "$tmp/${f//\//_}"
    done
    rm -f "$OUT/${t}_seed_corpus.zip"
    if command -v zip >/dev/null 2>&1; then
        (cd "$tmp" && zip -q -r "$OUT/${t}_seed_corpus.zip" .)
    else
        python3 -c 'import shutil,sys; shutil.make_archive(sys.argv[1], "zip", sys.argv[2])' \
            "$OUT/${t}_seed_corpus" "$tmp"
    fi
    rm -rf "$tmp"
    cp "$OUT/${t}_seed_corpus.zip" "$zips/${fmt:-all}.zip"
done
rm -rf "$zips"
