#!/usr/bin/env bash
# Run every test suite and end with "N passed, N failed".
# Usage: tests/run.sh [BUILD_DIR]   (from the repository root; make test calls it)
# Each suite prints one "PASS name" or "FAIL name: why" line per check.
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/.."
export AFMT_SAMPLES=${AFMT_SAMPLES:-$(cd ../shared/samples 2>/dev/null && pwd)}
# afmt-gen is a build tool that frees little before exit: do not count that
# as a leak when it runs under the sanitizers.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
LOG=$(mktemp)
trap 'rm -f "$LOG"; rm -rf "$TMPD"' EXIT
TMPD=$(mktemp -d)

# report NAME OUT STATUS SECONDS: a suite's output into the log, what is
# not a PASS onto the terminal
report() {
    local name=$1 out=$2 status=$3 secs=$4
    echo "== $name"
    # how long each suite takes, so that CI's time budget can be kept
    # (AFMT_TEST_TIME_MIN=0: every suite's time)
    [ "$secs" -lt "${AFMT_TEST_TIME_MIN:-10}" ] || echo "   ($name took $secs s)"
    cat "$out" >> "$LOG"
    grep -v '^PASS ' "$out"
    # a suite that fails without saying which check failed still counts
    if [ "$status" -ne 0 ] && ! grep -q '^FAIL ' "$out"; then
        echo "FAIL $name: exited with status $status" | tee -a "$LOG"
    fi
}

# Suites that share nothing (their own temporary directories, the build
# only read) run side by side, AFMT_TEST_JOBS at a time (default: the
# cores): prun starts one, drain waits for them all and reports them in
# the order they were started, so the output is the same as one at a time.
# run waits for them first, then runs its suite alone: the suites that
# build, install or relink in the build directory, or measure memory.
JOBS=${AFMT_TEST_JOBS:-$(nproc 2> /dev/null || echo 1)}
PENDING=()
prun() { # name, command...
    local name=$1 id=${#PENDING[@]}
    shift
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
    (
        began=$SECONDS
        "$@" > "$TMPD/job.$id.out" 2>&1
        echo "$? $((SECONDS - began))" > "$TMPD/job.$id.status"
    ) &
    PENDING+=("$name")
}
drain() {
    local id status secs
    wait
    for id in "${!PENDING[@]}"; do
        read -r status secs < "$TMPD/job.$id.status" || { status=1; secs=0; }
        report "${PENDING[$id]}" "$TMPD/job.$id.out" "$status" "$secs"
    done
    PENDING=()
}
run() { # name, command...
    local name=$1 status began
    shift
    drain
    began=$SECONDS
    "$@" > "$TMPD/out" 2>&1
    status=$?
    report "$name" "$TMPD/out" "$status" $((SECONDS - began))
}

for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] || continue
    prun "$(basename "$t")" "$t"
done

