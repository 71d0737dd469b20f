#!/usr/bin/env bash
# Executions per second of fuzz targets, as fuzz/RESULTS.md reports them:
# each target runs SPEED_SECONDS (20) from its format's seeds
# (corpus/<format>/ and tests/<format>/*/input) into a fresh, empty corpus
# folder under $TMPDIR, under libFuzzer + ASan + UBSan as fuzz/build.sh
# builds it, with no dictionary and libFuzzer's default -max_len.  Prints
# per target: executions, exec/s (libFuzzer's, wall clock), the CPU seconds
# the process got, executions per CPU second, and the load average before
# and after (the machine may be shared: exec/s falls with load, exec per
# CPU second much less).
# SPEED_RUNS=N runs N inputs instead (libFuzzer -runs=N): the same work
# whatever the load, so exec per CPU second compares runs side by side.
# SPEED_SEEDS_AS_CORPUS=1 gives the seeds folder as the only corpus, so new
# inputs are written beside the seeds (`target -max_total_time=20 seeds/`),
# as a quick check by hand does; TMPDIR says on which file system (the
# kernel's cost of creating those files differs: ext4 vs tmpfs).
#   bash fuzz/speed.sh [target...]     (default: every per-format target)
set -u
cd "$(dirname "$0")/.."
B=build/fuzz
T=${SPEED_SECONDS:-20}
targets=${*:-$(cd "$B" && ls | grep -E '^(validate|roundtrip|stream)_[a-z0-9]+$')}
printf '%-20s %10s %8s %7s %10s  %s\n' target execs exec/s cpu-s exec/cpu-s load
for t in $targets; do
    f=${t#*_}
    d=$(mktemp -d "${TMPDIR:-/tmp}/afmt-speed.XXXXXX")
    mkdir "$d/corpus" "$d/seeds"
    cp corpus/"$f"/* "$d/seeds/" 2>/dev/null
    for g in tests/"$f"/*/input; do [ -f "$g" ] && { n=${g#tests/}; cp "$g" "$d/seeds/${n//\//_}"; }; done
    l0=$(cut -d' ' -f1 /proc/loadavg)
    budget="-max_total_time=$T"
    [ -n "${SPEED_RUNS:-}" ] && budget="-runs=$SPEED_RUNS -seed=1"
    dirs="$d/corpus $d/seeds"
    [ "${SPEED_SEEDS_AS_CORPUS:-0}" = 1 ] && dirs="$d/seeds"
    # shellcheck disable=SC2086
    /usr/bin/time -f "%U %S" -o "$d/time" "$B/$t" $budget -print_final_stats=1 -artifact_prefix="$d/" \
        $dirs > "$d/log" 2>&1
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$d/log")
    eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$d/log")
    cpu=$(awk '{printf "%.1f", $1 + $2}' "$d/time")
    per=$(awk -v e="${execs:-0}" -v c="$cpu" 'BEGIN { printf "%d", (c > 0) ? (e / c) : 0 }')
    printf '%-20s %10s %8s %7s %10s  %s-%s\n' "$t" "${execs:-?}" "${eps:-?}" "$cpu" "$per" \
        "$l0" "$(cut -d' ' -f1 /proc/loadavg)"
    rm -rf "$d"
done
