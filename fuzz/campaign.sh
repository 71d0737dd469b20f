#!/usr/bin/env bash
# A long fuzzing campaign on one core: every per-format target and the
# cross-format target, libFuzzer first, then AFL++, one process at a time
# under nice -n 19, sharing the time left until FUZZ_UNTIL (a `date +%s`
# epoch) equally.  Everything lives in FUZZ_DIR (default build/campaign):
# corpora, crashes, logs, and the summary lines in campaign.log.
#   FUZZ_UNTIL=$(date -d 03:00 +%s) bash fuzz/campaign.sh
set -u
cd "$(dirname "$0")/.."
export FUZZ_DIR=${FUZZ_DIR:-$(pwd)/build/campaign}
export FUZZ_NICE=19
export FUZZ_JOBS=1   # one core at a time, builds included
UNTIL=${FUZZ_UNTIL:?set FUZZ_UNTIL to an epoch (date -d HH:MM +%s)}
mkdir -p "$FUZZ_DIR"
LOG=$FUZZ_DIR/campaign.log
echo "campaign start $(date -u +%FT%TZ) until $(date -u -d @"$UNTIL" +%TZ)" >> "$LOG"
FUZZ_TARGETS=none AFL_SECONDS=0 bash fuzz/run.sh >> "$LOG" 2>&1  # build once
TARGETS="convert $(cd "$FUZZ_DIR" && ls | grep -E '^(validate|roundtrip|stream)_[a-z0-9]+$' | grep -v '\.' | tr '\n' ' ')"
N=$(echo $TARGETS | wc -w)
# libFuzzer: half of the time; AFL++: the other half.
left=$(( (UNTIL - $(date +%s)) / 2 ))
per=$(( left / N )); [ "$per" -lt 10 ] && per=10
for t in $TARGETS; do
    FUZZ_NO_BUILD=1 FUZZ_TARGETS=$t FUZZ_SECONDS=$per FUZZ_KEEP_GOING=1 AFL_SECONDS=0 \
        bash fuzz/run.sh 2>&1 | grep -E 'libfuzzer|reproduce|BUG|ERROR' >> "$LOG"
done
# AFL++: build every target once, then share what is left.
rm -rf "$FUZZ_DIR/afl"
FUZZ_NO_BUILD=1 FUZZ_TARGETS=none AFL_TARGETS="$TARGETS" AFL_BUILD_ONLY=1 bash fuzz/run.sh >> "$LOG" 2>&1
left=$(( UNTIL - $(date +%s) ))
per=$(( left / N )); [ "$per" -lt 10 ] && per=10
for t in $TARGETS; do
    [ "$(date +%s)" -ge "$UNTIL" ] && break
    FUZZ_NO_BUILD=1 FUZZ_TARGETS=none AFL_TARGETS=$t AFL_SECONDS=$per \
        bash fuzz/run.sh 2>&1 | grep -E 'afl\+\+|reproduce' >> "$LOG"
done
echo "campaign end $(date -u +%FT%TZ)" >> "$LOG"
