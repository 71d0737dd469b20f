#!/usr/bin/env bash
# A long fuzzing campaign: every per-format target and the cross-format
# target, under both engines at once -- libFuzzer on one core, AFL++ on the
# other, one process per engine at a time, each under nice -n 19 so that it
# only takes what nobody else wants -- each engine sharing the time left
# until FUZZ_UNTIL (a `date +%s` epoch) equally among the targets.  The CPU
# time each engine got is logged (bash `time`), since an engine's wall time
# on a shared machine says little.  Everything lives in FUZZ_DIR (default build/campaign):
# corpora, crashes, logs, and the summary lines in campaign.log.
#   FUZZ_UNTIL=$(date -d 06:30 +%s) bash fuzz/campaign.sh
set -u
cd "$(dirname "$0")/.."
export FUZZ_DIR=${FUZZ_DIR:-$(pwd)/build/campaign}
export FUZZ_NICE=19
export FUZZ_JOBS=1   # one core at a time, builds included
UNTIL=${FUZZ_UNTIL:?set FUZZ_UNTIL to an epoch (date -d HH:MM +%s)}
mkdir -p "$FUZZ_DIR"
LOG=$FUZZ_DIR/campaign.log
echo "campaign start $(date -u +%FT%TZ) until $(date -u -d @"$UNTIL" +%TZ) at $(git rev-parse --short HEAD 2>/dev/null)" >> "$LOG"
FUZZ_TARGETS=none AFL_SECONDS=0 bash fuzz/run.sh >> "$LOG" 2>&1  # build once
TARGETS="convert $(cd "$FUZZ_DIR" && ls | grep -E '^(validate|roundtrip|stream)_[a-z0-9]+$' | grep -v '\.' | tr '\n' ' ')"
N=$(echo $TARGETS | wc -w)
rm -rf "$FUZZ_DIR/afl"
FUZZ_NO_BUILD=1 FUZZ_TARGETS=none AFL_TARGETS="$TARGETS" AFL_BUILD_ONLY=1 bash fuzz/run.sh >> "$LOG" 2>&1
per=$(( (UNTIL - $(date +%s)) / N )); [ "$per" -lt 10 ] && per=10

libfuzzer_loop() {
    for t in $TARGETS; do
        [ "$(date +%s)" -ge "$UNTIL" ] && break
        FUZZ_NO_BUILD=1 FUZZ_TARGETS=$t FUZZ_SECONDS=$per FUZZ_KEEP_GOING=1 AFL_SECONDS=0 \
            bash fuzz/run.sh 2>&1 | grep -E 'libfuzzer|reproduce|BUG|ERROR' >> "$LOG"
    done
}
afl_loop() {
    for t in $TARGETS; do
        [ "$(date +%s)" -ge "$UNTIL" ] && break
        FUZZ_NO_BUILD=1 FUZZ_TARGETS=none AFL_TARGETS=$t AFL_SECONDS=$per \
            bash fuzz/run.sh 2>&1 | grep -E 'afl\+\+|reproduce' >> "$LOG"
    done
}
TIMEFORMAT='%R s wall, %U s user, %S s sys'
{ time libfuzzer_loop; } 2> "$FUZZ_DIR/cpu-libfuzzer.txt" &
{ time afl_loop; } 2> "$FUZZ_DIR/cpu-afl.txt"
wait
echo "libFuzzer CPU: $(cat "$FUZZ_DIR/cpu-libfuzzer.txt")" >> "$LOG"
echo "AFL++ CPU: $(cat "$FUZZ_DIR/cpu-afl.txt")" >> "$LOG"
echo "campaign end $(date -u +%FT%TZ)" >> "$LOG"
