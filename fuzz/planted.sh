#!/usr/bin/env bash
# Proof that the CI fuzzing time-box finds bugs (make fuzz-planted, run by
# .ci/run): plant an off-by-one in a generated bounds check in a copy of the
# sources (fuzz/plant.sh, build/planted/src), build the per-format target
# from that copy (build/planted/out), and fuzz it from the ordinary seeds
# for at most PLANT_SECONDS with a fresh corpus.
# Exit 0: the planted bug was found (the sanitizer report and the time it
# took are printed); 1: not found within the time-box; 2: could not plant
# or build.
#   PLANT_SECONDS=120   the time-box
#   PLANT_TARGET=validate_futhark   the target to fuzz (its format's seeds)
#   PLANT_FILE / PLANT_FROM / PLANT_TO   where and what (fuzz/plant.sh)
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
B=$ROOT/build/planted
SECONDS_BOX=${PLANT_SECONDS:-120}
TARGET=${PLANT_TARGET:-validate_futhark}
FMT=${TARGET#*_}

bash fuzz/plant.sh "$B/src" || exit 2
if ! OUT=$B/out FUZZ_ONLY=$TARGET bash "$B/src/fuzz/build.sh" > "$B/build.log" 2>&1; then
    cat "$B/build.log"; echo "fuzz-planted: could not build $TARGET"; exit 2
fi
rm -rf "$B/corpus" "$B/seeds" "$B/crashes"
mkdir -p "$B/corpus" "$B/seeds" "$B/crashes"
[ "$FMT" = "$TARGET" ] && FMT="*"   # an all-format target: every format's seeds
for f in corpus/$FMT/*; do
    case "$f" in corpus/regressions/*|*/README*) continue ;; esac
    [ -f "$f" ] && { d=${f#corpus/}; cp "$f" "$B/seeds/${d//\//__}"; }
done
for f in tests/$FMT/*/input; do
    [ -f "$f" ] && { d=${f#tests/}; cp "$f" "$B/seeds/${d//\//__}"; }
done
dict=""
[ -f "$B/out/$TARGET.dict" ] && dict="-dict=$B/out/$TARGET.dict"
echo "fuzz-planted: fuzzing $TARGET (planted build) for at most ${SECONDS_BOX}s from $(ls "$B/seeds" | wc -l) seeds"
start=$(date +%s.%N)
"$B/out/$TARGET" -max_total_time="$SECONDS_BOX" -max_len=65536 -timeout=10 \
    -rss_limit_mb=512 -artifact_prefix="$B/crashes/" $dict "$B/corpus" "$B/seeds" \
    > "$B/fuzz.log" 2>&1
rc=$?
took=$(echo "$(date +%s.%N) - $start" | bc)
execs=$(grep -o '^#[0-9]*' "$B/fuzz.log" | tail -1 | tr -d '#')
if [ "$rc" -ne 0 ] && grep -qE 'ERROR: AddressSanitizer|afmt-fuzz BUG|runtime error:' "$B/fuzz.log"; then
    echo "fuzz-planted: FOUND after $(printf '%.1f' "$took") s (about ${execs:-?} inputs):"
    grep -E 'ERROR: AddressSanitizer|afmt-fuzz BUG|runtime error:|^    #[0-3] |SUMMARY' "$B/fuzz.log" | head -8 | sed 's/^/  | /'
    echo "  input: $(ls "$B"/crashes/* | head -1)"
    exit 0
fi
echo "fuzz-planted: NOT FOUND in ${SECONDS_BOX}s (exit $rc, ${execs:-?} inputs; log $B/fuzz.log)"
exit 1
