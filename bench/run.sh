#!/usr/bin/env bash
# afmt benchmarks against their limits (cat, memcpy, cp) and a peer (numpy).
# Usage: bash bench/run.sh [BUILD]        (make bench runs this)
# bench/README.md explains each benchmark and how to read the table.
#
# Method (shared/BENCH-NOTES.md): page cache warm, buffers reused and
# pre-touched, every benchmark alternates tool and baseline(s) round by
# round (A B A B ...), medians of RUNS rounds, ratios tool / baseline,
# output files deleted (untimed) before each write.  Whole commands are
# timed with bash's $EPOCHREALTIME around a fork+exec (no `date` process
# inside the timed span); in-process work with clock_gettime(MONOTONIC).
#
# Environment knobs:
#   BENCH_RUNS=9          rounds for the large-file benchmarks (9 or more)
#   BENCH_SMALL_RUNS=15   rounds for the fast ones (10,000 files, header-only)
#   BENCH_SIDE=16384      N: inputs f32[N,N], f32[N*N], bool[4*N*N] (N*N*4 bytes each)
#   BENCH_CONVERT_SIDE=8192  side of the matrix that `afmt convert` and numpy
#                         transpose in benchmark 5c (16384 = 1 GiB adds about
#                         2 minutes: numpy needs 6-19 s per round at that size)
#   BENCH_CSR_ROWS=1000000, BENCH_CSR_PER_ROW=100   the DAPHNE CSR input
#   BENCH_DATA=bench/data where inputs are generated (kept between runs)
#   BENCH_ONLY="11 13"    only these benchmarks (1 to 14); the table goes to
#                         bench/data/results-only.txt, not results.txt
#   BENCH_QUICK=1         a small run (16 MiB inputs, 5 rounds; under a minute)
#                         to check a change; its table goes to
#                         bench/data/results-quick.txt, not results.txt
#   BENCH_PYTHON=...      python with numpy for 5c (default: python3, then
#                         /usr/bin/python3); "none" skips the numpy peer
#   BENCH_TORCH_PYTHON=...  python with torch and safetensors for benchmark 11
#                         (default: build/venv/bin/python); "none" skips it
set -euo pipefail

