#!/usr/bin/env bash
# A model repository as one model: a folder holding
# model.safetensors.index.json and its shards, or gguf-split's files (as
# tests/e2e/model_set.py writes them, the way transformers and gguf-split
# do), checked by afmt-validate on the folder, on the index, in a -r walk,
# with --json and --sarif, and by afmt info.  Each fault is named on the
# line of the file it is in, with the tensor or key and the byte offset.
# Usage: tests/e2e/run_model_sets.sh [BUILD_DIR]
set -u
SUITE=model-sets
. "$(dirname "$0")/lib.sh" "$@"
MAKE="python3 $HERE/model_set.py"

# ---- valid sets: every shard's line, then the set's
$MAKE safetensors "$T/st"
run "$VALIDATE" "$T/st"
expect_rc st-folder-exit-0 0
expect_out_has st-folder-shard-1 "$T/st/model-00001-of-00002.safetensors: ok safetensors"
expect_out_has st-folder-shard-2 "$T/st/model-00002-of-00002.safetensors: ok safetensors"
expect_out_has st-folder-set "$T/st/model.safetensors.index.json: ok model (safetensors index: 2 shards, 4 tensors, 80 bytes)"
run "$VALIDATE" "$T/st/model.safetensors.index.json"
expect_rc st-index-exit-0 0
expect_out_has st-index-set "model.safetensors.index.json: ok model (safetensors index: 2 shards"
# the index relative to the current folder: its shards are beside it
run bash -c "cd '$T/st' && '$VALIDATE' model.safetensors.index.json"
expect_rc st-index-relative-exit-0 0
run "$VALIDATE" --json "$T/st"
expect_out_has st-json-summary '"format":"model","summary":"safetensors index: 2 shards, 4 tensors, 80 bytes","valid":true'
$MAKE gguf "$T/gg"
run "$VALIDATE" "$T/gg"
expect_rc gguf-folder-exit-0 0
expect_out_has gguf-folder-set "$T/gg/m-00001-of-00003.gguf: ok model (gguf split: 3 shards, 4 tensors, 128 bytes)"
# a folder with neither is a folder
mkdir -p "$T/empty"
run "$VALIDATE" "$T/empty"
expect_rc plain-folder-exit-2 2
expect_err_has plain-folder-said "is a directory (-r checks the files in it)"

# ---- one fault each: table of kind|fault|file the line names|words
while IFS='|' read -r kind fault file words; do
    d="$T/$kind-$fault"
    $MAKE "$kind" "$d" "$fault"
    run "$VALIDATE" "$d"
    expect_rc "$kind-$fault-exit-1" 1
    expect_out_has "$kind-$fault-named" "$d/$file: invalid model: $words"
done <<'TABLE'
safetensors|extra-tensor|model-00002-of-00002.safetensors|tensor["extra.bias"] at offset 280: in no entry of the index's weight_map
safetensors|wrong-shard|model-00002-of-00002.safetensors|tensor["lm_head.weight"] at offset 192: the index puts it in model-00001-of-00002.safetensors (its weight_map entry at offset 240 of the index)
safetensors|twice|model-00002-of-00002.safetensors|tensor["layers.0.weight"] at offset 288: also in model-00001-of-00002.safetensors
safetensors|lacking|model.safetensors.index.json|weight_map["norm.weight"] at offset 298: names model-00002-of-00002.safetensors, which holds no tensor of that name
safetensors|total-size|model.safetensors.index.json|metadata.total_size at offset 36: expected 80 (the stored bytes of the 4 tensors found), found 84
safetensors|missing-shard|model.safetensors.index.json|weight_map at offset 200: names shard model-00002-of-00002.safetensors, which cannot be read: No such file or directory
safetensors|bad-shard|model.safetensors.index.json|not one whole model (safetensors index): 0 faults of the set, 1 of 2 shards missing or invalid
gguf|twice|m-00003-of-00003.gguf|tensor["blk.0.attn_q.weight"] at offset 256: also in split 2 of 3 (its data at offset 224 there)
gguf|tensors-count|m-00001-of-00003.gguf|split.tensors.count at offset 149: expected 4 (the tensors the 3 files hold), found 5
gguf|missing-file|m-00002-of-00003.gguf|file 2 of a split of 3 cannot be read: No such file or directory
gguf|split-no|m-00003-of-00003.gguf|split.no at offset 24: expected 2 (split.no counts from 0: this is file 3 of 3 by its name), found 0
TABLE
# the cut shard says why itself; the set names nothing twice
run "$VALIDATE" "$T/safetensors-bad-shard"
expect_out_has bad-shard-own-line "model-00002-of-00002.safetensors: invalid safetensors: data at offset 192"
if printf '%s' "$OUT" | grep -q 'holds no tensor'; then
    fail bad-shard-not-blamed-per-tensor "$OUT"
