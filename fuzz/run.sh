#!/usr/bin/env bash
# Run afmt fuzz targets (built by fuzz/build.sh) with libFuzzer and, when
# installed, AFL++; keep what they find.  `make fuzz-smoke` (CI) and
# `make fuzz` run this; docs/FUZZING.md is the manual.
#
#   build/fuzz/corpus/<target>/     each target's grown corpus, resumed by the
#                                   next run (never deleted by this script)
#   build/fuzz/seeds/<target>/      the seeds, rebuilt each run from
#                                   corpus/<format>/, corpus/grown/<format>/,
#                                   corpus/crafted/<format>/, corpus/regressions/
#                                   and tests/<format>/*/input (read, never written)
#   build/fuzz/crashes/<target>/    crashing / leaking / hanging inputs
#   build/fuzz/afl/<target>         the AFL++ builds; build/fuzz/afl-out/<target>/
#                                   afl-fuzz's state (resumed)
#   build/fuzz/logs/<target>.log    full engine output
#
# Environment:
#   FUZZ_SECONDS=5        seconds per libFuzzer target
#   FUZZ_JOBS=N           libFuzzer targets run at once (default: the cores)
#   FUZZ_TARGETS="..."    targets (default: every target in build/fuzz)
#   FUZZ_SKIP="..."       targets left out by both engines while a finding
#                         they hit at once is open (docs/FUZZING.md, "Park
#                         an open finding"); each is named in the summary
#   AFL_SECONDS=10        seconds of afl-fuzz per AFL target (0: no AFL++)
#   AFL_TARGETS="..."     AFL++ targets (default: validate_<first format>;
#                         "all": every target fuzz/build.sh makes)
#   AFL_CPU_SECONDS=N     also stop each afl-fuzz once it (with its fork
#                         server and targets) has used N s of CPU: on a loaded
#                         machine a CPU budget, unlike AFL_SECONDS, is what
#                         the target really got
#   AFL_BUILD_ONLY=1      build the AFL++ targets, run nothing
#   FUZZ_KEEP_GOING=1     libFuzzer fork mode: fuzz on after a crash,
#                         collect every crash (still exits 1)
#   FUZZ_NO_REGRESSIONS=1 leave corpus/regressions/ out of the seeds
#   FUZZ_NO_BUILD=1       use the targets already in build/fuzz
#   FUZZ_ARGS="..."       extra libFuzzer arguments
#   FUZZ_DIR=build/fuzz   where the targets are and everything goes
#   FUZZ_NICE=19          run the engines under nice -n (campaigns)
#   AFMT_FUZZ_IGNORE="a|b" step over known, unfixed bugs (read by the targets)
# Exit: 0 nothing found, 1 a crash (inputs and reproduce commands printed),
# 2 the targets could not be built.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
FUZZ_SECONDS=${FUZZ_SECONDS:-5}
AFL_SECONDS=${AFL_SECONDS:-10}
B=${FUZZ_DIR:-$ROOT/build/fuzz}
NICE=""
[ -n "${FUZZ_NICE:-}" ] && NICE="nice -n $FUZZ_NICE"
mkdir -p "$B/logs" "$B/corpus" "$B/crashes" "$B/seeds" "$B/afl-out"
START=$(date +%s)
FAILED=0
SUMMARY=()
say() { printf '%s\n' "$*"; }

if [ "${FUZZ_NO_BUILD:-0}" != 1 ]; then
    say "building the libFuzzer targets (fuzz/build.sh) into build/fuzz/"
    if ! OUT=$B $NICE bash fuzz/build.sh > "$B/logs/build.log" 2>&1; then
        cat "$B/logs/build.log"; say "FAIL: could not build the fuzz targets"; exit 2
    fi
fi
ALL=$(cd "$B" && for f in *; do [ -f "$f" ] && [ -x "$f" ] && echo "$f"; done)
TARGETS=${FUZZ_TARGETS:-$ALL}
[ "$TARGETS" = none ] && TARGETS=""   # AFL++ only, or build only
# FUZZ_SKIP="a b": leave these targets out, under both engines (a known,
# open finding that the target hits at once; docs/FUZZING.md).
skipped() { # target -> 0 when FUZZ_SKIP names it
    local s
    for s in ${FUZZ_SKIP:-}; do [ "$s" = "$1" ] && return 0; done
    return 1
}
for s in ${FUZZ_SKIP:-}; do
    TARGETS=$(printf '%s\n' $TARGETS | grep -vx "$s" | tr '\n' ' ')
    SUMMARY+=("libfuzzer $s skipped (FUZZ_SKIP: open finding, fuzz/RESULTS.md)")
