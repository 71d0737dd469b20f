#!/usr/bin/env bash
# GGUF files read back by independent readers: the python reader of
# tests/golden/gguf_reader.py and llama.cpp's gguf-py (`gguf` from PyPI,
# in build/venv: make deps-test; AFMT_VENV names another venv), through
# tests/e2e/gguf_py_read.py.  tests/e2e/gguf_readers.py says what is
# checked: the golden valid files by both readers always, and files afmt
# writes (afmt random --to gguf, afmt convert .npy/.safetensors -> .gguf).
# Without gguf-py the second reader is skipped with a SKIP line saying why.
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
VENV_PY=${AFMT_VENV:-build/venv}/bin/python
if [ ! -x "$VENV_PY" ]; then
    echo "SKIP gguf-readers gguf-py: no $VENV_PY (make deps-test makes build/venv with gguf from PyPI)"
    VENV_PY=""
elif ! "$VENV_PY" -c 'import gguf' 2> /dev/null; then
    echo "SKIP gguf-readers gguf-py: $VENV_PY cannot import gguf (make deps-test installs it)"
    VENV_PY=""
fi
"$PY" tests/e2e/gguf_readers.py "$BUILD" "$VENV_PY"
