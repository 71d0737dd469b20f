// The @huggingface/gguf peer of the GGUF rows of `make bench` (bench/gguf_bench.sh).
//
//   node bench/hf_gguf_peer.cjs HF_DIR FILE [RUNS]
//
// Times gguf(FILE, { allowLocalFile: true }): the library reads the header,
// the metadata and the tensor infos of a local file (no tensor data).  One
// untimed warm-up call, then RUNS (default 9) timed ones, with
// process.hrtime (monotonic).  Prints "RESULT <median s> <min s> <max s>".
// HF_DIR: the folder tests/e2e/hf_gguf_install.sh prints (nothing is
// installed here).
"use strict";
const path = require("path");
const { gguf } = require(path.join(process.argv[2], "node_modules", "@huggingface", "gguf"));

(async () => {
    const file = path.resolve(process.argv[3]);
    const runs = Math.max(1, parseInt(process.argv[4] || "9", 10));
    await gguf(file, { allowLocalFile: true });
    const t = [];
    for (let r = 0; r < runs; r++) {
        const t0 = process.hrtime.bigint();
        await gguf(file, { allowLocalFile: true });
        t.push(Number(process.hrtime.bigint() - t0) / 1e9);
    }
    t.sort((a, b) => a - b);
    const med = runs % 2 ? t[(runs - 1) / 2] : (t[runs / 2 - 1] + t[runs / 2]) / 2;
    console.log(`RESULT ${med.toFixed(9)} ${t[0].toFixed(9)} ${t[runs - 1].toFixed(9)}`);
})().catch((e) => { console.error(`hf_gguf_peer: ${e.message || e}`); process.exit(1); });
