# shellcheck shell=bash
# Sourced by bench/run.sh and by the benchmarks that also run alone
# (bench/interp_bench.sh); needs $TMP and die.

# time_rounds RUNS PREP CMD...
#   One untimed warm-up round, then RUNS rounds; in each round every CMD
#   runs once, in the order given (A B C A B C ...), after PREP (untimed).
#   stdout of each CMD goes to /dev/null; a failing CMD stops the bench.
#   Sets MED[i] (median seconds of CMD i), MIN[i] and MAX[i].
MED=(); MIN=(); MAX=()
time_rounds() {
    local runs=$1 prep=$2; shift 2
    local -a cmds=("$@")
    local n=${#cmds[@]} i r t0 t1
    for ((i = 0; i < n; i++)); do : > "$TMP/s$i"; done
    for ((r = 0; r <= runs; r++)); do
        for ((i = 0; i < n; i++)); do
            eval "$prep"
            t0=${EPOCHREALTIME/[.,]/}
            eval "${cmds[i]}" > /dev/null || die "failed: ${cmds[i]}"
            t1=${EPOCHREALTIME/[.,]/}
            if [ "$r" -gt 0 ]; then echo $((t1 - t0)) >> "$TMP/s$i"; fi
        done
    done
    MED=(); MIN=(); MAX=()
    for ((i = 0; i < n; i++)); do
        read -r "MED[i]" "MIN[i]" "MAX[i]" < <(sort -n "$TMP/s$i" | awk '
            { a[NR] = $1 }
            END { m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
                  printf "%.6f %.6f %.6f\n", m / 1e6, a[1] / 1e6, a[NR] / 1e6 }')
    done
}
