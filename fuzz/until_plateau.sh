#!/usr/bin/env bash
# Fuzz each target named until its coverage stops growing, measured in the
# CPU time the engine really got (not wall time: on a shared machine a
# process may get a fraction of a core, and "nothing new for 3 minutes of
# wall time" would then be a false plateau).
#
#   fuzz/until_plateau.sh ENGINE TARGET...       ENGINE: libfuzzer or afl
#
# Every ~5 s it samples the engine's process tree (CPU seconds from
# /proc/<pid>/stat, reaped children included) and its coverage:
#   libfuzzer  cov, ft, corpus units and executions from its status lines
#              (non-fork mode, so that every new feature is printed as found)
#   afl        its queue size as it prints it (live), edges_found and
#              total_execs from plot_data (written about once a minute)
# into FUZZ_DIR/plateau/<engine>-<target>.tsv (cpu_s, execs, cov or edges,
# ft or queue size, corpus, wall_s), and stops the target at the first of:
#   plateau    the coverage pair unchanged over the last PLATEAU_WINDOW
#              CPU seconds (and at least that much CPU run)
#   cap        PLATEAU_CAP CPU seconds used: verdict "growing"
#   deadline   PLATEAU_DEADLINE (a `date +%s` epoch) reached
# When PLATEAU_DEADLINE is set, each target also stops once it has had its
# share of the wall time left (verdict "growing" unless it plateaued), so
# that every target named gets its turn: a process that gets a third of a
# core would otherwise spend three shares of wall time reaching a share of
# CPU seconds.
# A libFuzzer run that stops on a finding is restarted (resuming from the
# corpus) while its budget lasts; findings land in FUZZ_DIR/crashes/<target>/
# with a reproduce line, as fuzz/run.sh puts them.
#
# Environment:
#   FUZZ_DIR=build/fuzz      the targets (make fuzz-build; AFL++ ones in afl/)
#   PLATEAU_WINDOW=180       CPU seconds without new coverage = plateau
#   PLATEAU_CAP=900          CPU seconds at most per target
#   PLATEAU_DEADLINE=epoch   stop everything then
#   PLATEAU_ON=edges         what must stop growing: edges (default) or
#                            features (edges and hit-count buckets)
#   FUZZ_NICE=N              run the engine under nice -n N (and this
#                            session's autogroup at that nice: use setsid)
# One summary line per target goes to stdout and FUZZ_DIR/plateau/summary.txt.
# Executions are this run's: libFuzzer's final stats (every restart's,
# summed); AFL++'s totals less those of the run it resumed (a resumed
# afl-fuzz carries on counting from its old fuzzer_stats).
# Exit: 0 no findings, 1 findings (reproduce lines printed), 2 usage.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
B=${FUZZ_DIR:-$ROOT/build/fuzz}
WINDOW=${PLATEAU_WINDOW:-180}
CAP=${PLATEAU_CAP:-900}
DEADLINE=${PLATEAU_DEADLINE:-0}
ON=${PLATEAU_ON:-edges}
case "$ON" in edges|features) ;; *) echo "PLATEAU_ON: edges or features" >&2; exit 2 ;; esac
NICE=""
if [ -n "${FUZZ_NICE:-}" ]; then
    NICE="nice -n $FUZZ_NICE"
    # With autogroup scheduling (Linux's default on desktops and here), nice
    # only ranks processes within their session's group: a session that
    # builds gets as much CPU as ours whatever our nice.  Give the group the
    # same nice (it is this script's session: run it with setsid).
    [ -w /proc/self/autogroup ] && echo "$FUZZ_NICE" > /proc/self/autogroup 2>/dev/null
fi
ENGINE=${1:-}
case "$ENGINE" in libfuzzer|afl) shift ;; *)
    echo "usage: fuzz/until_plateau.sh libfuzzer|afl TARGET..." >&2; exit 2 ;; esac
