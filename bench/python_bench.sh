# shellcheck shell=bash
# The Python package's rows of make bench (benchmark 12), sourced by
# bench/run.sh after benchmark 11: it uses run.sh's row format ($ROWS),
# say, $VALIDATE, $DATA_ROOT, $RUNS, $ROOT, $BUILD.  bench/python_bench.py
# does the timing in one Python process (build/venv: numpy, safetensors,
# gguf-py) over inputs those libraries write once into
# $DATA_ROOT/python-<MB>/; BENCH_PY_MB sets the size (1024: the 1 GB the
# issue asks for), BENCH_PY_PYTHON another interpreter ("none" skips).
PY_BENCH_PY=${BENCH_PY_PYTHON:-$ROOT/build/venv/bin/python}
PY_BENCH_MB=${BENCH_PY_MB:-1024}
if [ "$PY_BENCH_PY" != none ] && [ -x "$PY_BENCH_PY" ] &&
    make --no-print-directory -s -C "$ROOT" BUILD="$BUILD" PYTHON="$PY_BENCH_PY" python > /dev/null; then
    say "bench 12: the Python package against safetensors, gguf-py, numpy ($PY_BENCH_MB MB)"
    case $BUILD in /*) PY_BENCH_PATH=$BUILD/python ;; *) PY_BENCH_PATH=$ROOT/$BUILD/python ;; esac
    PYTHONPATH=$PY_BENCH_PATH "$PY_BENCH_PY" "$ROOT/bench/python_bench.py" \
        "$DATA_ROOT/python-$PY_BENCH_MB" "$PY_BENCH_MB" "$RUNS" "$VALIDATE" >> "$ROWS" ||
        say "bench 12: python_bench.py failed; its rows are missing"
else
    say "bench 12 skipped: no $PY_BENCH_PY, or make python failed"
fi