START_US=${EPOCHREALTIME/[.,]/}
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
BUILD=${1:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
BENCH=$ROOT/bench
VALIDATE=$BUILD/afmt-validate
AFMT=$BUILD/afmt
LIB=$BUILD/libafmt.a

QUICK=${BENCH_QUICK:-0}
if [ "$QUICK" = 1 ]; then
    # numbers to check that a change did not break or slow a path, not to quote
    : "${BENCH_SIDE:=2048}" "${BENCH_CONVERT_SIDE:=1024}" "${BENCH_RUNS:=5}" "${BENCH_SMALL_RUNS:=5}"
    : "${BENCH_CSR_ROWS:=20000}"
fi
SIDE=${BENCH_SIDE:-16384}
CONV_SIDE=${BENCH_CONVERT_SIDE:-8192}
RUNS=${BENCH_RUNS:-9}
SMALL_RUNS=${BENCH_SMALL_RUNS:-15}
export BENCH_CSR_ROWS=${BENCH_CSR_ROWS:-1000000}
export BENCH_CSR_PER_ROW=${BENCH_CSR_PER_ROW:-100}
DATA_ROOT=${BENCH_DATA:-$BENCH/data}
case $DATA_ROOT in /*) ;; *) DATA_ROOT=$ROOT/$DATA_ROOT ;; esac

die() { echo "bench: $*" >&2; exit 1; }
say() { printf '%s\n' "$*" >&2; }

for f in "$VALIDATE" "$AFMT" "$LIB"; do
    [ -e "$f" ] || die "$f is missing: run make first"
done
# What is measured, said before anything runs: the commit (with +dirty
# when the tree has changes), and the machine's load, which is printed
# again at the end; on a shared machine a ratio means little without it.
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')
if [ "$COMMIT" != '?' ] && [ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
    COMMIT="$COMMIT+dirty"
fi
LOAD_START=$(uptime)
say "bench: commit $COMMIT; $LOAD_START"
# The binaries timed are copies in a private folder: a rebuild during the
# run (make in the same tree) cannot change them between two rounds.
TMP=$(mktemp -d "${TMPDIR:-/tmp}/afmt-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
mkdir "$TMP/bin"
cp "$VALIDATE" "$AFMT" "$LIB" "$TMP/bin/"
VALIDATE=$TMP/bin/afmt-validate AFMT=$TMP/bin/afmt LIB=$TMP/bin/$(basename "$LIB")
if [ "$QUICK" != 1 ] && { [ "$RUNS" -lt 9 ] || [ "$SMALL_RUNS" -lt 9 ]; }; then
    say "bench: note: fewer than 9 rounds (BENCH_RUNS=$RUNS, BENCH_SMALL_RUNS=$SMALL_RUNS): medians are less trustworthy"
fi

RESULTS=$BENCH/results.txt
[ "$QUICK" = 1 ] && RESULTS=$DATA_ROOT/results-quick.txt
# BENCH_ONLY="11 13": only those benchmarks (a part of the table, kept out
# of results.txt, which holds whole runs)
ONLY=${BENCH_ONLY:-}
bench_wanted() { [ -z "$ONLY" ] || [[ " $ONLY " == *" $1 "* ]]; }
[ -n "$ONLY" ] && [ "$QUICK" != 1 ] && RESULTS=$DATA_ROOT/results-only.txt

# ------------------------------------------------------------------ build
# (the bench's own programs, beside the copied binaries)
BIN=$TMP/bin
CC=${CC:-cc}
EXTRA_LIBS=""
if printf '#include <lz4.h>\n' | $CC -E - >/dev/null 2>&1; then EXTRA_LIBS="$EXTRA_LIBS -llz4"; fi
EXTRA_LIBS="$EXTRA_LIBS -ldl" # the CLI objects open libarchive on demand
BCFLAGS="-std=c11 -O2 -Wall -Wextra -Werror"
# shellcheck disable=SC2086
$CC $BCFLAGS -o "$BIN/gen_data" "$BENCH/gen_data.c"
# shellcheck disable=SC2086
$CC $BCFLAGS -o "$BIN/open_floor" "$BENCH/open_floor.c"
# shellcheck disable=SC2086
$CC $BCFLAGS -I"$ROOT/runtime" -I"$ROOT/generated" -o "$BIN/validate_inproc" \
    "$BENCH/validate_inproc.c" "$LIB" $EXTRA_LIBS -lpthread

# The simdjson peer of the safetensors header walk (rows 9f-9j): built
# when libsimdjson-dev is installed (Debian; a bench/test dependency, not a
# build one), else those rows say "skipped".
HAVE_SIMDJSON=0 SIMDJSON_VERSION=""
if [ -f /usr/include/simdjson.h ] && command -v "${CXX:-g++}" > /dev/null &&
    "${CXX:-g++}" -std=c++17 -O2 -o "$BIN/st_simdjson" "$BENCH/st_simdjson.cpp" -lsimdjson 2> "$TMP/simdjson.log"; then
    HAVE_SIMDJSON=1
    SIMDJSON_VERSION=$("$BIN/st_simdjson" --version)
else
    say "bench: simdjson peer not built (install libsimdjson-dev): rows 9f-9j skipped"
fi
# strace counts the system calls of benchmark 4 (per file); without it the
# note says so.
HAVE_STRACE=0
command -v strace > /dev/null && HAVE_STRACE=1

# ------------------------------------------------------------------ data
# One folder per set of sizes; emptied when the generator changes.
GEN_SUM=$(cksum < "$BENCH/gen_data.c" | cut -d' ' -f1)
DATA=$DATA_ROOT/n$SIDE-csr${BENCH_CSR_ROWS}x$BENCH_CSR_PER_ROW
if [ -d "$DATA" ] && [ "$(cat "$DATA/.gen" 2>/dev/null)" != "$GEN_SUM" ]; then
    rm -rf "$DATA"
fi
mkdir -p "$DATA"
echo "$GEN_SUM" > "$DATA/.gen"
OUT=$DATA_ROOT/out
rm -rf "$OUT"
mkdir -p "$OUT"
trap 'rm -rf "$TMP" "$OUT"' EXIT

# The numpy peer: the first python3 that has numpy (a pyenv python3 may
# shadow Debian's /usr/bin/python3, where python3-numpy installs), run by
# its real path so that no wrapper script is timed.
HAVE_NUMPY=0 PY=""
for py in ${BENCH_PYTHON:-python3 /usr/bin/python3}; do
    [ "$py" = none ] && break
    if PY=$("$py" -c 'import sys, numpy; print(sys.executable)' 2>/dev/null) && [ -n "$PY" ]; then
        HAVE_NUMPY=1
        break
    fi
done

g0=${EPOCHREALTIME/[.,]/}
"$BIN/gen_data" "$DATA" "$SIDE"
CONV_IN=$DATA/big.ra
if [ "$HAVE_NUMPY" = 1 ] && [ "$CONV_SIDE" != "$SIDE" ]; then
    mkdir -p "$DATA/convert-n$CONV_SIDE"
    "$BIN/gen_data" "$DATA/convert-n$CONV_SIDE" "$CONV_SIDE" ra
    CONV_IN=$DATA/convert-n$CONV_SIDE/big.ra
fi
# Freshly written inputs are still being written back: flush them now, or
# the writeback competes with the first benchmarks (a no-op when clean).
sync "$DATA"/big.* "$DATA/bool.fut" "$DATA/csr.dbdf" "$CONV_IN"
g1=${EPOCHREALTIME/[.,]/}
say "bench: inputs ready in $DATA ($(( (g1 - g0) / 1000 )) ms)"

# Every input must be valid before anything is timed.
"$VALIDATE" "$DATA/big.ra" "$DATA/big.ten" "$DATA/bool.fut" "$DATA/csr.dbdf" "$CONV_IN" >&2 \
    || die "a generated input is invalid"
(cd "$DATA/small" && for f in *; do [ "$f" = "done" ] || echo "$f"; done > "$DATA/small.list")
NSMALL=$(wc -l < "$DATA/small.list")
(cd "$DATA/small" && xargs "$VALIDATE" -q < "$DATA/small.list") || die "a small input is invalid"
# Warm the page cache.
cat "$DATA/big.ra" "$DATA/big.ten" "$DATA/bool.fut" "$DATA/csr.dbdf" "$CONV_IN" > /dev/null
(cd "$DATA/small" && xargs cat < "$DATA/small.list" > /dev/null)

# ------------------------------------------------------------------ timing
size_of() { stat -c %s "$1"; }

# time_rounds RUNS PREP CMD...: bench/time_rounds.sh
source "$BENCH/time_rounds.sh"

# inproc [--to-row-major] FORMAT FILE RUNS: sets MED/MIN/MAX for
# (validate or reorder, memcpy) and BYTES (bytes the memcpy copies).
inproc() {
    local line
    line=$("$BIN/validate_inproc" "$@") || die "validate_inproc $* failed"
    # shellcheck disable=SC2086
    set -- $line
    [ "$1" = RESULT ] || die "validate_inproc: unexpected output: $line"
    MED=("$2" "$3"); MIN=("$5" "$7"); MAX=("$6" "$8"); BYTES=$4
}

# row ID WHAT TOOL TOOL_S TOOL_RANGE BASE BASE_S BASE_RANGE BYTES NOTE
ROWS=$TMP/rows.tsv
: > "$ROWS"
row() {
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> "$ROWS"
    say "  $1 $2: $3 $4 s [$5] vs $6 $7 s [$8]"
}
range() { printf '%s-%s' "$1" "$2"; }

# convert_vs_cp ID_CP ID_SYNC WHAT IN EXT ARGS NOTE GOAL: `afmt convert IN
# OUT.EXT ARGS` (checked valid first) against cp of the same file, and
# against cp + sync FILE.  afmt convert commits its output with fsync (cli:
# afmt_sink_commit); cp does not, so "cp + sync FILE" (coreutils: fsync of
# that file) is the like-for-like baseline that the goal is about.
convert_vs_cp() {
    local id_cp=$1 id_sync=$2 what=$3 in=$4 ext=$5 args=$6 note=$7 goal=$8 prep
    # shellcheck disable=SC2086
    "$AFMT" convert "$in" "$OUT/check.$ext" $args
    "$VALIDATE" -q "$OUT/check.$ext" || die "convert output is invalid: $what"
    rm -f "$OUT/check.$ext"
    prep="rm -f '$OUT/c.$ext' '$OUT/c.cp' '$OUT/c.cps'"
    time_rounds "$RUNS" "$prep" "'$AFMT' convert '$in' '$OUT/c.$ext' $args" "cp '$in' '$OUT/c.cp'" \
        "cp '$in' '$OUT/c.cps' && sync '$OUT/c.cps'"
    eval "$prep"
    row "$id_cp" "$what" "afmt convert" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
        "cp" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" "$(size_of "$in")" "$note"
    row "$id_sync" "$what" "afmt convert" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
        "cp + sync FILE" "${MED[2]}" "$(range "${MIN[2]}" "${MAX[2]}")" "$(size_of "$in")" \
        "both outputs durable (fsync); $goal"
}

GIB_NOTE="payload $(awk -v b=$((SIDE * SIDE * 4)) 'BEGIN { printf "%.2f GiB", b / 1073741824 }')"

# peer_rounds CMD_A CMD_B: each prints "RESULT med min max"; sets MED/MIN/MAX
peer_rounds() {
    local k tag med mn mx
    : > "$TMP/pa"
    : > "$TMP/pb"
    for k in 1 2 3; do
        eval "$1" > "$TMP/line" || die "failed: $1"
        read -r tag med mn mx _ < "$TMP/line"
        [ "$tag" = RESULT ] || die "unexpected output of $1: $(cat "$TMP/line")"
        echo "$med $mn $mx" >> "$TMP/pa"
        eval "$2" > "$TMP/line" || die "failed: $2"
        read -r tag med mn mx _ < "$TMP/line"
        [ "$tag" = RESULT ] || die "unexpected output of $2: $(cat "$TMP/line")"
        echo "$med $mn $mx" >> "$TMP/pb"
    done
    MED=("$(sort -g "$TMP/pa" | sed -n 2p | cut -d' ' -f1)" "$(sort -g "$TMP/pb" | sed -n 2p | cut -d' ' -f1)")
    MIN=("$(awk 'NR == 1 || $2 < m { m = $2 } END { print m }' "$TMP/pa")" "$(awk 'NR == 1 || $2 < m { m = $2 } END { print m }' "$TMP/pb")")
    MAX=("$(awk 'NR == 1 || $3 > m { m = $3 } END { print m }' "$TMP/pa")" "$(awk 'NR == 1 || $3 > m { m = $3 } END { print m }' "$TMP/pb")")
}
PEER_RUNS=$(( RUNS / 3 < 3 ? 3 : RUNS / 3 ))

# ------------------------------------------------------------------ 1
if bench_wanted 1; then
say "bench 1: header-only validation of dense f32 ($GIB_NOTE)"
time_rounds "$SMALL_RUNS" ":" "'$VALIDATE' '$DATA/big.ra'" "cat '$DATA/big.ra'"
row 1a "validate rawarray f32[$SIDE,$SIDE]" "afmt-validate" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
    "cat >/dev/null" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" "$(size_of "$DATA/big.ra")" "whole command"
time_rounds "$SMALL_RUNS" ":" "'$VALIDATE' '$DATA/big.ten'" "cat '$DATA/big.ten'"
row 1b "validate tenbin f32[$((SIDE * SIDE))]" "afmt-validate" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
    "cat >/dev/null" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" "$(size_of "$DATA/big.ten")" "whole command"
inproc rawarray "$DATA/big.ra" "$SMALL_RUNS"
row 1c "in-process rawarray f32[$SIDE,$SIDE]" "afmt_rawarray_validate" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
    "memcpy" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" "$(size_of "$DATA/big.ra")" "mmap'd input"

fi

# ------------------------------------------------------------------ 2
if bench_wanted 2; then
NBOOL=$((4 * SIDE * SIDE))
say "bench 2: futhark bool[$NBOOL], every byte checked"
inproc futhark "$DATA/bool.fut" "$RUNS"
row 2a "in-process futhark bool[$NBOOL]" "afmt_futhark_validate" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
    "memcpy" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" "$(size_of "$DATA/bool.fut")" "0/1 scan of every byte"
time_rounds "$RUNS" ":" "'$VALIDATE' '$DATA/bool.fut'" "cat '$DATA/bool.fut'"
row 2b "validate futhark bool[$NBOOL]" "afmt-validate" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
    "cat >/dev/null" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" "$(size_of "$DATA/bool.fut")" "whole command, mmap faults"

fi

# ------------------------------------------------------------------ 3
if bench_wanted 3; then
NNZ=$((BENCH_CSR_ROWS * BENCH_CSR_PER_ROW))
say "bench 3: DAPHNE CSR f64, $NNZ nonzeros"
inproc daphne "$DATA/csr.dbdf" "$RUNS"
row 3a "in-process daphne CSR f64 nnz=$NNZ" "afmt_daphne_validate" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
    "memcpy" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" "$(size_of "$DATA/csr.dbdf")" \
    "checks $(( (BENCH_CSR_ROWS + 1 + NNZ) * 8 / 1048576 )) MiB of indices"

fi

# ------------------------------------------------------------------ 4
if bench_wanted 4; then
say "bench 4: $NSMALL small files"
pushd "$DATA/small" > /dev/null
time_rounds "$SMALL_RUNS" ":" "xargs '$VALIDATE' -q -j 1 < '$DATA/small.list'" \
    "xargs '$VALIDATE' -q -j 2 < '$DATA/small.list'" "xargs cat < '$DATA/small.list'" \
    "'$BIN/open_floor' 1 < '$DATA/small.list'" "'$BIN/open_floor' 2 < '$DATA/small.list'"
FLOOR_MED=("${MED[3]}" "${MED[4]}") FLOOR_MIN=("${MIN[3]}" "${MIN[4]}") FLOOR_MAX=("${MAX[3]}" "${MAX[4]}")
popd > /dev/null
per_file() { awk -v s="$1" -v n="$NSMALL" 'BEGIN { printf "%.1f us/file", s / n * 1e6 }'; }
# System calls per file of `afmt-validate -q -j 1` on the small files
# (strace -f -c), less those of a run on no file (start-up, exit): the
# floor is 4 (open, fstat, read, close), plus one failed open of x.meta
# per DAPHNE file (its sidecar may be there).
syscalls_per_file() {
    [ "$HAVE_STRACE" = 1 ] || { echo "syscalls/file: no strace"; return; }
    local all none
    all=$(cd "$DATA/small" && xargs strace -f -c -o "$TMP/strace.all" "$VALIDATE" -q -j 1 < "$DATA/small.list" > /dev/null 2>&1;
          awk '$NF == "total" { print $(NF-2) }' "$TMP/strace.all")
    none=$(strace -f -c -o "$TMP/strace.none" "$VALIDATE" -q -j 1 /dev/null > /dev/null 2>&1;
           awk '$NF == "total" { print $(NF-2) }' "$TMP/strace.none")
    awk -v a="$all" -v z="$none" -v n="$NSMALL" 'BEGIN { printf "%.2f syscalls/file (strace)", (a - z) / n }'
}
row 4a "$NSMALL files of ~200 B, 5 formats" "afmt-validate -q -j 1" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
    "xargs cat" "${MED[2]}" "$(range "${MIN[2]}" "${MAX[2]}")" 0 \
    "$(per_file "${MED[0]}") vs $(per_file "${MED[2]}")"
row 4b "$NSMALL files of ~200 B, 5 formats" "afmt-validate -q -j 2" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" \
    "xargs cat" "${MED[2]}" "$(range "${MIN[2]}" "${MAX[2]}")" 0 \
    "$(per_file "${MED[1]}") vs $(per_file "${MED[2]}")"
row 4c "$NSMALL files of ~200 B, 5 formats" "afmt-validate -q -j 2" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" \
    "afmt-validate -q -j 1" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" 0 \
    "parallel files: goal <= 0.6x, floor 4f; $(syscalls_per_file)"
# 4d: large files with a payload check (every bool byte), -j 2 against -j 1.
time_rounds "$RUNS" ":" "'$VALIDATE' -q -j 2 '$DATA/bool.fut' '$DATA/bool.fut' '$DATA/bool.fut' '$DATA/bool.fut'" \
    "'$VALIDATE' -q -j 1 '$DATA/bool.fut' '$DATA/bool.fut' '$DATA/bool.fut' '$DATA/bool.fut'"
row 4d "4 x futhark bool[$((4 * SIDE * SIDE))]" "afmt-validate -q -j 2" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
    "afmt-validate -q -j 1" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" $((4 * $(size_of "$DATA/bool.fut"))) \
    "parallel payload checks: goal close to 0.5x"
# 4e: what a second CPU gives on this machine at all, in the same run: a
# CPU-bound loop (awk, no system calls, no memory traffic) split over two
# processes at once against the whole loop in one.  0.5 is two free CPUs;
# a ratio near 1 means the second CPU is busy (another session's work:
# with sched_autogroup, nice does not yield to other sessions) or not a
# CPU of its own.  4c and 4d cannot do better than this row.
SPIN="awk 'BEGIN { for (i = 0; i < 1e7; i++) x += i }'"
time_rounds "$SMALL_RUNS" ":" "$SPIN & $SPIN; wait" "${SPIN/1e7/2e7}"
row 4e "CPU-bound loop split over 2 processes" "2 x awk, half each" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
    "1 x awk, whole loop" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" 0 \
    "the machine's ceiling for 4c/4d (0.5: two free CPUs)"
# 4f: the kernel's floor for 4c, from 4c's own rounds: open_floor does
# only the system calls afmt-validate must (open, fstat, pread, close) on
# the same files, in 2 processes against 1.  Where it stays above 0.5 the
# kernel's side of many small files does not scale on this machine, and
# 4c cannot beat it.
row 4f "$NSMALL files of ~200 B: system calls only" "open_floor 2 (2 procs)" "${FLOOR_MED[1]}" \
    "$(range "${FLOOR_MIN[1]}" "${FLOOR_MAX[1]}")" "open_floor 1" "${FLOOR_MED[0]}" \
    "$(range "${FLOOR_MIN[0]}" "${FLOOR_MAX[0]}")" 0 \
    "the kernel's floor for 4c: open, fstat, pread, close and nothing else"

fi

# ------------------------------------------------------------------ 5
if bench_wanted 5; then
say "bench 5: rawarray f32 (column-major) -> futhark (row-major): a transpose"
inproc --to-row-major rawarray "$DATA/big.ra" "$RUNS"
row 5a "in-process transpose f32[$SIDE,$SIDE]" "afmt_array_to_plain" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
    "memcpy" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" "$BYTES" "column- to row-major, buffers pre-touched"
# 5e-5k: the kernel for every element size and some awkward shapes, on
# arrays made in memory (column-major ROWSxCOLS -> row-major), 512 MiB each.
H=$((SIDE / 2)) Q=$((SIDE / 4))
for spec in "5e 1 u8 $SIDE $((2 * SIDE))" "5f 2 u16 $SIDE $SIDE" "5g 8 f64 $H $H" \
            "5h 16 c128 $Q $H" "5i 4 f32 $((SIDE - 1)) $((H - 1))" \
            "5j 4 f32 $((SIDE * Q)) 2" "5k 4 f32 2 $((SIDE * Q))"; do
    # shellcheck disable=SC2086
    set -- $spec
    line=$("$BIN/validate_inproc" --transpose "$2" "$4" "$5" "$RUNS") || die "validate_inproc --transpose $spec failed"
    # shellcheck disable=SC2086
    set -- $spec $line
    row "$1" "in-process transpose $3[$4,$5]" "afmt_array_to_plain" "$7" "$(range "${10}" "${11}")" \
        "memcpy" "$8" "$(range "${12}" "${13}")" "$9" "column- to row-major; goal <= 2.5x"
done
# 5b: the full-size file, afmt convert against cp.
convert_vs_cp 5b 5d "convert ra f32[$SIDE,$SIDE] -> futhark" "$DATA/big.ra" fut "--to futhark" \
    "whole command; afmt fsyncs its output" "goal <= 3x"
PREP5="rm -f '$OUT/t.fut' '$OUT/t.np'"
# 5c: numpy, on a CONV_SIDE^2 matrix (numpy's transpose is slow and its
# 1 GiB rounds vary from 6 to 19 s); its output must equal afmt's.
if [ "$HAVE_NUMPY" = 1 ]; then
    "$AFMT" convert "$CONV_IN" "$OUT/check.fut" --to futhark
    "$PY" "$BENCH/np_transpose.py" "$CONV_IN" "$OUT/check.np"
    cmp -s "$OUT/check.fut" "$OUT/check.np" || die "afmt convert and numpy disagree"
    rm -f "$OUT"/check.*
    time_rounds "$RUNS" "$PREP5" "'$AFMT' convert '$CONV_IN' '$OUT/t.fut' --to futhark" \
        "'$PY' '$BENCH/np_transpose.py' '$CONV_IN' '$OUT/t.np'"
    eval "$PREP5"
    conv_note="numpy: memmap, ascontiguousarray(a.T), tofile"
    [ "$CONV_SIDE" != "$SIDE" ] && conv_note="$conv_note; $CONV_SIDE^2 to fit the time"
    row 5c "convert ra f32[$CONV_SIDE,$CONV_SIDE] -> futhark" "afmt convert" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
        "numpy" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" "$(size_of "$CONV_IN")" "$conv_note"
else
    row 5c "convert ra f32[$CONV_SIDE,$CONV_SIDE] -> futhark" "-" "-" "-" \
        "numpy (skipped)" "-" "-" 0 "python3-numpy is not installed (apt-get install python3-numpy)"
fi

fi

# ------------------------------------------------------------------ 6
if bench_wanted 6; then
say "bench 6: convert tenbin f32[$((SIDE * SIDE))] -> rawarray (a copy)"
convert_vs_cp 6a 6b "convert tenbin f32[$((SIDE * SIDE))] -> ra" "$DATA/big.ten" ra "" \
    "whole command, no transpose" "goal <= 1.3x"
# 6c: numpy's tenbin reader and tofile, output fsync'd like afmt's; the
# outputs must be equal.
if [ "$HAVE_NUMPY" = 1 ]; then
    "$AFMT" convert "$DATA/big.ten" "$OUT/check.ra"
    "$PY" "$BENCH/np_peer.py" convert-tenbin-ra "$DATA/big.ten" "$OUT/check.np"
    cmp -s "$OUT/check.ra" "$OUT/check.np" || die "afmt convert and numpy disagree (tenbin -> rawarray)"
    rm -f "$OUT"/check.*
    PREP6N="rm -f '$OUT/c.ra' '$OUT/c.np'"
    time_rounds "$RUNS" "$PREP6N" "'$AFMT' convert '$DATA/big.ten' '$OUT/c.ra'" \
        "'$PY' '$BENCH/np_peer.py' convert-tenbin-ra '$DATA/big.ten' '$OUT/c.np'"
    eval "$PREP6N"
    row 6c "convert tenbin f32[$((SIDE * SIDE))] -> ra" "afmt convert" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
        "numpy" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" "$(size_of "$DATA/big.ten")" "numpy: tenbin reader, tofile, fsync"
fi

fi

# ------------------------------------------------------------------ 7
if bench_wanted 7; then
# Start-up: STARTS whole runs of afmt-validate on one small file against
# as many runs of /bin/true, each timed as one shell loop (the loop costs
# the same in both; its variable must not be time_rounds' i).  The goal:
# within 1 ms of /bin/true per start.
STARTS=200
ONE_SMALL=$DATA/small/$(head -1 "$DATA/small.list")
say "bench 7: start-up, $STARTS runs on one small file"
time_rounds "$SMALL_RUNS" ":" "for _start in \$(seq $STARTS); do '$VALIDATE' -q '$ONE_SMALL'; done" \
    "for _start in \$(seq $STARTS); do /bin/true; done"
row 7a "start-up: $STARTS runs on one small file" "afmt-validate -q" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
    "/bin/true" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" 0 \
    "$(awk -v a="${MED[0]}" -v b="${MED[1]}" -v n=$STARTS 'BEGIN { printf "%+.3f ms per start (goal: within 1 ms)", (a - b) / n * 1e3 }')"

fi

# ------------------------------------------------------------------ 8
# Reads into memory and writes from memory, in process, against numpy's
# peers (np.fromfile / np.tofile, and a tenbin reader and writer in the
# style of webdataset's: bench/np_peer.py) and memcpy.  Each side times
# its own rounds inside its process; the processes alternate (tool,
# numpy, tool, numpy, tool, numpy) with RUNS/3 rounds each (at least 3),
# and the median of each side's three medians is reported.
if [ "$HAVE_NUMPY" = 1 ] && { bench_wanted 8 || bench_wanted 9; }; then
    say "bench 8: reads into memory and writes from memory, against numpy"
    # validate_inproc --read prints RESULT tool base bytes tmin tmax bmin bmax;
    # reorder to "RESULT med min max" for the tool, and keep memcpy aside.
    MEMCPY_MED=()
    vi_read() { # format file -> RESULT med min max (and remembers memcpy)
        local l
        l=$("$BIN/validate_inproc" --read "$1" "$2" "$PEER_RUNS") || return 1
        # shellcheck disable=SC2086
        set -- $l
        echo "$3" >> "$TMP/memcpy8"
        echo "RESULT $2 $5 $6"
    }
    vi_write() { # format file out
        local l
        l=$("$BIN/validate_inproc" --write "$1" "$2" "$3" "$PEER_RUNS") || return 1
        # shellcheck disable=SC2086
        set -- $l
        echo "RESULT $2 $5 $6"
    }
    : > "$TMP/memcpy8"
    peer_rounds "vi_read rawarray '$DATA/big.ra'" "'$PY' '$BENCH/np_peer.py' fromfile '$DATA/big.ra' $PEER_RUNS"
    row 8a "read rawarray f32[$SIDE,$SIDE] to memory" "afmt_file_read_array" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
        "numpy np.fromfile" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" "$(size_of "$DATA/big.ra")" "in process; afmt into a caller buffer"
    READ_MED=${MED[0]} READ_RANGE=$(range "${MIN[0]}" "${MAX[0]}")
    CPY=$(sort -g "$TMP/memcpy8" | sed -n 2p)
    row 8b "read rawarray f32[$SIDE,$SIDE] to memory" "afmt_file_read_array" "$READ_MED" "$READ_RANGE" \
        "memcpy" "$CPY" "$(sort -g "$TMP/memcpy8" | sed -n '1p;$p' | paste -sd-)" "$(size_of "$DATA/big.ra")" "open+validate+pread vs copy alone"
    peer_rounds "vi_read tenbin '$DATA/big.ten'" "'$PY' '$BENCH/np_peer.py' tenbin-read '$DATA/big.ten' $PEER_RUNS"
    row 8c "read tenbin f32[$((SIDE * SIDE))] to memory" "afmt_file_read_array" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
        "numpy tenbin reader" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" "$(size_of "$DATA/big.ten")" "webdataset-style: read(), np.frombuffer"
    peer_rounds "vi_write rawarray '$DATA/big.ra' '$OUT/w.ra'" "'$PY' '$BENCH/np_peer.py' tofile '$DATA/big.ra' '$OUT/w.np' $PEER_RUNS"
    row 8d "write rawarray f32[$SIDE,$SIDE]" "afmt_rawarray_write" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
        "numpy tofile" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" "$(size_of "$DATA/big.ra")" "in process, from memory, no fsync"
    peer_rounds "vi_write tenbin '$DATA/big.ten' '$OUT/w.ten'" "'$PY' '$BENCH/np_peer.py' tenbin-write '$DATA/big.ten' '$OUT/w.np' $PEER_RUNS"
    row 8e "write tenbin f32[$((SIDE * SIDE))]" "afmt_tenbin_write" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
        "numpy tenbin writer" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" "$(size_of "$DATA/big.ten")" "in process, from memory, no fsync"
    rm -f "$OUT"/w.*

    say "bench 9: .npy and safetensors (text headers), against numpy and json.loads"
    vi_check() { # format file -> RESULT med min max of the in-process validation
        local l
        l=$("$BIN/validate_inproc" "$1" "$2" "$PEER_RUNS") || return 1
        # shellcheck disable=SC2086
        set -- $l
        echo "RESULT $2 $5 $6"
    }
    NPY=$DATA/big.npy
    [ -s "$NPY" ] || "$AFMT" convert "$DATA/big.ten" "$NPY" || die "afmt convert big.ten -> .npy failed"
    "$PY" -c 'import numpy, sys; numpy.load(sys.argv[1])' "$NPY" || die "np.load cannot read $NPY"
    peer_rounds "vi_read npy '$NPY'" "'$PY' '$BENCH/np_peer.py' npy-load '$NPY' $PEER_RUNS"
    row 9a "read .npy f32[$((SIDE * SIDE))] to memory" "afmt_file_read_array" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
        "numpy np.load" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" "$(size_of "$NPY")" "in process; afmt into a caller buffer"
    peer_rounds "vi_check npy '$NPY'" "'$PY' '$BENCH/np_peer.py' npy-mmap '$NPY' $PEER_RUNS"
    row 9b "validate .npy f32[$((SIDE * SIDE))] (no copy)" "afmt_npy_validate" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
        "np.load(mmap_mode='r')" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" "$(size_of "$NPY")" "header checked; numpy maps and reads nothing"
    for id_n in c:10 d:1000 e:10000; do
        id=9${id_n%%:*} n=${id_n#*:}
        st=$DATA/h$n.safetensors
        [ -s "$st" ] || PYTHONPATH="$ROOT/tests/golden" "$PY" -c '
import sys
from textfmt import st_file
n = int(sys.argv[2])
open(sys.argv[1], "wb").write(st_file([("layer.%05d.weight" % i, "F32", (2, 2), b"\0" * 16) for i in range(n)]))
' "$st" "$n" || die "cannot write $st"
        hdr=$(od -An -t u8 -N 8 "$st" | tr -d ' ')
        peer_rounds "vi_check safetensors '$st'" "'$PY' '$BENCH/np_peer.py' st-json '$st' $PEER_RUNS"
        row "$id" "safetensors header, $n tensors ($hdr B)" "afmt_safetensors_validate" \
            "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" "python json.loads" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" \
            "$hdr" "whole file checked (header rules, offsets); json.loads only parses"
    done
fi
if [ "$HAVE_SIMDJSON" = 1 ]; then
    # The header walk against simdjson's on-demand parser doing the same
    # walk (every entry's name, dtype, shape, offsets), in process on both
    # sides.  Names as a model's ("model.layers.3.mlp.experts.14.down_proj.weight"),
    # listed and stored in the reference's order (by name): 850,000 tensors
    # make a header of 98 MB, near the reference's 100 MB cap.
    simd_check() { # file -> RESULT med min max
        "$BIN/st_simdjson" "$1" "$PEER_RUNS"
    }
    vi_check2() {
        local l
        l=$("$BIN/validate_inproc" "$1" "$2" "$PEER_RUNS") || return 1
        # shellcheck disable=SC2086
        set -- $l
        echo "RESULT $2 $5 $6"
    }
    for id_n in f:10 g:1000 h:10000 i:200000 j:850000; do
        id=9${id_n%%:*} n=${id_n#*:}
        st=$DATA/m$n.safetensors
        [ -s "$st" ] || python3 - "$st" "$n" <<'PYGEN' || die "cannot write $st"
import struct, sys
out, n = sys.argv[1], int(sys.argv[2])
names = sorted("model.layers.%d.mlp.experts.%d.down_proj.weight" % (i // 1000, i % 1000) for i in range(n))
h = ("{" + ",".join('"%s":{"dtype":"F32","shape":[2,2],"data_offsets":[%d,%d]}' % (nm, 16 * k, 16 * k + 16)
                    for k, nm in enumerate(names)) + "}").encode()
h += b" " * ((-len(h)) % 8)
with open(out, "wb") as f:
    f.write(struct.pack("<Q", len(h)) + h + bytes(16 * n))
PYGEN
        hdr=$(od -An -t u8 -N 8 "$st" | tr -d ' ')
        peer_rounds "vi_check2 safetensors '$st'" "simd_check '$st'"
        row "$id" "safetensors header walk, $n tensors ($hdr B)" "afmt_safetensors_validate" \
            "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" "simdjson on-demand" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" \
            "$hdr" "every rule checked vs the same walk parsed; goal <= 2x"
    done
fi

# ------------------------------------------------------------------ 10
# GGUF headers against ggml and @huggingface/gguf (bench/gguf_bench.sh).
# shellcheck source=bench/gguf_bench.sh
bench_wanted 10 && source "$BENCH/gguf_bench.sh"

# ------------------------------------------------------------------ 11
# PyTorch checkpoints against torch.load and safetensors' save_file
# (bench/torch_bench.sh; torch from build/venv, else the rows are skipped).
# shellcheck source=bench/torch_bench.sh
bench_wanted 11 && source "$BENCH/torch_bench.sh"

# ------------------------------------------------------------------ 12
# The Python package afmt against safetensors, gguf-py and numpy, and
# afmt.validate in a loop against afmt-validate (bench/python_bench.sh).
# shellcheck source=bench/python_bench.sh
bench_wanted 12 && source "$BENCH/python_bench.sh"

# ------------------------------------------------------------------ 13
# FITS, NIfTI-1 and MAT-files against cfitsio, nibabel, matio and zlib
# (bench/sci_bench.sh; a row whose format or peer is missing is skipped).
# shellcheck source=bench/sci_bench.sh
bench_wanted 13 && source "$BENCH/sci_bench.sh"

# ------------------------------------------------------------------ 14
# The reference interpreter (afmt-validate --spec) against the generated
# validators on the shipped formats' largest inputs (bench/interp_bench.sh).
# shellcheck source=bench/interp_bench.sh
bench_wanted 14 && source "$BENCH/interp_bench.sh"

# ------------------------------------------------------------------ table
END_US=${EPOCHREALTIME/[.,]/}
LOAD_END=$(uptime)
TOTAL_S=$(awk -v u=$((END_US - START_US)) 'BEGIN { printf "%.0f", u / 1e6 }')
{
    echo "afmt benchmarks  $(date -u '+%Y-%m-%d %H:%M UTC')  $COMMIT"
    echo "machine: $(nproc) CPUs, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(uname -r)"
    if [ "$HAVE_NUMPY" = 1 ]; then echo "peer: numpy $("$PY" -c 'import numpy; print(numpy.__version__)') ($PY)"; fi
    if [ "$HAVE_SIMDJSON" = 1 ]; then echo "peer: simdjson $SIMDJSON_VERSION (libsimdjson-dev, on-demand API: bench/st_simdjson.cpp)"; fi
    if [ -n "${GGML_VERSION:-}" ]; then echo "peer: ggml $GGML_VERSION, gguf_init_from_file (built by bench/build_ggml.sh in $GGML_DIR)"; fi
    if [ -n "${HF_GGUF_VERSION:-}" ]; then echo "peer: @huggingface/gguf $HF_GGUF_VERSION under node $(node --version)"; fi
    if [ -n "${TORCH_VERSION:-}" ]; then echo "peer: torch $TORCH_VERSION ($TORCH_PY)"; fi
    [ "$QUICK" = 1 ] && echo "BENCH_QUICK=1: small inputs and few rounds, to check a change; not numbers to quote"
    echo "rounds: $RUNS (large), $SMALL_RUNS (fast); each round runs tool and baseline(s) in turn; medians; time in seconds"
    echo "ratio = tool median / baseline median (< 1: the tool is faster); GB/s = input bytes / median (10^9 B/s)"
    echo
    awk -F'\t' '
        function fmt_t(s) { if (s == "-") return "-"; if (s < 0.001) return sprintf("%.2f us", s * 1e6); if (s < 1) return sprintf("%.1f ms", s * 1e3); return sprintf("%.3f s", s) }
        function gbs(b, s) { if (b == 0 || s == "-" || s == 0) return "-"; v = b / s / 1e9; return v >= 1000 ? sprintf("%.0e", v) : sprintf("%.2f", v) }
        function ratio(t, b) { if (t == "-" || b == "-" || b == 0) return "-"; r = t / b; return r < 0.01 ? sprintf("%.1e", r) : sprintf("%.3f", r) }
        BEGIN { f = "%-3s %-41s %-22s %9s  %-23s %9s  %8s %8s %8s  %s\n"
                printf f, "#", "benchmark", "tool", "median", "baseline", "median", "ratio", "tool", "base", "note"
                printf f, "", "", "", "", "", "", "t/b", "GB/s", "GB/s", ""
                for (i = 0; i < 170; i++) printf "-"; printf "\n" }
        { printf f, $1, $2, $3, fmt_t($4), $6, fmt_t($7), ratio($4, $7), gbs($9, $4), gbs($9, $7), $10 }
    ' "$ROWS"
    echo
    echo "min-max of each median's samples (s):"
    awk -F'\t' '{ printf "  %-3s %-23s %-23s  %-24s %s\n", $1, $3, $5, $6, $8 }' "$ROWS"
    [ "$HAVE_NUMPY" = 1 ] || echo "note: python3-numpy is not installed, so the numpy peer of benchmark 5 was skipped"
    echo "total run time (inputs included): ${TOTAL_S} s"
    echo "load at the start: $LOAD_START"
    echo "load at the end:   $LOAD_END"
} | tee "$RESULTS"