[ $# -gt 0 ] || { echo "usage: fuzz/until_plateau.sh libfuzzer|afl TARGET..." >&2; exit 2; }
OUT=$B/plateau
mkdir -p "$OUT" "$B/corpus" "$B/crashes" "$B/seeds" "$B/afl-out" "$B/logs"
. fuzz/lib.sh
FOUND=0

# The newest coverage of a run, as "execs cov ft corpus" (empty before any).
lf_sample() { # log
    sed -n 's/^#\([0-9]*\).* cov: \([0-9]*\) ft: \([0-9]*\) corp: \([0-9]*\)\/.*/\1 \2 \3 \4/p' "$1" | tail -1
}
# AFL++ writes plot_data (edges_found, total_execs) only now and then (about
# every 30-60 s without its UI), which is well inside the window; it prints
# its queue size (which grows with every new edge or hit-count bucket) with
# every test case it picks, and that is kept beside them.  (Its
# output goes to a file: stdbuf -oL makes it line-buffered, so it is live.)
afl_sample() { # out dir log: total_execs edges_found queue_size queue_size
    local p=$1/default/plot_data q
    q=$(sed -n 's/.*Fuzzing test case #[0-9]* (\([0-9]*\) total.*/\1/p' "$2" | tail -1)
    [ -n "$q" ] || return 0
    # Before its first data line, plot_data has only its header: no sample.
    [ -f "$p" ] && awk -F', *' -v q="$q" '!/^#/ { e = $12; g = $13 } END { if (e != "") print e, g, q, q }' "$p"
}

# Start the engine on target t in the background; sets PID.
start_libfuzzer() { # target seeds
    local t=$1 seeds=$2 dict=""
    [ -f "$B/$t.dict" ] && dict="-dict=$B/$t.dict"
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    $NICE "$B/$t" -max_len=65536 -rss_limit_mb=512 -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$B/crashes/$t/" $dict "$B/corpus/$t" "$seeds" >> "$LOG" 2>&1 &
    PID=$!
}
start_afl() { # target seeds
    local t=$1 seeds=$2 in out=$B/afl-out/$t
    in=$seeds
    if [ -d "$out/default/queue" ]; then in=-   # resume
    else cp -n "$B/corpus/$t"/* "$seeds"/ 2>/dev/null; fi   # and libFuzzer's corpus
    AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 \
    AFL_NO_AFFINITY=1 AFL_SKIP_CRASHES=1 AFL_AUTORESUME=1 \
        $NICE stdbuf -oL afl-fuzz -m none -t 10000 $([ -f "$B/afl/$t.dict" ] && echo "-x $B/afl/$t.dict") \
        -i "$in" -o "$out" -- "$B/afl/$t" >> "$LOG" 2>&1 &
    PID=$!
}

run_target() { # target cap [wall seconds]
    local t=$1 cap=$2 wall_cap=${3:-0} seeds tsv=$OUT/$ENGINE-$t.tsv base=0 cpu=0 now s last="" \
        last_cpu=0 start why="" before n f g x base_execs=0 st
    seeds=$(make_seeds "$t")
    st=$B/afl-out/$t/default/fuzzer_stats
    mkdir -p "$B/corpus/$t" "$B/crashes/$t"
    LOG=$B/logs/plateau-$ENGINE-$t.log
    : > "$LOG"; : > "$tsv"
    before=$(ls "$B/crashes/$t" | wc -l)
    # A resumed AFL++ run counts on from here: keep only what this run adds.
    if [ "$ENGINE" = afl ] && [ -f "$st" ]; then
        base_execs=$(sed -n 's/^execs_done *: *//p' "$st"); base_execs=${base_execs:-0}
    fi
    start=$(date +%s)
    while [ -z "$why" ]; do
        if [ "$ENGINE" = libfuzzer ]; then start_libfuzzer "$t" "$seeds"; else start_afl "$t" "$seeds"; fi
        while kill -0 "$PID" 2>/dev/null; do
            sleep 5
            now=$(tree_cpu_seconds "$PID")
            [ "$now" -gt 0 ] && cpu=$((base + now))
            if [ "$ENGINE" = libfuzzer ]; then s=$(lf_sample "$LOG"); else s=$(afl_sample "$B/afl-out/$t" "$LOG"); fi
            if [ -n "$s" ]; then
                # shellcheck disable=SC2086
                set -- $s
                # (until the resumed run writes plot_data, its old last line)
                [ "$1" -ge "$base_execs" ] && x=$(($1 - base_execs)) || x=0
                s="$x $2 $3 $4"
                printf '%s\t%s\t%s\n' "$cpu" "$(echo "$s" | tr ' ' '\t')" "$(( $(date +%s) - start ))" >> "$tsv"
                # shellcheck disable=SC2086
                set -- $s
                now=$2; [ "$ON" = features ] && now="$2 $3"
                if [ "$now" != "$last" ]; then last=$now; last_cpu=$cpu; fi
                [ $((cpu - last_cpu)) -ge "$WINDOW" ] && { why=plateau; break; }
            fi
            [ "$cpu" -ge "$cap" ] && { why=cap; break; }
            [ "$wall_cap" -gt 0 ] && [ $(( $(date +%s) - start )) -ge "$wall_cap" ] && { why=deadline; break; }
            [ "$DEADLINE" -gt 0 ] && [ "$(date +%s)" -ge "$DEADLINE" ] && { why=deadline; break; }
        done
        if [ -n "$why" ]; then
            kill -INT "$PID" 2>/dev/null; sleep 3; kill -KILL "$PID" 2>/dev/null
        else
            # The engine stopped by itself: libFuzzer on a finding.  Go on
            # from the corpus while the budget lasts.
            wait "$PID"
            base=$cpu
            [ "$ENGINE" = afl ] && why="afl-fuzz exited (see $LOG)"
            [ "$cpu" -ge "$cap" ] && why=cap
        fi
    done
    wait "$PID" 2>/dev/null
    n=0
    if [ "$ENGINE" = afl ]; then
        for f in "$B/afl-out/$t"/default/crashes/id:* "$B/afl-out/$t"/default/hangs/id:*; do
            [ -f "$f" ] || continue
            g=$B/crashes/$t/afl-$(basename "$f" | tr ':,' '__')
            [ -f "$g" ] || cp "$f" "$g"
        done
    fi
    for f in "$B/crashes/$t"/slow-unit-*; do [ -f "$f" ] && rm -f "$f"; done
    n=$(( $(ls "$B/crashes/$t" | wc -l) - before ))
    if [ "$n" -gt 0 ]; then
        FOUND=1
        for f in $(ls -t "$B/crashes/$t" | head -n "$n"); do
            echo "  reproduce: $B/$t $B/crashes/$t/$f"
        done
    fi
    # The engines' own totals at exit, fresher than the last sample:
    # AFL++'s fuzzer_stats (less the run it resumed), libFuzzer's final
    # stats (it prints them when interrupted or on a finding).
    local execs="" edges=""
    if [ "$ENGINE" = afl ] && [ -f "$st" ]; then
        execs=$(sed -n 's/^execs_done *: *//p' "$st"); edges=$(sed -n 's/^edges_found *: *//p' "$st")
        [ -n "$execs" ] && execs=$((execs - base_execs))
    elif [ "$ENGINE" = libfuzzer ]; then
        execs=$(awk '/^stat::number_of_executed_units:/ { s += $2; n++ } END { if (n) print s }' "$LOG")
    fi
    verdict "$tsv" "$t" "$why" "$n" "$execs" "$edges" | tee -a "$OUT/summary.txt"
}

# One line: target, CPU, executions, exec per CPU second, coverage, corpus,
# findings, and plateau / growing over the last WINDOW CPU seconds (judged
# as the run was: on edges, or on edges and features), with the features
# found in that window beside it.  The executions shown are the engine's
# totals at exit when given (and its edges, for AFL++).
verdict() { # tsv target why findings [execs edges]
    awk -F'\t' -v t="$2" -v e="$ENGINE" -v why="$3" -v n="$4" -v w="$WINDOW" -v on="$ON" \
        -v xe="${5:-}" -v xg="${6:-}" '
        function moved(i, j) { return v[i] != v[j] || (on == "features" && f[i] != f[j]) }
        { c[NR] = $1; x[NR] = $2; v[NR] = $3; f[NR] = $4; k[NR] = $5; m = NR }
        END {
            if (m == 0) { printf "%-9s %-22s no coverage data (%s)\n", e, t, why; exit }
            if (xe != "") x[m] = xe
            if (xg != "" && xg >= v[m]) v[m] = xg
            last = 1
            for (i = 2; i <= m; i++) if (moved(i, i - 1)) last = i
            b = 1
            for (i = 1; i <= m; i++) if (c[i] <= c[m] - w) b = i
            fl = (e == "afl" ? "paths" : "ft")
            if (!moved(m, b) && c[m] - c[b] >= w)
                s = sprintf("plateau (%s): unchanged over the last %d CPU s (last new at %d of %d; %s +%d in the last %d)",
                            on, c[m] - c[last], c[last], c[m], fl, f[m] - f[b], c[m] - c[b])
            else
                s = sprintf("growing: +%d %s, +%d %s in the last %d CPU s (last new at %d of %d)%s",
                            v[m] - v[b], (e == "afl" ? "edges" : "cov"), f[m] - f[b], fl, c[m] - c[b],
                            c[last], c[m], (why == "deadline" ? ", stopped by the deadline" : ""))
            printf "%-9s %-22s %5d CPU s %11d execs %7.0f /CPU s  %s %5d  %s %6d  corpus %5d  findings %d  %s\n",
                e, t, c[m], x[m], (c[m] > 0 ? x[m] / c[m] : 0), (e == "afl" ? "edges" : "cov"), v[m], fl, f[m], k[m], n, s
        }' "$1"
}

echo "$ENGINE plateau run $(date -u +%FT%TZ): plateau on $ON, window $WINDOW CPU s, cap $CAP CPU s$([ "$DEADLINE" -gt 0 ] && echo ", deadline $(date -u -d @"$DEADLINE" +%TZ)"), nice ${FUZZ_NICE:-$(nice)}, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/summary.txt"
left=$#
for t in "$@"; do
    [ -x "$B/$t" ] || [ "$ENGINE" = afl ] || { echo "no target $B/$t (make fuzz-build)" >&2; left=$((left - 1)); continue; }
    [ "$ENGINE" = afl ] && { [ -x "$B/afl/$t" ] || { echo "no target $B/afl/$t" >&2; left=$((left - 1)); continue; }; }
    cap=$CAP share=0
    if [ "$DEADLINE" -gt 0 ]; then
        share=$(( (DEADLINE - $(date +%s)) / left ))
        [ "$share" -le 0 ] && { echo "$ENGINE $t: not run, deadline reached" | tee -a "$OUT/summary.txt"; left=$((left - 1)); continue; }
        [ "$share" -lt "$cap" ] && cap=$share
    fi
    run_target "$t" "$cap" "$share"
    left=$((left - 1))
done
echo "$ENGINE plateau run end $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/summary.txt"
exit "$FOUND"
