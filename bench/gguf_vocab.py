#!/usr/bin/env python3
"""The GGUF input of make bench's GGUF rows (bench/gguf_bench.sh).

    python3 bench/gguf_vocab.py OUT [N_TOKENS]

Writes a llama.cpp-style vocabulary file with tests/golden/gguf_writer.py
(the independent test writer, not afmt): N_TOKENS (default 150,000) token
strings of 1 to 24 bytes (about 12 on average: some 3 MB with their length
prefixes), their scores (f32) and token types (i32), a few general.* and
llama.* keys, and four small tensors, so that every part of the header is
read.  Deterministic: the same N gives the same bytes.
"""
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden"))
from gguf_writer import Arr, Kv, T, Tensor, V, gguf  # noqa: E402


def main(argv):
    out = argv[0]
    n = int(argv[1]) if len(argv) > 1 else 150000
    rng = random.Random(150000)
    letters = "abcdefghijklmnopqrstuvwxyz\u0120\u010a0123456789_.,-ABCDEFGHIJ"
    tokens = ["<unk>", "<s>", "</s>"]
    seen = set(tokens)
    while len(tokens) < n:
        t = "".join(rng.choice(letters) for _ in range(rng.randint(1, 24)))
        if t not in seen:
            seen.add(t)
            tokens.append(t)
    kvs = [Kv("general.architecture", V.STRING, "llama"), Kv("general.name", V.STRING, "afmt bench vocabulary"),
           Kv("general.file_type", V.UINT32, 1), Kv("llama.context_length", V.UINT32, 4096),
           Kv("llama.embedding_length", V.UINT32, 64), Kv("llama.block_count", V.UINT32, 1),
           Kv("tokenizer.ggml.model", V.STRING, "gpt2"), Kv("tokenizer.ggml.tokens", V.ARRAY, Arr(V.STRING, tokens)),
           Kv("tokenizer.ggml.scores", V.ARRAY, Arr(V.FLOAT32, [-float(i) for i in range(n)])),
           Kv("tokenizer.ggml.token_type", V.ARRAY, Arr(V.INT32, [3 if i < 3 else 1 for i in range(n)])),
           Kv("tokenizer.ggml.bos_token_id", V.UINT32, 1), Kv("tokenizer.ggml.eos_token_id", V.UINT32, 2)]
    tensors = [Tensor("token_embd.weight", [64, 8], T.F16), Tensor("blk.0.attn_q.weight", [64, 64], T.Q8_0),
               Tensor("blk.0.ffn_up.weight", [256, 4], T.Q4_K), Tensor("output_norm.weight", [64], T.F32)]
    data, at = gguf(kvs, tensors)
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, out)
    print("%s: %d bytes, %d header bytes (data section at %d), %d tokens"
          % (out, len(data), at["data"], at["data"], n))


if __name__ == "__main__":
    main(sys.argv[1:])
