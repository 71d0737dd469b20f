#!/usr/bin/env bash
# Plant a bug in a copy of the sources, never in the tree itself:
#   bash fuzz/plant.sh DEST
# copies the tree (all but build/ and .git) into DEST and, in DEST/$PLANT_FILE, rewrites the first match
# of the Perl regular expression $PLANT_FROM as $PLANT_TO (Perl replacement
# syntax: ${1} is the first group).  Fails (exit 1) when nothing matches, so a
# plant that no longer fits the generated code is noticed, not silently
# skipped.
#   bash fuzz/plant.sh --check
# only says whether the plant fits the tree as it is (what it would change,
# exit 0; or why not, exit 1), copying nothing: `make test` runs it, so a
# change to gen/ that moves the check away is noticed at once, not by the
# next `make fuzz-planted`.
#
# The default plant (make fuzz-planted) is an off-by-one in a generated
# bounds check: the rank limit of generated/futhark.c,
#   if (n_dims > opt->limits.max_rank || ...)   ->   max_rank + 1
# lets an array one dimension above the caller's max_rank through.  It is
# no memory error (tests/unit/test_security.c, which mutates every sample
# under guard pages, finds every planted over-read at once), and no test
# validates a futhark binary value against a lowered max_rank, so `make test`
# passes on the planted tree; the validate target's oracle "no view exceeds the
# caller's limits" (tiny limits: max_rank 2) finds it.  The pattern is the
# first comparison "<rank> > <options>->limits.max_rank" (a rank above the
# limit fails) or "<rank> <= <options>->limits.max_rank" (a rank within it
# passes, as in "if (!(... <= ...)) return afmt_fail(...)"), the limit read
# through a pointer or a struct, whatever the generator names the two and
# however it spaces or wraps the line: renaming locals, re-flowing the code,
# moving the check into a function of its own or turning the condition
# around does not lose it (a `->` is not taken for a `>`).  It matches that check
# in every generated validator, so the same bug goes into another format's
# check with
#   PLANT_FILE=generated/tenbin.c PLANT_TARGET=validate_tenbin make fuzz-planted
# and any other change with PLANT_FROM / PLANT_TO (docs/FUZZING.md).
set -eu
DEST=${1:?usage: fuzz/plant.sh DEST | fuzz/plant.sh --check}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PLANT_FILE=${PLANT_FILE:-generated/futhark.c}
PLANT_FROM=${PLANT_FROM:-'((?:(?<!-)>(?![=>])|<=)\s*(?:\w+(?:->|\.))+limits\.max_rank)\b(?!\s*\+)'}
PLANT_TO=${PLANT_TO:-'${1} + 1'}

# Rewrite the first match in file $1 (in place); exit 3 when none.
plant_into() {
    PLANT_FROM=$PLANT_FROM PLANT_TO=$PLANT_TO perl -0pi -e '
        BEGIN { $from = $ENV{PLANT_FROM}; $to = $ENV{PLANT_TO}; $done = 0 }
        if (!$done && s/$from/"\"$to\""/ee) { $done = 1 }
        END { exit($done ? 0 : 3) }' "$1"
}
no_match() {
    echo "plant: nothing in $PLANT_FILE matches /$PLANT_FROM/: the generated code no longer" >&2
    echo "  holds the check fuzz/plant.sh plants its bug in; update PLANT_FROM / PLANT_TO there" >&2
    echo "  (and docs/FUZZING.md) to the new form of the check, then run make fuzz-planted" >&2
}

if [ "$DEST" = --check ]; then
    [ -f "$ROOT/$PLANT_FILE" ] || { echo "plant: no $PLANT_FILE" >&2; exit 1; }
    tmp=$(mktemp)
    trap 'rm -f "$tmp"' EXIT
    cp "$ROOT/$PLANT_FILE" "$tmp"
    plant_into "$tmp" || { no_match; exit 1; }
    echo "plant fits $PLANT_FILE:"
    diff "$ROOT/$PLANT_FILE" "$tmp" | sed 's/^/  /' || true
    exit 0
fi

rm -rf "$DEST"
mkdir -p "$DEST"
for d in "$ROOT"/* "$ROOT"/.clusterfuzzlite; do  # everything but build/ and .git
    [ -e "$d" ] && [ "$(basename "$d")" != build ] && cp -r "$d" "$DEST/"
done
[ -f "$DEST/$PLANT_FILE" ] || { echo "plant: no $PLANT_FILE" >&2; exit 1; }
plant_into "$DEST/$PLANT_FILE" || { no_match; exit 1; }
echo "planted in $DEST/$PLANT_FILE:"
diff "$ROOT/$PLANT_FILE" "$DEST/$PLANT_FILE" | sed 's/^/  /' || true
