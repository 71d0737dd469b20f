#!/usr/bin/env bash
# The PyTorch checkpoint suite: afmt against real torch (tests/run.sh runs it).
# Usage: tests/torch/run.sh [BUILD_DIR]   (from anywhere; BUILD_DIR relative
# to the repository root, default build)
#
# Needs torch in build/venv (make deps-test; AFMT_VENV names another): else
# one SKIP line.  Then, in a temporary directory:
#  1. make_corpus.py and craft.py write the corpora (each file checked as
#     it is made); corpus/torch/'s seeds must be make_corpus.py's bytes;
#  2. check_marker.py loads every file with torch in forked children: the
#     corpora's claims are asserted (valid files load with the tensors
#     expected.tsv lists, every payload runs when loaded unsafely), what
#     torch does with the rest is reported (AFMT_TORCH_REPORT=DIR keeps the
#     report and its markdown table there);
#  3. readback.py's self-test, and verdicts.py against a stand-in
#     afmt-validate (mock_validate.py): right answers pass, wrong answers,
#     wrong arrays and a marker left behind fail;
#  4. while `afmt formats` lists no torch: SKIP, exit (main stays green
#     until the C side lands);
#  5. verdicts.py: afmt-validate --json, strict and --lenient, on every
#     file, verdicts and arrays against expected.tsv, AFMT_MARKER_DIR empty;
#  6. readback.py: torch.load(weights_only=True) reads the .pt files afmt
#     wrote and they equal their sources: AFMT_TORCH_WRITTEN=DIR names
#     them, else afmt convert writes them from readback.py --make-sources.
# One PASS/FAIL line per check; exit 1 if any failed.
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/../.."
VENV=${AFMT_VENV:-build/venv}
PY=$VENV/bin/python
if [ ! -x "$PY" ] || ! "$PY" -c 'import torch' > /dev/null 2>&1; then
    echo "SKIP torch: $VENV has no torch (make deps-test makes it)"
    exit 0
fi
PY=$(cd "$VENV/bin" && pwd)/python
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export PYTHONWARNINGS=ignore PYTHONDONTWRITEBYTECODE=1
failed=0
fail() { echo "FAIL torch $*"; failed=1; }

# step NAME COMMAND...: PASS with the command's last line, or FAIL with its end
step() {
    local name=$1
    shift
    if "$@" > "$WORK/step.log" 2>&1; then
        echo "PASS torch $name: $(tail -n 1 "$WORK/step.log")"
    else
        fail "$name: $(tail -n 3 "$WORK/step.log" | tr '\n' ' ')"
    fi
}

# 1. the corpora
step make_corpus "$PY" tests/torch/make_corpus.py "$WORK/corpus"
step craft "$PY" tests/torch/craft.py "$WORK/crafted"
[ -f "$WORK/corpus/expected.tsv" ] && [ -f "$WORK/crafted/expected.tsv" ] || exit 1
# the copies committed as fuzz seeds are make_corpus.py's bytes (corpus/torch/README.md)
changed=""
for seed in corpus/torch/*; do
    case "$seed" in */README*) continue ;; esac
    cmp -s "$seed" "$WORK/corpus/${seed##*/}" || changed="$changed ${seed##*/}"
done
if [ -z "$changed" ]; then
    echo "PASS torch corpus/torch: every seed is the file make_corpus.py writes"
else
    fail "corpus/torch: not what make_corpus.py writes now:$changed"
fi

# 2. what torch does with them (reported), and the corpora's claims (asserted)
"$PY" tests/torch/check_marker.py --unsafe --markdown "$WORK/torch-behaviour.md" \
    "$WORK/corpus" "$WORK/crafted" > "$WORK/torch-behaviour.txt" 2>&1
status=$?
grep -E '^(PASS|FAIL) ' "$WORK/torch-behaviour.txt"
[ "$status" -eq 0 ] || grep -qE '^FAIL ' "$WORK/torch-behaviour.txt" || \
    fail "check_marker: exited with status $status: $(tail -n 2 "$WORK/torch-behaviour.txt")"