done

# make_seeds, target_format, tree_cpu_seconds: shared with fuzz/until_plateau.sh.
. fuzz/lib.sh

# ------------------------------------------------------------- libFuzzer
# run_libfuzzer TARGET: one time-box, its output in logs/TARGET.log and its
# exit status in logs/TARGET.rc (each target has its own seeds, corpus and
# crash folders, so FUZZ_JOBS of them run at once: one per core).
run_libfuzzer() {
    local t=$1 seeds corpus crashes log extra="" dict="" rc
    seeds=$(make_seeds "$t")
    corpus=$B/corpus/$t
    crashes=$B/crashes/$t
    log=$B/logs/$t.log
    [ "${FUZZ_KEEP_GOING:-0}" = 1 ] &&
        extra="-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1"
    [ -f "$B/$t.dict" ] && dict="-dict=$B/$t.dict"
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    $NICE "$B/$t" -max_total_time="$FUZZ_SECONDS" -max_len=65536 -rss_limit_mb=512 \
        -timeout=10 -print_final_stats=1 -artifact_prefix="$crashes/" $dict \
        $extra ${FUZZ_ARGS:-} "$corpus" "$seeds" > "$log" 2>&1
    rc=$?
    echo "$rc" > "$B/logs/$t.rc"
}
JOBS=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
declare -A BEFORE
for t in $TARGETS; do
    [ -x "$B/$t" ] || continue
    mkdir -p "$B/corpus/$t" "$B/crashes/$t"
    BEFORE[$t]=$(ls "$B/crashes/$t" | wc -l)
    rm -f "$B/logs/$t.rc"
    run_libfuzzer "$t" &
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
done
wait
for t in $TARGETS; do
    [ -x "$B/$t" ] || { say "no target $B/$t"; FAILED=1; continue; }
    corpus=$B/corpus/$t
    crashes=$B/crashes/$t
    log=$B/logs/$t.log
    rc=$(cat "$B/logs/$t.rc" 2>/dev/null || echo 1)
    before=${BEFORE[$t]}
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    if [ -z "$eps" ]; then # fork mode prints no final stats
        eps=$(grep -o 'exec/s:\? [0-9]*' "$log" | tail -1 | sed 's/[^0-9]//g')
        execs=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
    fi
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | sed 's/cov: //')
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | sed 's/ft: //')
    corp=$(ls "$corpus" | wc -l)
    for f in "$crashes"/slow-unit-*; do [ -f "$f" ] && rm -f "$f"; done
    ncrash=$(( $(ls "$crashes" | wc -l) - before ))
    status=ok
    if [ "$rc" -ne 0 ] || [ "$ncrash" -gt 0 ]; then
        status=CRASH; FAILED=1
        say "$t: failed (exit $rc); log: $log"
        grep -E 'afmt-fuzz BUG|^==[0-9]+==ERROR|SUMMARY:|runtime error:|^    #[0-9] ' "$log" | head -20 | sed 's/^/  | /'
        for f in $(ls -t "$crashes" | head -n "$ncrash"); do
            say "  reproduce: ${B#$ROOT/}/$t ${B#$ROOT/}/crashes/$t/$f"
        done
    fi
    SUMMARY+=("$(printf 'libfuzzer %-20s %-5s %5s s %10s execs %7s exec/s  cov %5s  ft %6s  corpus %5s  crashes %s' \
        "$t" "$status" "$FUZZ_SECONDS" "${execs:-?}" "${eps:-?}" "${cov:-?}" "${ft:-?}" "$corp" "$ncrash")")
done

