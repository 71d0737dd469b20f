#!/usr/bin/env bash
# Has a target reached a coverage plateau?  Runs each target named under
# libFuzzer (fuzz/run.sh: fork mode, its dictionary, resuming from and
# growing its kept corpus FUZZ_DIR/corpus/<target>/) for PLATEAU_SECONDS,
# under nice -n 19, then reads the coverage the engine printed at the end of
# every job (executions, cov, ft, corpus, wall seconds) into
# FUZZ_DIR/plateau/<target>.tsv, and says whether coverage changed in the
# last PLATEAU_WINDOW seconds of the run:
#   plateau    cov and ft unchanged over the last PLATEAU_WINDOW s
#   growing    new features in that window (how many, and when the last came)
# The CPU time each target got (bash `time`, fork-mode jobs included) is
# printed beside its wall time: on a shared machine a nice-19 run gets only
# what is idle.  One summary line per target in FUZZ_DIR/plateau/summary.txt.
#   PLATEAU_SECONDS=600 PLATEAU_WINDOW=180 bash fuzz/plateau.sh validate_futhark convert
#   PLATEAU_JOBS=2      targets run side by side (default 1)
#   FUZZ_DIR            as fuzz/run.sh (default build/fuzz); the targets must
#                       be built there (make fuzz-build)
set -u
cd "$(dirname "$0")/.."
export FUZZ_DIR=${FUZZ_DIR:-$(pwd)/build/fuzz}
SECS=${PLATEAU_SECONDS:-600}
WINDOW=${PLATEAU_WINDOW:-180}
JOBS=${PLATEAU_JOBS:-1}
TARGETS=${*:?usage: fuzz/plateau.sh TARGET...}
OUT=$FUZZ_DIR/plateau
mkdir -p "$OUT"

# The coverage over time of one fork-mode log, as tab-separated
# seconds, executions, cov, ft, corpus.
series() { # log
    sed -n 's/^#\([0-9]*\): cov: \([0-9]*\) ft: \([0-9]*\) corp: \([0-9]*\) .* time: \([0-9]*\)s.*/\5\t\1\t\2\t\3\t\4/p' "$1"
}

# Plateau verdict of a series: the last point against the last one at or
# before (end - WINDOW).
verdict() { # tsv
    awk -F'\t' -v w="$WINDOW" '
        { t[NR] = $1; c[NR] = $3; f[NR] = $4; n = NR }
        END {
            if (n == 0) { print "no data"; exit }
            end = t[n]; b = 0
            for (i = 1; i <= n; i++) if (t[i] <= end - w) b = i
            last = 1
            for (i = 2; i <= n; i++) if (c[i] != c[i - 1] || f[i] != f[i - 1]) last = i
            if (b == 0) { printf "too short (%d s of data, window %d s)\n", end, w; exit }
            if (c[n] == c[b] && f[n] == f[b])
                printf "plateau: cov %d ft %d unchanged over the last %d s (last new feature at %d s of %d)\n", c[n], f[n], end - t[b], t[last], end
            else
                printf "growing: +%d cov, +%d ft in the last %d s (last new feature at %d s of %d)\n", c[n] - c[b], f[n] - f[b], end - t[b], t[last], end
        }' "$1"
}

run_one() { # target
    local t=$1 cpu
    cpu=$( { TIMEFORMAT='%U %S'; time FUZZ_NO_BUILD=1 FUZZ_TARGETS=$t FUZZ_SECONDS=$SECS \
        FUZZ_KEEP_GOING=1 FUZZ_NICE=19 AFL_SECONDS=0 bash fuzz/run.sh > "$OUT/$t.run" 2>&1; } 2>&1 )
    series "$FUZZ_DIR/logs/$t.log" > "$OUT/$t.tsv"
    cp "$FUZZ_DIR/logs/$t.log" "$OUT/$t.log"
    awk -F'\t' -v t="$t" -v s="$SECS" -v cpu="$cpu" -v v="$(verdict "$OUT/$t.tsv")" \
        -v crash="$(grep -c 'reproduce:' "$OUT/$t.run")" '
        { e = $2; c = $3; f = $4; k = $5 }
        END { split(cpu, u, " ");
              printf "%-22s %5d s wall %6.0f s CPU %11d execs  cov %5d  ft %6d  corpus %5d  crashes %d  %s\n",
                     t, s, u[1] + u[2], e, c, f, k, crash, v }' "$OUT/$t.tsv" | tee -a "$OUT/summary.txt"
}

echo "plateau run $(date -u +%FT%TZ): $SECS s per target, window $WINDOW s, $JOBS at a time, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/summary.txt"
running=0
for t in $TARGETS; do
    [ -x "$FUZZ_DIR/$t" ] || { echo "plateau: no target $FUZZ_DIR/$t (make fuzz-build)" >&2; continue; }
    run_one "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$JOBS" ]; then wait -n; running=$((running - 1)); fi
done
wait
echo "plateau run end $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/summary.txt"
