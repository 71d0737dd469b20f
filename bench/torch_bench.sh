# shellcheck shell=bash
# The PyTorch checkpoint rows of make bench (benchmark 11), sourced by
# bench/run.sh after benchmark 10: it uses run.sh's time_rounds,
# peer_rounds, convert_vs_cp, row, range, size_of, say, die, $AFMT,
# $VALIDATE, $DATA_ROOT, $OUT, $SIDE, $RUNS, $SMALL_RUNS, $PEER_RUNS,
# $ROOT, $BENCH.  Nothing is downloaded here.
#
# The peer is real torch in build/venv (make deps-venv; BENCH_TORCH_PYTHON
# names another interpreter, "none" skips the rows).  Inputs: two
# checkpoints torch.save writes from fixed seeds (bench/torch_gen.py),
# made once into $DATA_ROOT/torch-<bytes>/ and made again when the
# generator or torch's version changes: t300.pt (300 tensors, 5.0 MB) and
# big.pt (SIDE*SIDE*4 bytes of f32 wanted; 1.06 GB, 252 tensors at the
# default size).
#
# 11a, 11b  afmt-validate FILE (whole commands, start-up included) against
#      torch.load(FILE, weights_only=True, mmap=True) timed inside one
#      Python process (bench/torch_peer.py: neither the interpreter's
#      start-up nor `import torch` is counted).  The sides alternate three
#      times, SMALL_RUNS (11a) or PEER_RUNS (11b) rounds each, after a
#      warm-up round; the median of each side's three medians is reported.
#      Goal: at most 0.1x.
# 11c  afmt-validate of big.pt against cat of it: the limit of reading every
#      byte once (afmt checks every member's CRC-32, which reads them all).
# 11d  afmt convert big.pt OUT.safetensors (whole command, fsync'd) against
#      torch.load(mmap=True) + safetensors.torch.save_file + fsync in
#      process, alternating as 11b.  Both outputs are compared byte for
#      byte before anything is timed.
# 11e, 11f  the same conversion against cp, and cp + sync FILE, of big.pt,
#      in the same rounds (as convert_vs_cp in run.sh).  Goal: at most 1.3x
#      cp.
# (one start of the interpreter: `import torch` takes 2.6-2.8 s of CPU)
TORCH_PY="" TORCH_VERSION=""
for py in ${BENCH_TORCH_PYTHON:-$ROOT/build/venv/bin/python}; do
    [ "$py" = none ] && break
    if TORCH_VERSION=$("$py" -c 'import torch, safetensors
print(torch.__version__, "safetensors", safetensors.__version__)' 2> /dev/null); then
        TORCH_PY=$py
        break
    fi
done

# cmd_rounds RUNS PREP CMD: time_rounds of one whole command, printed as
# peer_rounds reads it ("RESULT med min max").
cmd_rounds() {
    time_rounds "$1" "$2" "$3"
    echo "RESULT ${MED[0]} ${MIN[0]} ${MAX[0]}"
}

torch_skipped() { # why
    local id
    for id in 11a 11b 11c 11d 11e 11f 11g 11h; do
        row "$id" "PyTorch checkpoint" "-" "-" "-" "torch (skipped)" "-" "-" 0 "$1"
    done
}

torch_inputs() { # sets TORCH_DIR; makes the checkpoints when needed
    local want=$((SIDE * SIDE * 4)) stamp
    TORCH_DIR=$DATA_ROOT/torch-$want
    stamp="$(cksum < "$BENCH/torch_gen.py" | cut -d' ' -f1) $TORCH_VERSION"
    if [ ! -s "$TORCH_DIR/big.pt" ] || [ ! -s "$TORCH_DIR/t300.pt" ] ||
        [ "$(cat "$TORCH_DIR/.gen" 2> /dev/null)" != "$stamp" ]; then
        rm -rf "$TORCH_DIR"
        say "bench 11: writing the checkpoints with torch.save into $TORCH_DIR"
        "$TORCH_PY" "$BENCH/torch_gen.py" "$TORCH_DIR" "$want" >&2 || die "bench/torch_gen.py failed"
        echo "$stamp" > "$TORCH_DIR/.gen"
    fi
    sync "$TORCH_DIR"/*.pt
    "$VALIDATE" "$TORCH_DIR/t300.pt" "$TORCH_DIR/big.pt" >&2 || die "a generated checkpoint is invalid"
    cat "$TORCH_DIR"/*.pt > /dev/null
}

torch_validate_rows() {
    local t300=$TORCH_DIR/t300.pt big=$TORCH_DIR/big.pt peer=$BENCH/torch_peer.py
    peer_rounds "cmd_rounds $SMALL_RUNS : \"'$VALIDATE' -q '$t300'\"" "'$TORCH_PY' '$peer' load '$t300' $SMALL_RUNS"
    row 11a "validate torch, 300 tensors, $TORCH_T300_MB" "afmt-validate" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
        "torch.load(mmap=True)" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" "$(size_of "$t300")" \
        "whole command vs the load in process; goal <= 0.1x"
    peer_rounds "cmd_rounds $PEER_RUNS : \"'$VALIDATE' -q '$big'\"" "'$TORCH_PY' '$peer' load '$big' $PEER_RUNS"
    row 11b "validate torch, $TORCH_BIG_WHAT" "afmt-validate" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
        "torch.load(mmap=True)" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" "$(size_of "$big")" \
        "afmt CRCs every member, torch reads none; goal <= 0.1x"
    # --structure: headers, pickle, sizes and layout, no payload byte (no
    # CRC-32): what torch.load(mmap=True) reads
    peer_rounds "cmd_rounds $SMALL_RUNS : \"'$VALIDATE' -q --structure '$t300'\"" "'$TORCH_PY' '$peer' load '$t300' $SMALL_RUNS"
    row 11g "validate torch --structure, 300 tensors, $TORCH_T300_MB" "afmt-validate" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
        "torch.load(mmap=True)" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" "$(size_of "$t300")" \
        "no CRC, as torch; goal <= 0.1x"
    peer_rounds "cmd_rounds $PEER_RUNS : \"'$VALIDATE' -q --structure '$big'\"" "'$TORCH_PY' '$peer' load '$big' $PEER_RUNS"
    row 11h "validate torch --structure, $TORCH_BIG_WHAT" "afmt-validate" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
        "torch.load(mmap=True)" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" "$(size_of "$big")" \
        "no CRC, as torch; goal <= 0.1x"
    time_rounds "$RUNS" ":" "'$VALIDATE' -q '$big'" "cat '$big'"
    row 11c "validate torch, $TORCH_BIG_WHAT" "afmt-validate" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
        "cat >/dev/null" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" "$(size_of "$big")" \
        "the limit of reading every byte once"
}

# afmt convert prints a note per state_dict _metadata entry it drops (its
# values are ints; safetensors metadata holds strings): a few hundred
# lines a run, kept out of the bench's output (the checked run's go to a
# file, and their count is said once).
torch_convert_rows() {
    local big=$TORCH_DIR/big.pt peer=$BENCH/torch_peer.py prep conv
    "$AFMT" convert "$big" "$OUT/check.safetensors" 2> "$TMP/torch-convert.err" ||
        die "afmt convert $big failed: $(tail -3 "$TMP/torch-convert.err")"
    say "bench 11: afmt convert $big: $(wc -l < "$TMP/torch-convert.err") notes on stderr (not shown)"
    "$VALIDATE" -q "$OUT/check.safetensors" || die "afmt convert wrote an invalid safetensors file"
    "$TORCH_PY" "$peer" convert-once "$big" "$OUT/check.peer" || die "torch_peer.py convert-once failed"
    cmp -s "$OUT/check.safetensors" "$OUT/check.peer" ||
        die "afmt convert and safetensors.torch.save_file disagree (torch -> safetensors)"
    rm -f "$OUT"/check.*
    prep="rm -f '$OUT/t.safetensors' '$OUT/t.cp' '$OUT/t.cps'"
    conv="'$AFMT' convert '$big' '$OUT/t.safetensors' 2> /dev/null"
    peer_rounds "cmd_rounds $PEER_RUNS \"$prep\" \"$conv\"" "'$TORCH_PY' '$peer' convert '$big' '$OUT/t.peer' $PEER_RUNS"
    row 11d "convert torch $TORCH_BIG_SIZE -> safetensors" "afmt convert" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
        "torch.load + save_file" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" "$(size_of "$big")" \
        "both fsync'd; the peer in process (mmap=True)"
    # as convert_vs_cp (run.sh), with afmt's notes kept out of the output
    time_rounds "$RUNS" "$prep" "$conv" "cp '$big' '$OUT/t.cp'" "cp '$big' '$OUT/t.cps' && sync '$OUT/t.cps'"
    eval "$prep"
    row 11e "convert torch $TORCH_BIG_SIZE -> safetensors" "afmt convert" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
        "cp" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" "$(size_of "$big")" \
        "whole command; afmt CRCs the input, fsyncs; goal <= 1.3x"
    row 11f "convert torch $TORCH_BIG_SIZE -> safetensors" "afmt convert" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
        "cp + sync FILE" "${MED[2]}" "$(range "${MIN[2]}" "${MAX[2]}")" "$(size_of "$big")" \
        "both outputs durable (fsync)"
}

if [ -z "$TORCH_PY" ]; then
    TORCH_VERSION=""
    say "bench 11: no torch (make deps-venv makes build/venv): rows 11a-11f skipped"
    torch_skipped "no python with torch and safetensors: make deps-venv (build/venv), or BENCH_TORCH_PYTHON"
else
    torch_inputs
    TORCH_BIG_SIZE=$(awk -v b="$(size_of "$TORCH_DIR/big.pt")" 'BEGIN { printf "%.2f GB", b / 1e9 }')
    TORCH_BIG_WHAT="$("$VALIDATE" -v "$TORCH_DIR/big.pt" | grep -c '^ *\[') tensors, $TORCH_BIG_SIZE"
    TORCH_T300_MB=$(awk -v b="$(size_of "$TORCH_DIR/t300.pt")" 'BEGIN { printf "%.1f MB", b / 1e6 }')
    say "bench 11: PyTorch checkpoints against torch $TORCH_VERSION"
    torch_validate_rows
    torch_convert_rows
fi