# afmt-gen diagnostics: each bad spec gives exactly the expected messages.
echo "== spec errors"
for spec in tests/specs/bad/*.json; do
    want=${spec%.json}.expected
    got=$(ASAN_OPTIONS=detect_leaks=0 "$BUILD"/afmt-gen --check "$spec" 2>&1 >/dev/null; echo "rc=$?")
    if [ "$got" = "$(cat "$want")" ]; then
        echo "PASS spec-error $(basename "$spec")" >> "$LOG"
    else
        echo "FAIL spec-error $(basename "$spec"): got: $got" | tee -a "$LOG"
    fi
done

# afmt-gen's command line (no -o, one bad spec among good ones) and make
# regen's removal of stale files; then the feature specs (their output
# against the snapshots) and the regression specs compile with -Werror and
# their writers' files validate.
prun gen-cli bash tests/specs/run_gen_cli.sh "$BUILD"
# the interpreter refuses a spec with the checker's diagnostics, no emitter run
prun interp-check bash tests/specs/run_interp_check.sh "$BUILD"
# afmt-gen's work grows linearly with the spec (counted, not timed)
prun gen-linear bash tests/specs/linear.sh "$BUILD"
prun specs bash tests/specs/run_specs.sh "$BUILD"

# The shipped specs check cleanly.
if ASAN_OPTIONS=detect_leaks=0 "$BUILD"/afmt-gen --check spec/*.json; then
    echo "PASS afmt-gen --check spec/*.json" >> "$LOG"
else
    echo "FAIL afmt-gen --check spec/*.json" | tee -a "$LOG"
fi

# make fuzz-planted's bug still has its check to go into (fuzz/plant.sh):
# a change to the generated code that moves the check away fails here, at
# once, rather than in CI's next fuzz-planted.
echo "== fuzz plant fits"
if bash fuzz/plant.sh --check > "$TMPD/plant.log" 2>&1; then
    echo "PASS fuzz/plant.sh --check: the planted bug fits generated/" >> "$LOG"
else
    echo "FAIL fuzz/plant.sh --check: $(cat "$TMPD/plant.log")" | tee -a "$LOG"
fi

# A format described only in JSON works with no C change; a read-only one
# (tests/specs/readonly) validates and reads, and its writer refuses; one
# of a byte order chosen at run time, structs, vars, unique keys, block
# types and a directory (tests/specs/directory) gives the verdicts and views
# its spec says, for files in both byte orders.
# afmt-gen -o makes the directory (and its parents).
# The test formats written from spec/LANGUAGE.md alone (tests/specs/NAME/
# with gen.py and expected.tsv: tests/specs/run_specs.sh checks their
# verdicts) join the agreement test below.
echo "== new format from JSON alone"
TEST_FORMATS=$(for d in tests/specs/*/; do [ -f "$d/gen.py" ] && [ -f "$d/expected.tsv" ] && ls "$d"*.json; done)
# shellcheck disable=SC2086 # TEST_FORMATS is a list of paths without spaces
if ASAN_OPTIONS=detect_leaks=0 "$BUILD"/afmt-gen -o "$TMPD/gen/deeper" spec/*.json tests/specs/newformat/toyfmt.json tests/specs/newformat/farfmt.json \
       tests/specs/readonly/rofmt.json tests/specs/directory/dirfmt.json tests/specs/negate/negate.json \
       tests/specs/features/*.json $TEST_FORMATS 2> "$TMPD/cc.log"; then
    # The runtime, the registry and these formats, compiled once (one
    # compile per core) for the four programs below: compiling them into
    # each program, one file after another, took a minute of every run.
    mkdir -p "$TMPD/obj"
    # shellcheck disable=SC2016 # $0, $1: the inner shell's
    if printf '%s\n' runtime/*/*.c registry/*.c "$TMPD"/gen/deeper/*.c |
           xargs -P "$JOBS" -n 1 sh -c '${CC:-cc} -std=c11 -pedantic -Wall -Wextra -Werror ${TEST_CFLAGS:-} \
               -Iruntime -I"$0" -c "$1" -o "$0/../../obj/$(echo "$1" | tr / _).o"' "$TMPD/gen/deeper" \
               2> "$TMPD/cc.log"; then
        DEEPER_OBJ=$(ls "$TMPD"/obj/*.o)
    else
        DEEPER_OBJ=""
        echo "FAIL newformat: the runtime and the formats do not compile: $(head -5 "$TMPD/cc.log")" | tee -a "$LOG"
    fi
    for d in newformat readonly directory; do
        [ -n "$DEEPER_OBJ" ] || break
        # shellcheck disable=SC2086 # lists of paths without spaces
        if ${CC:-cc} -std=c11 -pedantic -Wall -Wextra -Werror ${TEST_CFLAGS:-} \
               -Iruntime -I"$TMPD/gen/deeper" -Itests/unit -o "$TMPD/$d" tests/specs/$d/driver.c \
               $DEEPER_OBJ ${TEST_LIBS:-} -lm 2> "$TMPD/cc.log"; then
            prun $d "$TMPD/$d"
        else
            echo "FAIL $d: could not compile: $(head -5 "$TMPD/cc.log")" | tee -a "$LOG"
        fi
    done
    # The reference interpreter agrees with the generated code of these
    # formats too (the feature specs: one per construct; their writers'
    # files and mutants, and the files of tests/specs/): the agreement test
    # linked with this registry.
    # shellcheck disable=SC2046,SC2086 # lists of paths without spaces
    if [ -n "$DEEPER_OBJ" ] && ${CC:-cc} -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Wall -Wextra -Werror -Wno-unused-function \
           ${TEST_CFLAGS:-} -Iruntime -Igen -Iinterp -I"$TMPD/gen/deeper" -Itests/unit -o "$TMPD/interp_agree" \
           tests/unit/test_interp_agree.c interp/*.c $(ls gen/*.c | grep -v gen/main.c) generated/gen/expr_lexer.c \
           $DEEPER_OBJ ${TEST_LIBS:-} -ljansson -lm 2> "$TMPD/cc.log"; then
        prun interp-agree-specs bash -c "set -o pipefail; ASAN_OPTIONS=detect_leaks=0 '$TMPD/interp_agree' tests/specs | sed 's/^PASS /PASS specs: /'"
    else
        echo "FAIL interp-agree-specs: could not compile: $(head -5 "$TMPD/cc.log")" | tee -a "$LOG"
    fi
else
    echo "FAIL newformat: could not generate: $(head -5 "$TMPD/cc.log")" | tee -a "$LOG"
fi

# Vendoring as docs/VENDORING.md says (also `make vendor-test`).  Its
# builds take the document's flags, never ours: under make asan nothing of
# it would be sanitized, so it runs once, in the plain build.
if [ -z "${AFMT_SANITIZED:-}" ]; then
    prun vendor bash tests/vendor/run_vendor.sh "$BUILD"
    # make vendor: one format with only the runtime files it uses
    prun vendor-parts bash tests/vendor/run_vendor_parts.sh "$BUILD"
else
    echo "SKIP vendor: its builds use docs/VENDORING.md's flags, no sanitizer: the plain make test runs it"
fi

if [ -f tests/e2e/run_e2e.sh ]; then
    prun e2e bash tests/e2e/run_e2e.sh "$BUILD"
fi
prun identify bash tests/e2e/run_identify.sh "$BUILD"
prun model-sets bash tests/e2e/run_model_sets.sh "$BUILD"
prun torch-cli bash tests/e2e/run_torch_cli.sh "$BUILD"
if [ -f tests/e2e/run_cli_tools.sh ]; then
    prun cli-tools bash tests/e2e/run_cli_tools.sh "$BUILD"
fi
prun usage bash tests/e2e/run_usage.sh "$BUILD"
prun spec-option bash tests/e2e/run_spec.sh "$BUILD"
prun help-man python3 tests/e2e/help_man.py "$BUILD"
# every link to a section of the same Markdown file names one
# shellcheck disable=SC2046 # file names without spaces
prun doc-anchors python3 tests/docs/anchors.py $(git ls-files '*.md' 2> /dev/null || ls spec/*.md docs/*.md)
# every example of every --help and man page, run as written
prun examples python3 tests/e2e/examples.py "$BUILD"
# afmt info on text headers: length field, each entry's values, offsets
prun info-texthdr python3 tests/e2e/info_texthdr.py "$BUILD"
if [ -f tests/e2e/run_sidecar.sh ]; then
    prun sidecar bash tests/e2e/run_sidecar.sh "$BUILD"
fi
if [ -f tests/e2e/run_convert_large.sh ]; then
    prun convert-large bash tests/e2e/run_convert_large.sh "$BUILD"
fi
if [ -f tests/e2e/run_outputs.sh ]; then
    prun outputs bash tests/e2e/run_outputs.sh "$BUILD"
fi
prun scale bash tests/e2e/run_scale.sh "$BUILD"
# under faults and hostile names (issue 35): inputs cut short, signals,
# ENOSPC, /dev/full, ulimit -v, names that could forge a line
prun faults bash tests/faults/run.sh "$BUILD"
prun sarif python3 tests/e2e/sarif_e2e.py "$BUILD"
prun pre-commit bash tests/e2e/run_precommit.sh "$BUILD"
prun remote bash tests/e2e/run_remote.sh "$BUILD"
if [ -f tests/e2e/run_casts.sh ]; then
    prun casts bash tests/e2e/run_casts.sh "$BUILD"
fi
# one naming rule for unnamed arrays, npz members' names, casts by class
# and by name (issue 36, point 4)
prun names bash tests/e2e/run_names.sh "$BUILD"
prun transforms bash tests/e2e/run_transforms.sh "$BUILD"
prun spec-size python3 tests/specs/spec_size.py
# GGUF read back by independent readers (python; llama.cpp's gguf-py from build/venv)
prun gguf-readers bash tests/e2e/run_gguf_readers.sh "$BUILD"
# .npy and safetensors against numpy (python3-numpy) and an independent writer
NUMPY_PY=""
for py in python3 /usr/bin/python3; do
    if "$py" -c 'import numpy' 2> /dev/null; then NUMPY_PY=$py; break; fi
done
if [ -n "$NUMPY_PY" ]; then
    prun textfmt "$NUMPY_PY" tests/e2e/textfmt_e2e.py "$BUILD"
    prun npz "$NUMPY_PY" tests/e2e/npz_e2e.py "$BUILD"
else
    echo "FAIL textfmt: no python3 with numpy (make deps-test installs python3-numpy)" | tee -a "$LOG"
fi
# PyTorch checkpoints against real torch (build/venv from make deps-test):
# corpora made by torch and crafted, torch's own behaviour, afmt's verdicts.
prun torch bash tests/torch/run.sh "$BUILD"
# NIfTI-1 against nibabel (build/venv): written by afmt, read by nibabel and back
prun nifti1-nibabel bash tests/nifti1/run_nibabel.sh "$BUILD"
prun fits-astropy bash tests/fits/run_astropy.sh "$BUILD"
prun mat5-scipy bash tests/mat5/run_scipy.sh "$BUILD"
# `pip install .` from what a clone holds, into a fresh venv (its own
# copy of the tree, its own build: it only reads $BUILD's afmt-validate)
prun python-install bash tests/python/install.sh "$BUILD"

# What libafmt.so exports against the headers that declare it.
prun exports bash tests/abi/run_exports.sh "$BUILD"
# The CLI built with only the public headers visible.
prun cli-public bash tests/abi/run_cli_public.sh

# From here on, one suite at a time (run drains the pool first): they
# relink or build in $BUILD (extra-specs, tutorial, python), install,
# measure memory, or time what they see (progress on a terminal; Dask's
# local cluster takes every core).
run progress python3 tests/e2e/progress.py "$BUILD"
# docs/AT-SCALE.md's Dask script on a local cluster (Dask in build/venv)
run at-scale-dask bash tests/e2e/run_at_scale_dask.sh "$BUILD"
if [ -f tests/e2e/run_memory.sh ] && [ -z "${AFMT_SKIP_MEMORY:-}" ]; then
    run memory bash tests/e2e/run_memory.sh "$BUILD"
fi

# make install / uninstall and pkg-config (tests/install), then
# make EXTRA_SPECS=DIR (tests/extra): last, as it relinks the tools and
# gives the standard ones back at its end.
run install bash tests/install/run_install.sh "$BUILD"
# examples/build-systems: a format of one's own built by CMake
# (afmt_generate) and meson against these sources.  Their builds use
# CMake's and meson's default flags, never the sanitizers', so under make
# asan it would check the same as the plain make test, which runs it.
if [ -z "${AFMT_SANITIZED:-}" ]; then
    run build-systems bash tests/build-systems/run.sh "$BUILD"
else
    echo "SKIP build-systems: its builds use CMake's and meson's flags, no sanitizer: the plain make test runs it"
fi
run extra-specs bash tests/extra/run_extra_specs.sh "$BUILD"
# docs/TUTORIAL.md as a reader follows it: a plain make in build/, so only
# for the standard build (under make asan it would build build/ whole).
if [ "$BUILD" = build ]; then
    run tutorial bash tests/tutorial/run_tutorial.sh
fi
# The Python package (issue 34): afmt.validate/open/load/save/convert
# against afmt-validate and numpy, safetensors, gguf-py, torch (build/venv)
run python bash tests/python/run.sh "$BUILD"

drain
passed=$(grep -c '^PASS ' "$LOG")
failed=$(grep -c '^FAIL ' "$LOG")
echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
