#!/usr/bin/env bash
# GGUF files read back by independent readers: the python reader of
# tests/golden/gguf_reader.py and @huggingface/gguf from npm (pinned,
# installed into a cache folder outside the repository by
# tests/e2e/hf_gguf_install.sh).  tests/e2e/gguf_readers.py says what is
# checked: the golden valid files by both readers always, and files afmt
# writes (afmt random --to gguf, afmt convert .npy/.safetensors -> .gguf)
# once afmt can write GGUF.  Without node, or when the install fails, the
# npm reader is skipped with a SKIP line saying why.
# Usage: bash tests/e2e/run_gguf_readers.sh [BUILD]
set -u
cd "$(dirname "$0")/../.." || exit 2
BUILD=${1:-build}
# a python3 with numpy (Debian's python3-numpy) when there is one: the .npy
# sources of the conversions are written with it
PY=""
for py in python3 /usr/bin/python3; do
    if "$py" -c 'import numpy' 2> /dev/null; then PY=$py; break; fi
done
[ -n "$PY" ] || PY=python3
HF_DIR=""
if ! command -v node > /dev/null; then
    echo "SKIP gguf-readers @huggingface/gguf: node is not installed (apt-get install nodejs npm)"
elif [ "$(node -p 'process.versions.node.split(".")[0]' 2> /dev/null || echo 0)" -lt 20 ]; then
    echo "SKIP gguf-readers @huggingface/gguf: it needs node >= 20, this is node $(node --version 2> /dev/null)"
elif ! HF_DIR=$(bash tests/e2e/hf_gguf_install.sh 2> "${TMPDIR:-/tmp}/hf_gguf_install.$$"); then
    echo "SKIP gguf-readers @huggingface/gguf: $(tail -1 "${TMPDIR:-/tmp}/hf_gguf_install.$$")"
    HF_DIR=""
fi
rm -f "${TMPDIR:-/tmp}/hf_gguf_install.$$"
"$PY" tests/e2e/gguf_readers.py "$BUILD" "$HF_DIR"
