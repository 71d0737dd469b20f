#!/usr/bin/env bash
# A long fuzzing campaign: every per-format target and the cross-format
# target, under both engines at once -- libFuzzer on one core, AFL++ on the
# other, one process per engine at a time, each under nice -n 19 so that it
# only takes what nobody else wants -- each engine sharing the time left
# until FUZZ_UNTIL (a `date +%s` epoch) equally among the targets.  The CPU
# time each engine got is logged (bash `time`), since an engine's wall time
# on a shared machine says little.  Everything lives in FUZZ_DIR (default
# build/campaign): corpora, crashes, logs, and the summary lines in
# campaign.log.  Corpora are resumed from an earlier campaign in FUZZ_DIR,
# and seeded from corpus/ (corpus/grown/ included) and the golden inputs.
#   FUZZ_UNTIL=$(date -d 06:30 +%s) bash fuzz/campaign.sh
# One engine only, and a CPU budget rather than a share of wall time:
#   CAMPAIGN_ENGINES=afl    only AFL++ (or: libfuzzer; default both)
#   AFL_CPU_TOTAL=4200      AFL++'s CPU seconds, shared equally among the
#                           targets: each afl-fuzz stops when it has used its
#                           share (fuzz/run.sh AFL_CPU_SECONDS) or its share of
#                           the wall time left, whichever comes first, so a
#                           loaded machine still ends by FUZZ_UNTIL.
#   FUZZ_UNTIL=$(date -d 09:55 +%s) CAMPAIGN_ENGINES=afl AFL_CPU_TOTAL=4200 bash fuzz/campaign.sh
set -u
cd "$(dirname "$0")/.."
export FUZZ_DIR=${FUZZ_DIR:-$(pwd)/build/campaign}
export FUZZ_NICE=19
export FUZZ_JOBS=1   # one core at a time, builds included
UNTIL=${FUZZ_UNTIL:?set FUZZ_UNTIL to an epoch (date -d HH:MM +%s)}
ENGINES=${CAMPAIGN_ENGINES:-libfuzzer afl}
has() { case " $ENGINES " in *" $1 "*) return 0 ;; esac; return 1; }
mkdir -p "$FUZZ_DIR"
LOG=$FUZZ_DIR/campaign.log
echo "campaign start $(date -u +%FT%TZ) until $(date -u -d @"$UNTIL" +%TZ) at $(git rev-parse --short HEAD 2>/dev/null), engines: $ENGINES${AFL_CPU_TOTAL:+, AFL++ CPU budget $AFL_CPU_TOTAL s}" >> "$LOG"
# The targets: every per-format one and convert (the all-format validate and
# roundtrip repeat the per-format ones).
pick() { grep -E '^(convert|(validate|roundtrip|stream)_[a-z0-9]+)$' | tr '\n' ' '; }
if has libfuzzer; then
    FUZZ_TARGETS=none AFL_SECONDS=0 bash fuzz/run.sh >> "$LOG" 2>&1  # build once
    TARGETS=$(cd "$FUZZ_DIR" && ls | pick)
fi
if has afl; then
    rm -rf "$FUZZ_DIR/afl"
    FUZZ_NO_BUILD=1 FUZZ_TARGETS=none AFL_TARGETS=all AFL_BUILD_ONLY=1 bash fuzz/run.sh >> "$LOG" 2>&1
    [ -n "${TARGETS:-}" ] || TARGETS=$(cd "$FUZZ_DIR/afl" && ls | pick)
fi
N=$(echo $TARGETS | wc -w)
[ "$N" -gt 0 ] || { echo "campaign: no targets built (see $LOG)" >&2; exit 2; }
per=$(( (UNTIL - $(date +%s)) / N )); [ "$per" -lt 10 ] && per=10

libfuzzer_loop() {
    for t in $TARGETS; do
        [ "$(date +%s)" -ge "$UNTIL" ] && break
        FUZZ_NO_BUILD=1 FUZZ_TARGETS=$t FUZZ_SECONDS=$per FUZZ_KEEP_GOING=1 AFL_SECONDS=0 \
            bash fuzz/run.sh 2>&1 | grep -E 'libfuzzer|reproduce|BUG|ERROR' >> "$LOG"
    done
}
afl_loop() {
    local t i=0 wall cpu=""
    [ -n "${AFL_CPU_TOTAL:-}" ] && cpu=$(( AFL_CPU_TOTAL / N ))
    for t in $TARGETS; do
        [ "$(date +%s)" -ge "$UNTIL" ] && break
        wall=$per
        # With a CPU budget, a target that ends early leaves its wall time
        # to the ones after it.
        [ -n "$cpu" ] && wall=$(( (UNTIL - $(date +%s)) / (N - i) ))
        i=$((i + 1))
        FUZZ_NO_BUILD=1 FUZZ_TARGETS=none AFL_TARGETS=$t AFL_SECONDS=$wall AFL_CPU_SECONDS=$cpu \
            bash fuzz/run.sh 2>&1 | grep -E 'afl\+\+|reproduce' >> "$LOG"
    done
}
TIMEFORMAT='%R s wall, %U s user, %S s sys'
if has libfuzzer && has afl; then
    { time libfuzzer_loop; } 2> "$FUZZ_DIR/cpu-libfuzzer.txt" &
    { time afl_loop; } 2> "$FUZZ_DIR/cpu-afl.txt"
    wait
elif has libfuzzer; then
    { time libfuzzer_loop; } 2> "$FUZZ_DIR/cpu-libfuzzer.txt"
else
    { time afl_loop; } 2> "$FUZZ_DIR/cpu-afl.txt"
fi
has libfuzzer && echo "libFuzzer CPU: $(cat "$FUZZ_DIR/cpu-libfuzzer.txt")" >> "$LOG"
has afl && echo "AFL++ CPU: $(cat "$FUZZ_DIR/cpu-afl.txt")" >> "$LOG"
echo "campaign end $(date -u +%FT%TZ)" >> "$LOG"
