#!/usr/bin/env bash
# PyTorch checkpoints through the command line, without torch: every
# checkpoint of corpus/torch/ (views, tied weights, big-endian storages,
# every dtype) converted to safetensors, npz, npy (one-array files) and
# back to .pt; each output validates and `afmt dump` prints the same values
# at the same logical indices as the input, or the conversion is refused
# naming the array (exit 1).  Tied tensors are said to become copies.
# Usage: tests/e2e/run_torch_cli.sh [BUILD_DIR]
set -u -o pipefail
. "$(dirname "$0")/lib.sh" "$@"
C="$REPO/corpus/torch"

# `afmt dump --list` as one line per array, "name type[shape]: values",
# without its index and layout (strides, order), sorted: the same arrays
# and values whatever order a format keeps them in
arrays() {
    "$AFMT" dump --list "$1" | awk '
        /^# / { if (line != "") print line; line = $3 " " $4 ":"; next }
        { line = line " " $0 }
        END { if (line != "") print line }' | sort
}

for f in "$C"/*.pt "$C"/*.pth "$C"/*.bin; do
    [ -f "$f" ] || continue
    b=$(basename "$f")
    arrays "$f" > "$T/$b.dump" 2> "$T/err" || { fail "torch-dump-$b" "$(cat "$T/err")"; continue; }
    pass "torch-dump-$b"
    for to in safetensors npz pt; do
        out="$T/$b.$to"
        run "$AFMT" convert "$f" "$out"
        if [ "$RC" -eq 1 ] && printf '%s' "$ERR" | grep -q "array"; then
            pass "torch-convert-$b-$to (refused, naming the array)"
            continue
        fi
        expect_rc "torch-convert-$b-$to" 0
        run "$VALIDATE" "$out"
        expect_rc "torch-convert-$b-$to-validates" 0
        arrays "$out" > "$T/out.dump" 2>&1
        if cmp -s "$T/$b.dump" "$T/out.dump"; then pass "torch-convert-$b-$to-same-values"
        else fail "torch-convert-$b-$to-same-values" "$(diff "$T/$b.dump" "$T/out.dump" | head -5)"; fi
    done
done

run "$AFMT" convert "$C/tied.pt" "$T/tied.safetensors"
expect_rc torch-tied-converts 0
expect_err_has torch-tied-says-copies "share one storage (tied weights or views of one tensor): safetensors gets each as its own copy"

# a strided view is never written as if it were contiguous
run "$AFMT" convert "$C/views.pt" "$T/views.safetensors"
expect_rc torch-views-converts 0
# a contiguous view of the whole storage (given as a plain view) is named too
expect_err_has torch-views-says-base-shared "'base' and 'transpose' share one storage"
run "$VALIDATE" "$T/views.safetensors"
expect_rc torch-views-output-valid 0

# random data and info
run "$AFMT" random '[3][4]f32' -o "$T/r.pt"
expect_rc torch-random 0
run "$VALIDATE" "$T/r.pt"
expect_out_has torch-random-valid "ok torch f32[3,4]"
run "$AFMT" info "$C/views.pt"
expect_out_has torch-info-strides "strides ["
expect_out_has torch-info-keypath "transpose"
# a view's bytes are its own elements' span, not its storage's rest
expect_out_has torch-info-view-span "row f32[6] strides [1], bytes 1392..1416 (24 bytes, in a storage that runs to 1440)"
expect_out_has torch-info-view-span-diagonal "diagonal f32[4] strides [7], bytes 1344..1432 (88 bytes, in a storage"
exit $FAILED
