#!/usr/bin/env bash
# The hidden-corpus-style GGUF check, by hand (not part of make test: it
# needs a ggml build and takes a minute):
#
#   GGML_DIR=/work/ggml-build bash tests/golden/gguf_verdicts.sh [BUILD] [N] [SEED]
#
# 1. writes N (default 300) random valid GGUF files and about 9 mutants of
#    each into a temporary folder, each with its expected strict and lenient
#    verdict and first error from the rulebook oracle (tests/golden/gguf_corpus.py,
#    gguf_writer.py, gguf_reader.py);
# 2. when $GGML_DIR/bin/gguf_check exists (bench/build_ggml.sh): ggml's own
#    verdicts on those files and on tests/gguf/*/input, every difference
#    from the expected verdicts classified by the rulebook's list of where
#    afmt's policy and gguf.cpp differ;
# 3. when BUILD/afmt-validate (default build/) knows the format gguf: afmt's
#    strict and lenient verdicts against the expected ones, the field and
#    offset of each refusal, every tensor of each valid file; and
#    BUILD/afmt info --json's verdicts and tensors alike.
# Exit status 1 when a verdict differs that no rule explains.
set -u
cd "$(dirname "$0")/../.." || exit 2
BUILD=${1:-build}
N=${2:-300}
SEED=${3:-1}
PY=python3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$PY" tests/golden/gguf_corpus.py make "$TMP/corpus" "$N" "$SEED" || exit 2
args=()
GGML_CHECK=${GGML_DIR:-/nonexistent}/bin/gguf_check
if [ -x "$GGML_CHECK" ]; then
    args+=(--ggml "$GGML_CHECK")
    echo "golden cases against ggml ($GGML_CHECK):"
    for d in tests/gguf/*/; do
        want=$(sed -n "s/^valid: yes/valid/p; s/^valid: no/invalid/p" "$d/expect")
        got=$("$GGML_CHECK" "$d/input" 2> /dev/null | cut -d' ' -f1)
        [ "$got" = OK ] && got=valid || got=invalid
        [ "$want" = "$got" ] || echo "  $(basename "$d"): ggml says $got, the case $want"
    done
    echo "  (tests/gguf/README.md lists why each of these differs)"
else
    echo "SKIP ggml: no $GGML_CHECK (build it: bash bench/build_ggml.sh SRC; set GGML_DIR)"
fi
if [ -x "$BUILD/afmt-validate" ] && "$BUILD/afmt-validate" --help 2>&1 | grep -q '\bgguf\b'; then
    args+=(--afmt "$BUILD/afmt-validate")
    [ -x "$BUILD/afmt" ] && args+=(--info "$BUILD/afmt")
else
    echo "SKIP afmt: $BUILD/afmt-validate does not know the format gguf yet"
fi
"$PY" tests/golden/gguf_corpus.py compare "$TMP/corpus" "${args[@]}"
