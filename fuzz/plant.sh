#!/usr/bin/env bash
# Plant a bug in a copy of the sources, never in the tree itself:
#   bash fuzz/plant.sh DEST
# copies the tree (all but build/ and .git) into DEST and, in DEST/$PLANT_FILE, rewrites the first match
# of the Perl regular expression $PLANT_FROM as $PLANT_TO (Perl replacement
# syntax: $1 is the first group).  Fails (exit 1) when nothing matches, so a
# plant that no longer fits the generated code is noticed, not silently
# skipped.
#
# The default plant (make fuzz-planted) is an off-by-one in a generated
# bounds check: the rank limit of generated/futhark.c,
#   if (n_dims > opt->limits.max_rank || ...)   ->   max_rank + 1
# lets an array one dimension above the caller's max_rank through.  It is
# no memory error (tests/unit/test_security.c, which mutates every sample
# under guard pages, finds every planted over-read at once), and no test
# validates a futhark binary value against a lowered max_rank, so `make test`
# passes on the planted tree; the validate target's oracle "no view exceeds the
# caller's limits" (tiny limits: max_rank 2) finds it.  The pattern matches
# that check in every generated validator, so the same bug goes into
# another format's check with
#   PLANT_FILE=generated/tenbin.c PLANT_TARGET=validate_tenbin make fuzz-planted
# and any other change with PLANT_FROM / PLANT_TO (docs/FUZZING.md).
set -eu
DEST=${1:?usage: fuzz/plant.sh DEST}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PLANT_FILE=${PLANT_FILE:-generated/futhark.c}
PLANT_FROM=${PLANT_FROM:-'n_dims > opt->limits.max_rank \|\|'}
PLANT_TO=${PLANT_TO:-'n_dims > opt->limits.max_rank + 1 ||'}

rm -rf "$DEST"
mkdir -p "$DEST"
for d in "$ROOT"/* "$ROOT"/.clusterfuzzlite; do  # everything but build/ and .git
    [ -e "$d" ] && [ "$(basename "$d")" != build ] && cp -r "$d" "$DEST/"
done
[ -f "$DEST/$PLANT_FILE" ] || { echo "plant: no $PLANT_FILE" >&2; exit 1; }
PLANT_FROM=$PLANT_FROM PLANT_TO=$PLANT_TO perl -0pi -e '
    BEGIN { $from = $ENV{PLANT_FROM}; $to = $ENV{PLANT_TO}; $done = 0 }
    if (!$done && s/$from/"\"$to\""/ee) { $done = 1 }
    END { exit($done ? 0 : 3) }' "$DEST/$PLANT_FILE" || {
    echo "plant: nothing in $PLANT_FILE matches /$PLANT_FROM/ (update PLANT_FROM)" >&2; exit 1; }
echo "planted in $DEST/$PLANT_FILE:"
diff "$ROOT/$PLANT_FILE" "$DEST/$PLANT_FILE" | sed 's/^/  /' || true