# ------------------------------------------------------------- AFL++
run_afl() {
    local cc t out in rc stats n
    if [ "$AFL_SECONDS" = 0 ]; then SUMMARY+=("afl++ skipped: AFL_SECONDS=0"); return; fi
    command -v afl-fuzz >/dev/null 2>&1 || { SUMMARY+=("afl++ skipped: afl-fuzz not installed"); return; }
    cc=${AFL_CC:-}
    [ -z "$cc" ] && for c in afl-clang-fast afl-clang-lto afl-cc; do
        command -v $c >/dev/null 2>&1 && { cc=$c; break; }; done
    [ -z "$cc" ] && { SUMMARY+=("afl++ skipped: no afl-clang-fast"); return; }
    local want=${AFL_TARGETS:-$(ls "$B" | grep -m1 '^validate_')} only
    only=$want; [ "$want" = all ] && only=""
    if [ "${FUZZ_NO_BUILD:-0}" != 1 ] || [ ! -d "$B/afl" ]; then
        say "building AFL++ targets ($cc) into build/fuzz/afl/"
        if ! AFL_QUIET=1 CC=$cc CFLAGS="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
             LIB_FUZZING_ENGINE=-fsanitize=fuzzer OUT=$B/afl FUZZ_ONLY="$only" \
             $NICE bash fuzz/build.sh > "$B/logs/afl-build.log" 2>&1; then
            SUMMARY+=("afl++ skipped: $cc could not build (build/fuzz/logs/afl-build.log)"); return
        fi
    fi
    [ "${AFL_BUILD_ONLY:-0}" = 1 ] && return
    [ "$want" = all ] && want=$(cd "$B/afl" && for f in *; do [ -f "$f" ] && [ -x "$f" ] && echo "$f"; done)
    for t in $want; do
        if skipped "$t"; then
            SUMMARY+=("afl++     $t skipped (FUZZ_SKIP: open finding, fuzz/RESULTS.md)"); continue
        fi
        out=$B/afl-out/$t
        in=$(make_seeds "$t")
        [ -d "$out/default/queue" ] && in=-   # resume
        mkdir -p "$B/crashes/$t"
        AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 \
        AFL_NO_AFFINITY=1 AFL_SKIP_CRASHES=1 AFL_AUTORESUME=1 \
            timeout $((AFL_SECONDS + 60)) $NICE afl-fuzz -V "$AFL_SECONDS" -m none -t 10000 \
            $([ -f "$B/afl/$t.dict" ] && echo "-x $B/afl/$t.dict") \
            -i "$in" -o "$out" -- "$B/afl/$t" > "$B/logs/afl-$t.log" 2>&1 &
        local pid=$! cpu=0 now
        if [ -n "${AFL_CPU_SECONDS:-}" ]; then
            while kill -0 "$pid" 2>/dev/null; do
                sleep 2
                now=$(tree_cpu_seconds "$pid")   # 0 once the tree has ended
                [ "$now" -gt "$cpu" ] && cpu=$now
                [ "$cpu" -ge "$AFL_CPU_SECONDS" ] && { pkill -INT -P "$pid" 2>/dev/null; break; }
            done
        fi
        wait "$pid"; rc=$?
        stats=$out/default/fuzzer_stats
        if [ ! -f "$stats" ]; then
            SUMMARY+=("afl++ $t skipped: afl-fuzz refused to run (exit $rc, build/fuzz/logs/afl-$t.log)")
            continue
        fi
        n=0
        for f in "$out"/default/crashes/id:* "$out"/default/hangs/id:*; do
            [ -f "$f" ] || continue
            g=$B/crashes/$t/afl-$(basename "$f" | tr ':,' '__')
            [ -f "$g" ] && continue
            cp "$f" "$g"; n=$((n + 1))
            say "  reproduce: ${B#$ROOT/}/$t ${g#$ROOT/}"
        done
        [ "$n" -gt 0 ] && FAILED=1
        SUMMARY+=("$(printf 'afl++     %-20s %-5s %5s s %5s s CPU %10s execs %7s exec/s  edges %s  corpus %5s  crashes %s' \
            "$t" "$([ $n -gt 0 ] && echo CRASH || echo ok)" "$(sed -n 's/^run_time *: *//p' "$stats")" \
            "$([ -n "${AFL_CPU_SECONDS:-}" ] && echo "$cpu" || echo '?')" \
            "$(sed -n 's/^execs_done *: *//p' "$stats")" "$(sed -n 's/^execs_per_sec *: *//p' "$stats")" \
            "$(sed -n 's/^edges_found *: *//p' "$stats")" "$(sed -n 's/^corpus_count *: *//p' "$stats")" "$n")")
    done
}
run_afl

say ""
say "fuzz summary ($(( $(date +%s) - START )) s, load $(cut -d' ' -f1-3 /proc/loadavg)):"
for line in "${SUMMARY[@]}"; do say "  $line"; done
if [ "$FAILED" -ne 0 ]; then
    say "FAIL: see the reproduce commands above; add each input to corpus/regressions/ (its README.md)"
    exit 1
fi
say "OK: no crashes"
