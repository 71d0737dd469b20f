// Read GGUF files with @huggingface/gguf (an independent reader, npm) and
// print, per file, one JSON line: its tensors (name, ggml type name, ne as
// stored, offset in the data section, absolute offset) and its metadata
// (every key with its GGUF value type and value; 64-bit integers as
// decimal strings, arrays as {"type", "items"}).
//
//   node tests/e2e/gguf_hf_read.cjs HF_DIR FILE...
//
// HF_DIR: the folder tests/e2e/hf_gguf_install.sh prints.  A file the
// library cannot read prints {"file", "error"} and makes the exit status 1.
"use strict";
const path = require("path");
const hf = require(path.join(process.argv[2], "node_modules", "@huggingface", "gguf"));
const TYPE_NAMES = ["u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string", "array", "u64", "i64", "f64"];

function plain(v) {
    if (typeof v === "bigint") return v.toString();
    if (typeof v === "number" && !Number.isFinite(v)) return String(v);
    if (Array.isArray(v)) return v.map(plain);
    return v;
}

function typed(entry) {
    if (entry.type === hf.GGUFValueType.ARRAY)
        return { type: "array", value: { type: TYPE_NAMES[entry.subType], items: plain(entry.value) } };
    return { type: TYPE_NAMES[entry.type], value: plain(entry.value) };
}

async function readOne(file) {
    const r = await hf.gguf(path.resolve(file), { allowLocalFile: true, typedMetadata: true });
    const metadata = {};
    for (const [key, entry] of Object.entries(r.typedMetadata)) {
        if (key === "version" || key === "tensor_count" || key === "kv_count") continue;
        metadata[key] = typed(entry);
    }
    const tensors = r.tensorInfos.map((t) => ({
        name: t.name,
        type: hf.GGMLQuantizationType[t.dtype],
        ne: t.shape.map((x) => x.toString()),
        offset: t.offset.toString(),
        absolute_offset: (r.tensorDataOffset + t.offset).toString(),
    }));
    return { file, version: Number(r.metadata.version), tensor_data_offset: r.tensorDataOffset.toString(),
             tensors, metadata };
}

(async () => {
    let failed = 0;
    for (const file of process.argv.slice(3)) {
        try {
            console.log(JSON.stringify(await readOne(file)));
        } catch (e) {
            failed = 1;
            console.log(JSON.stringify({ file, error: String(e && e.message ? e.message : e) }));
        }
    }
    process.exit(failed);
})();