else pass bad-shard-not-blamed-per-tensor; fi

# ---- a -r walk: each file once as itself, the set once more
run "$VALIDATE" -r "$T/safetensors-twice" "$T/gguf-twice"
expect_rc walk-exit-1 1
n=$(printf '%s\n' "$OUT" | grep -c 'model-00002-of-00002.safetensors: ok safetensors')
[ "$n" -eq 1 ] && pass walk-shard-once || fail walk-shard-once "$n lines for shard 2: $OUT"
expect_out_has walk-st-fault 'model-00002-of-00002.safetensors: invalid model: tensor["layers.0.weight"]'
expect_out_has walk-gguf-fault 'm-00003-of-00003.gguf: invalid model: tensor["blk.0.attn_q.weight"]'
n=$(printf '%s\n' "$OUT" | grep -c 'm-00002-of-00003.gguf: ok gguf')
[ "$n" -eq 1 ] && pass walk-split-file-once || fail walk-split-file-once "$n lines for file 2: $OUT"
run "$VALIDATE" -r -j 2 "$T/st" "$T/gg"
expect_rc walk-j2-valid-exit-0 0

# ---- SARIF: a fault of the set is a result at its file and offset
run "$VALIDATE" --sarif "$T/safetensors-wrong-shard"
printf '%s' "$OUT" > "$T/sarif.json"
if python3 - "$T/sarif.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["runs"][0]["results"]
fault = [r for r in results if "lm_head.weight" in r["message"]["text"]]
assert fault, results
loc = fault[0]["locations"][0]["physicalLocation"]
assert loc["artifactLocation"]["uri"].endswith("model-00002-of-00002.safetensors"), loc
assert loc["region"]["byteOffset"] == 192, loc
whole = [r for r in results if "not one whole model" in r["message"]["text"]]
assert whole and "region" not in whole[0]["locations"][0]["physicalLocation"], whole
PY
then pass sarif-fault-located; else fail sarif-fault-located "$OUT"; fi

# ---- afmt info: the set, each shard's tensors
run "$AFMT" info "$T/st"
expect_rc info-folder-exit-0 0
expect_out_has info-folder-tensor "  [1] lm_head.weight f32[6] row-major offset=192"
expect_out_has info-folder-set "model.safetensors.index.json: ok model (safetensors index: 2 shards"
run "$AFMT" info --json "$T/safetensors-lacking/model.safetensors.index.json"
expect_rc info-index-exit-1 1
expect_out_has info-index-json-fault '"field":"weight_map[\"norm.weight\"]"'
run "$AFMT" info "$T/gguf-split-no"
expect_rc info-split-exit-1 1
expect_out_has info-split-fault "m-00003-of-00003.gguf: invalid model: split.no at offset 24"

# ---- afmt info names GGUF's value and tensor types (the spec's "names")
run "$AFMT" info "$T/gg/m-00001-of-00003.gguf"
expect_out_has info-gguf-value-type "kv[0].type                   8 (string)"
expect_out_has info-gguf-u16-type "kv[2].type                   2 (u16)"
expect_out_has info-gguf-tensor-type "tensor[0].type               0 (f32)"
run "$AFMT" info --json "$T/gg/m-00001-of-00003.gguf"
expect_out_has info-gguf-json-name '"field":"kv[4].type","offset":176,"width":4,"type":"u32le","value":5,"value_name":"i32"'

# ---- a bad index is named as such
printf '{"weight_map": {"a": "../x.safetensors"}}' > "$T/st/bad.index.json"
run "$VALIDATE" "$T/st/bad.index.json"
expect_rc bad-index-exit-1 1
expect_out_has bad-index-named 'bad.index.json: invalid model: weight_map["a"] at offset 21: a shard'"'"'s file name lies in the index'"'"'s folder'
rm -f "$T/st/bad.index.json"
exit $FAILED
