#!/usr/bin/env python3
"""Write model repositories as hubs lay them out, for tests/e2e/run_model_sets.sh.

  model_set.py safetensors DIR [FAULT]   model.safetensors.index.json + 2 shards
  model_set.py gguf DIR [FAULT]          gguf-split's m-0000K-of-00003.gguf

The safetensors files are what safetensors.torch.save_file writes (header
padded with spaces to 8 bytes, "__metadata__": {"format": "pt"}), the index
what transformers' save_pretrained writes (metadata.total_size, weight_map
sorted by name).  The GGUF files are what llama.cpp's gguf-split writes:
every file has split.no (u16, from 0), split.count (u16) and
split.tensors.count (i32, the tensors of all files); the first keeps the
model's other key-values.  FAULT breaks one thing (see FAULTS below).
"""
import json
import os
import struct
import sys

# tensor name -> (shard, element count); all F32
SAFETENSORS = {
    "model-00001-of-00002.safetensors": [("embed.weight", 6), ("layers.0.weight", 4)],
    "model-00002-of-00002.safetensors": [("layers.1.weight", 4), ("lm_head.weight", 6)],
}


def safetensors_bytes(tensors):
    header, data = {"__metadata__": {"format": "pt"}}, b""
    for name, n in tensors:
        payload = struct.pack("<%df" % n, *range(n))
        header[name] = {"dtype": "F32", "shape": [n], "data_offsets": [len(data), len(data) + len(payload)]}
        data += payload
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


def write_safetensors(d, fault):
    shards = {k: list(v) for k, v in SAFETENSORS.items()}
    weight_map = {name: shard for shard, ts in SAFETENSORS.items() for name, _ in ts}
    total = sum(4 * n for ts in SAFETENSORS.values() for _, n in ts)
    if fault == "extra-tensor":      # a shard holds a tensor the index does not list
        shards["model-00002-of-00002.safetensors"].append(("extra.bias", 2))
    elif fault == "wrong-shard":     # the index puts lm_head in shard 1
        weight_map["lm_head.weight"] = "model-00001-of-00002.safetensors"
    elif fault == "twice":           # layers.0 in both shards
        shards["model-00002-of-00002.safetensors"].append(("layers.0.weight", 4))
    elif fault == "lacking":         # the index lists a tensor no shard has
        weight_map["norm.weight"] = "model-00002-of-00002.safetensors"
    elif fault == "total-size":
        total += 4
    for shard, ts in shards.items():
        if fault == "missing-shard" and shard.startswith("model-00002"):
            continue
        with open(os.path.join(d, shard), "wb") as f:
            data = safetensors_bytes(ts)
            if fault == "bad-shard" and shard.startswith("model-00002"):
                data = data[:-3]     # cut short
            f.write(data)
    index = {"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))}
    with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
        json.dump(index, f, indent=2)
        f.write("\n")


def gguf_str(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def gguf_kv(key, vtype, value):
    fmt = {2: "<H", 4: "<I", 5: "<i"}
    if vtype == 8:
        return gguf_str(key) + struct.pack("<I", 8) + gguf_str(value)
    return gguf_str(key) + struct.pack("<I", vtype) + struct.pack(fmt[vtype], value)


def gguf_bytes(kvs, tensors):
    align = 32
    infos, data = b"", b""
    for name, n in tensors:
        infos += gguf_str(name) + struct.pack("<IQIQ", 1, n, 0, len(data))
        payload = struct.pack("<%df" % n, *range(n))
        data += payload + b"\0" * (-len(payload) % align)
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs)) + b"".join(kvs) + infos
    head += b"\0" * (-len(head) % align)
    return head + data


def write_gguf(d, fault):
    files = [[("token_embd.weight", 8)], [("blk.0.attn_q.weight", 8), ("blk.0.attn_k.weight", 8)],
             [("output.weight", 8)]]
    if fault == "twice":
        files[2].append(("blk.0.attn_q.weight", 8))
    total = sum(len(f) for f in files)
    if fault == "tensors-count":
        total += 1
    for i, tensors in enumerate(files):
        if fault == "missing-file" and i == 1:
            continue
        no = 0 if fault == "split-no" and i == 2 else i
        kvs = []
        if i == 0:
            kvs += [gguf_kv("general.architecture", 8, "llama"), gguf_kv("general.alignment", 4, 32)]
        kvs += [gguf_kv("split.no", 2, no), gguf_kv("split.count", 2, 3), gguf_kv("split.tensors.count", 5, total)]
        with open(os.path.join(d, "m-%05d-of-%05d.gguf" % (i + 1, 3)), "wb") as f:
            f.write(gguf_bytes(kvs, tensors))


def main():
    kind, d = sys.argv[1], sys.argv[2]
    fault = sys.argv[3] if len(sys.argv) > 3 else ""
    os.makedirs(d, exist_ok=True)
    (write_safetensors if kind == "safetensors" else write_gguf)(d, fault)


if __name__ == "__main__":
    main()