[ "$status" -eq 0 ] || failed=1
if [ -n "${AFMT_TORCH_REPORT:-}" ]; then
    mkdir -p "$AFMT_TORCH_REPORT" && cp "$WORK"/torch-behaviour.* "$AFMT_TORCH_REPORT"/
fi

# 3. the harness itself: readback.py, and verdicts.py on a stand-in afmt-validate
"$PY" tests/torch/readback.py --self-test || failed=1
mkdir -p "$WORK/mock"
printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$PY" "$PWD/tests/torch/mock_validate.py" \
    > "$WORK/mock/afmt-validate"
chmod +x "$WORK/mock/afmt-validate"
if "$PY" tests/torch/verdicts.py "$WORK/mock" "$WORK/corpus" "$WORK/crafted" > "$WORK/mock.log"; then
    echo "PASS torch harness: right answers pass ($(grep -c '^PASS' "$WORK/mock.log") lines)"
else
    fail "harness: right answers fail: $(grep -m 3 '^FAIL' "$WORK/mock.log" | tr '\n' ' ')"
fi
MOCK_BREAK=x.pth:offset,views.pt:strides,tied.pt:dtype,empty.pt:count,posix_system.pt:verdict \
MOCK_TOUCH=1 "$PY" tests/torch/verdicts.py "$WORK/mock" "$WORK/corpus" "$WORK/crafted" \
    | grep '^FAIL' | sed 's/: .*//' | sort > "$WORK/mock-fail.txt"
printf '%s\n' 'FAIL torch lenient empty.pt' 'FAIL torch lenient posix_system.pt' \
    'FAIL torch lenient tied.pt' 'FAIL torch lenient views.pt' 'FAIL torch lenient x.pth' \
    'FAIL torch marker' 'FAIL torch strict empty.pt' 'FAIL torch strict posix_system.pt' \
    'FAIL torch strict tied.pt' 'FAIL torch strict views.pt' 'FAIL torch strict x.pth' \
    | sort > "$WORK/mock-want.txt"
if cmp -s "$WORK/mock-fail.txt" "$WORK/mock-want.txt"; then
    echo "PASS torch harness: wrong verdicts, arrays, offsets, strides and a marker fail"
else
    fail "harness: wrong answers gave $(tr '\n' ';' < "$WORK/mock-fail.txt")"
fi

# 4. nothing more to check until afmt knows torch
if ! "$BUILD"/afmt formats 2> /dev/null | awk 'NR > 1 { print $1 }' | grep -qx torch; then
    echo "SKIP torch: afmt has no torch format yet"
    exit "$failed"
fi

# 5. afmt's verdicts and arrays, and no payload ran
"$PY" tests/torch/verdicts.py "$BUILD" "$WORK/corpus" "$WORK/crafted" || failed=1

# 6. afmt's conversions of torch's files, read by safetensors and numpy
"$PY" tests/torch/convert_check.py "$BUILD" "$WORK/corpus" || failed=1

# 7. torch reads what afmt writes
WRITTEN=${AFMT_TORCH_WRITTEN:-}
if [ -z "$WRITTEN" ]; then
    WRITTEN=$WORK/written
    "$PY" tests/torch/readback.py --make-sources "$WRITTEN"
    for source in "$WRITTEN"/*.safetensors "$WRITTEN"/*.npy; do
        if ! "$BUILD"/afmt convert "$source" "${source%.*}.pt" > "$WORK/convert.log" 2>&1; then
            echo "SKIP torch readback: afmt convert does not write .pt yet:" \
                 "$(head -n 1 "$WORK/convert.log")"
            exit "$failed"
        fi
    done
fi
"$PY" tests/torch/readback.py "$WRITTEN" || failed=1
exit "$failed"
