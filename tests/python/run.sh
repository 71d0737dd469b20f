#!/usr/bin/env bash
# The Python package's suite (tests/run.sh runs it): pytest over
# tests/python/ with the package make python builds into BUILD/python/,
# against numpy, safetensors, gguf-py and torch from build/venv (make
# deps-test; AFMT_VENV names another).  One PASS/FAIL/SKIP line per test;
# a test whose peer is not installed skips and says so.
# Usage: tests/python/run.sh [BUILD_DIR]   (from anywhere)
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/../.."
VENV=${AFMT_VENV:-build/venv}
PY=$VENV/bin/python
if [ ! -x "$PY" ] || ! "$PY" -c 'import numpy, pytest' > /dev/null 2>&1; then
    echo "SKIP python: $VENV has no numpy and pytest (make deps-test makes it)"
    exit 0
fi
if [ -n "${AFMT_SANITIZED:-}" ]; then
    # make asan: objects built with the sanitizers' runtime linked in
    # statically, which Python cannot load as is; not built for nothing
    echo "SKIP python: a sanitizer build (make asan) makes an extension Python cannot load; the plain make test runs these"
    exit 0
fi
if ! make --no-print-directory -s BUILD="$BUILD" PYTHON="$PY" python > /dev/null 2> "$BUILD/python-build.log"; then
    echo "FAIL python build: $(tail -n 3 "$BUILD/python-build.log" | tr '\n' ' ')"
    exit 1
fi
export PYTHONPATH=$BUILD/python PYTHONDONTWRITEBYTECODE=1 AFMT_BUILD=$BUILD
if ! err=$("$PY" -c 'import afmt' 2>&1); then
    # a sanitizer build (make asan) links objects Python cannot load as is
    echo "SKIP python: the extension of $BUILD does not load into $PY: $(echo "$err" | tail -n 1)"
    exit 0
fi
REPORT=$(mktemp)
trap 'rm -f "$REPORT"' EXIT
AFMT_PY_REPORT=$REPORT "$PY" -m pytest -q -p no:cacheprovider tests/python > "$REPORT.log" 2>&1
status=$?
cat "$REPORT"
if [ "$status" -ne 0 ] && ! grep -q '^FAIL ' "$REPORT"; then
    echo "FAIL python pytest: exited with status $status: $(tail -n 3 "$REPORT.log" | tr '\n' ' ')"
fi
rm -f "$REPORT.log"
[ "$status" -eq 0 ] || [ "$status" -eq 5 ]
