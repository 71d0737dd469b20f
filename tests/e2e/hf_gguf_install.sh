#!/usr/bin/env bash
# Install the independent GGUF reader @huggingface/gguf, pinned, into a
# cache folder outside the repository, and print that folder.
#
#   bash tests/e2e/hf_gguf_install.sh               -> prints DIR (DIR/node_modules/@huggingface/gguf)
#   bash tests/e2e/hf_gguf_install.sh --installed   -> prints DIR only if installed already
#                                                       (exit 1 otherwise; no registry reached)
#
# The folder is $AFMT_NPM_CACHE/hf-gguf-VERSION (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/afmt-npm/hf-gguf-VERSION); a second run
# finds it installed and reaches no registry.  Used by the end-to-end test
# tests/e2e/run_gguf_readers.sh (which installs it when node is present)
# and, when installed, by the GGUF rows of make bench.
# Exit status 1 (with the reason on stderr) when node or npm is missing or
# the install fails.
set -u
HF_GGUF_VERSION=0.4.6
CACHE=${AFMT_NPM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/afmt-npm}
DIR=$CACHE/hf-gguf-$HF_GGUF_VERSION
PKG=$DIR/node_modules/@huggingface/gguf/package.json
if [ -f "$PKG" ] && grep -q "\"version\": \"$HF_GGUF_VERSION\"" "$PKG"; then
    echo "$DIR"
    exit 0
fi
if [ "${1:-}" = --installed ]; then
    echo "hf_gguf_install: @huggingface/gguf@$HF_GGUF_VERSION is not installed in $DIR" >&2
    exit 1
fi
command -v node > /dev/null || { echo "hf_gguf_install: node is not installed" >&2; exit 1; }
command -v npm > /dev/null || { echo "hf_gguf_install: npm is not installed" >&2; exit 1; }
mkdir -p "$DIR" || exit 1
[ -f "$DIR/package.json" ] || echo '{"private": true}' > "$DIR/package.json"
if ! (cd "$DIR" && npm install --no-audit --no-fund --silent --save-exact "@huggingface/gguf@$HF_GGUF_VERSION") >&2; then
    echo "hf_gguf_install: npm install @huggingface/gguf@$HF_GGUF_VERSION into $DIR failed" >&2
    exit 1
fi
echo "$DIR"
