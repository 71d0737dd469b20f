#!/usr/bin/env bash
# make fuzz-merge: minimise what the fuzzers grew into a small committed
# seed set per format, corpus/grown/<format>/.
# For each format, libFuzzer's -merge=1 (with validate_<format>, then
# roundtrip_<format> -- FUZZ_MERGE_WITH -- each adding only inputs that
# give it new coverage) runs over corpus/grown/<format>/ (kept first) and
# every grown corpus <dir>/corpus/<target>_<format>/ of the FUZZ_DIRS
# (default: build/fuzz and build/campaign).  Files above FUZZ_MERGE_MAX_LEN
# bytes (1024) are left out, to keep the committed set small.  When the
# result differs, corpus/grown/<format>/ is replaced (commit it) and the
# change in files and coverage is printed.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
B=$ROOT/build/fuzz
DIRS=${FUZZ_DIRS:-"$ROOT/build/fuzz $ROOT/build/campaign"}
# Coverage judged by these targets (each adds what gives it new coverage).
MERGE_WITH=${FUZZ_MERGE_WITH:-validate roundtrip}
MAXLEN=${FUZZ_MERGE_MAX_LEN:-1024}
[ -x "$B/validate_$(ls generated/fuzz | head -1 | sed 's/\.dict$//')" ] || bash fuzz/build.sh || exit 2
changed=0
for dict in generated/fuzz/*.dict; do
    f=$(basename "$dict" .dict)
    grown=corpus/grown/$f
    tmp=$(mktemp -d)
    mkdir -p "$tmp/out" "$tmp/old" "$tmp/new"
    [ -d "$grown" ] && cp "$grown"/* "$tmp/old/" 2>/dev/null
    n=0
    for d in $DIRS; do
        for t in validate roundtrip stream; do
            for x in "$d/corpus/${t}_$f"/*; do
                [ -f "$x" ] || continue
                [ "$(stat -c %s "$x")" -le "$MAXLEN" ] || continue
                cp "$x" "$tmp/new/" && n=$((n + 1))
            done
        done
    done
    for t in $MERGE_WITH; do
        [ -x "$B/${t}_$f" ] || continue
        "$B/${t}_$f" -merge=1 -max_len="$MAXLEN" "$tmp/out" "$tmp/old" "$tmp/new" \
            > "$tmp/$t.log" 2>&1 || { tail -5 "$tmp/$t.log"; echo "merge: ${t}_$f failed"; exit 1; }
    done
    before=$(ls "$tmp/old" | wc -l)
    after=$(ls "$tmp/out" | wc -l)
    cov=$(grep -o 'MERGE-OUTER: [0-9]* new files with [0-9]* new features' "$tmp/validate.log" | tail -1)
    if ! diff -rq "$tmp/old" "$tmp/out" >/dev/null 2>&1; then
        rm -rf "$grown"; mkdir -p "$grown"; cp "$tmp/out"/* "$grown/" 2>/dev/null
        changed=1
        echo "$grown: $before -> $after files from $n candidates ($cov)"
    else
        echo "$grown: unchanged ($after files)"
    fi
    rm -rf "$tmp"
done
[ "$changed" = 1 ] && echo "corpus/grown/ changed: review and commit it (git add corpus/grown)"
exit 0
