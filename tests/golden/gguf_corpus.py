#!/usr/bin/env python3
"""A hidden-corpus-style GGUF check: random valid files and their mutants,
each with its expected verdict, then afmt's and ggml's verdicts against it.

    python3 tests/golden/gguf_corpus.py make DIR [N] [SEED]
        writes N (default 200) random valid files and about 9 mutants of
        each into DIR, and DIR/manifest.tsv: file, the expected strict and
        lenient verdicts and the expected first error (rulebook oracle:
        tests/golden/gguf_reader.py), the mutation
    python3 tests/golden/gguf_corpus.py compare DIR [--ggml GGUF_CHECK] [--afmt AFMT_VALIDATE [--info AFMT]]
        ggml's verdicts (gguf_check, built by bench/build_ggml.sh) against
        the expected ones, every difference classified by the rulebook's
        list of where ggml and afmt's policy differ (docs/FORMATS.md#gguf), and
        afmt's verdicts (afmt-validate --json, strict and --lenient) against
        the expected ones: verdict, and for a refusal its field and offset,
        and for a valid file every tensor's name, type, shape, offset and
        byte size; with --info, `afmt info --json` alike (verdict, every
        tensor, a refusal's field and offset).  Exit status 1 when a
        verdict differs that no rule explains, or info differs.

tests/golden/gguf_verdicts.sh runs both.  The writer (gguf_writer.py) and the
oracle (gguf_reader.py) are independent of afmt and of each other.
"""
import json
import os
import random
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gguf_reader import TYPES, read, read_infos  # noqa: E402
from gguf_writer import Arr, Kv, T, Tensor, V, gguf  # noqa: E402

U64_FIELD = re.compile(r"(tensor_count|kv_count|\.count|\.offset|\.ne\[\d+\]|\.key|\.name)$")  # u64 (or a length)
U32_FIELD = re.compile(r"(magic|version|\.type|\.n_dims)$")
INTERESTING = [0, 1, 2, 3, 4, 5, 7, 8, 13, 31, 32, 63, 64, 255, 256, 1 << 31, (1 << 32) - 1, 1 << 32,
               1 << 62, 1 << 63, (1 << 64) - 1]


def rand_string(rng, n_max=12):
    alphabet = "abcdefghijklmnopqrstuvwxyz_.0123456789" + "\u00e9\u4e2d\U0001f600"
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, n_max)))


def rand_scalar(rng, vt):
    if vt == V.STRING:
        return rand_string(rng)
    if vt == V.BOOL:
        return rng.randint(0, 1)
    if vt in (V.FLOAT32, V.FLOAT64):
        return rng.choice([0.0, -1.5, 3.25, 1e30 if vt == V.FLOAT64 else 1e10, rng.uniform(-1, 1)])
    bits = {V.UINT8: 8, V.INT8: 8, V.UINT16: 16, V.INT16: 16, V.UINT32: 32, V.INT32: 32, V.UINT64: 64,
            V.INT64: 64}[vt]
    signed = vt in (V.INT8, V.INT16, V.INT32, V.INT64)
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    return rng.choice([lo, hi, 0, rng.randint(lo, hi)])


# every value type but ARRAY, as array elements (gguf-py writes all of them)
SCALAR_TYPES = [t for t in range(13) if t != V.ARRAY]


def rand_array(rng, depth):
    et = rng.choice(SCALAR_TYPES + ([V.ARRAY] if depth < 2 and rng.random() < 0.3 else []))
    n = rng.choice([0, 1, 2, 5, rng.randint(0, 40)])
    if et == V.ARRAY:
        return Arr(et, [rand_array(rng, depth + 1) for _ in range(min(n, 4))])
    return Arr(et, [rand_scalar(rng, et) for _ in range(n)])


def vocabulary(rng, n):
    """A tokenizer as llama.cpp's converters write it: keys sharing the
    prefix tokenizer.ggml., a big string array and arrays of the same
    length beside it."""
    tokens = ["<unk>", "<s>", "</s>"] + ["\u2581" + rand_string(rng, 8) + str(i) for i in range(n - 3)]
    return [Kv("tokenizer.ggml.model", V.STRING, "llama"),
            Kv("tokenizer.ggml.tokens", V.ARRAY, Arr(V.STRING, tokens)),
            Kv("tokenizer.ggml.scores", V.ARRAY, Arr(V.FLOAT32, [-float(i) for i in range(n)])),
            Kv("tokenizer.ggml.token_type", V.ARRAY, Arr(V.INT32, [rng.choice([1, 2, 3, 6]) for _ in range(n)])),
            Kv("tokenizer.ggml.bos_token_id", V.UINT32, 1),
            Kv("tokenizer.ggml.eos_token_id", V.UINT32, 2)]


def rand_kvs(rng, alignment):
    arch = rng.choice(["llama", "gpt2", "qwen2", "t5"])
    kvs = [Kv("general.architecture", V.STRING, arch)]
    if rng.random() < 0.2:   # model parameters: keys with the architecture's prefix
        kvs += [Kv(arch + ".context_length", V.UINT32, 4096), Kv(arch + ".embedding_length", V.UINT32, 4096),
                Kv(arch + ".block_count", V.UINT32, 32), Kv(arch + ".rope.freq_base", V.FLOAT32, 10000.0),
                Kv(arch + ".attention.layer_norm_rms_epsilon", V.FLOAT32, 1e-5)]
    if rng.random() < 0.05:
        kvs += vocabulary(rng, rng.choice([3, 100, 1000, rng.randint(3, 20000)]))
    for i in range(rng.randint(0, 8)):
        vt = rng.choice(list(range(13)))
        key = "k%d.%s" % (i, rand_string(rng, 6))
        kvs.append(Kv(key, vt, rand_array(rng, 0) if vt == V.ARRAY else rand_scalar(rng, vt)))
    if alignment is not None:
        kvs.insert(rng.randint(0, len(kvs)), Kv("general.alignment", V.UINT32, alignment))
    return kvs


def rand_name(rng, i, names):
    """A tensor name: llama.cpp's blk.N.x, or UTF-8, up to 63 bytes, or
    empty (once), distinct from the others."""
    r = rng.random()
    if r < 0.08:
        name = rng.choice(["\u00e9t\u00e9.%d" % i, "\u4e2d\u6587.%d.weight" % i, "emoji.\U0001f600.%d" % i])
    elif r < 0.12:
        name = ("blk.%d." % i + "x" * 63)[:63]
    elif r < 0.14 and "" not in names:
        name = ""
    else:
        name = "blk.%d.%s" % (i, rng.choice(["attn_q.weight", "ffn_up.weight", "norm", "x"]))
    names.add(name)
    return name


def rand_tensors(rng):
    out, names = [], set()
    n = rng.choice([0, 1, 1, 2, 3, 5] + ([8, 20, 64] if rng.random() < 0.1 else []))
    for i in range(n):
        code = rng.choice(sorted(T.TABLE))
        _, blk, _ = T.TABLE[code]
        nd = rng.choice([0, 1, 1, 2, 2, 3, 4])
        ne = [blk * rng.randint(0 if rng.random() < 0.05 else 1, 3 if blk > 1 else 9)] if nd else []
        ne += [rng.randint(0 if rng.random() < 0.05 else 1, 3) for _ in range(nd - 1)]
        if nd == 0 and blk > 1:
            code = T.F32
        out.append(Tensor(rand_name(rng, i, names), ne, code,
                          data=bytes(rng.getrandbits(8) for _ in range(_nbytes(ne, code)))))
    return out


def _nbytes(ne, code):
    n = 1
    for x in ne:
        n *= x
    _, blk, size = T.TABLE[code]
    return n // blk * size


def _put(data, at, fmt, v):
    b = bytearray(data)
    struct.pack_into(fmt, b, at, v)
    return bytes(b)


def field_mutants(rng, data, at):
    """What a hidden corpus would hold of a field: the file cut at it or
    inside it, a count or length one more than it is or past the bytes
    left, a type code out of range, two tensors' offsets swapped."""
    out = []
    fields = [p for p in at if p not in ("data", "trailer") and at[p] < len(data)]
    p = rng.choice(fields)
    k = rng.choice([0, 1, 3, 7])
    out.append(("cut at %s+%d" % (p, k), data[:min(at[p] + k, len(data) - 1)]))
    counts = [p for p in at if re.search(r"(tensor_count|kv_count|\.count|\.key|\.name|\.value)$", p) and
              (not p.endswith(".value") or p + "#bytes" in at) and at[p] + 8 <= len(data)]
    if counts:
        p = rng.choice(counts)
        v = struct.unpack_from("<Q", data, at[p])[0]
        v = rng.choice([v + 1, v * 2 + 1, len(data) - at[p], len(data)])
        out.append(("inflate %s=%d" % (p, v), _put(data, at[p], "<Q", v & ((1 << 64) - 1))))
    codes = [p for p in at if re.search(r"(kv\[\d+\]\.type|\.value\.type|tensor\[\d+\]\.type)$", p)]
    if codes:
        p = rng.choice(codes)
        v = rng.choice([40, 41, 42, 4, 5, 31, 36, 99, 1 << 31] if p.startswith("tensor") else [13, 14, 255, 1 << 31])
        out.append(("type %s=%d" % (p, v), _put(data, at[p], "<I", v)))
    offs = [p for p in at if re.search(r"tensor\[\d+\]\.offset$", p)]
    if len(offs) >= 2:
        a, b = rng.sample(offs, 2)
        va, vb = struct.unpack_from("<Q", data, at[a])[0], struct.unpack_from("<Q", data, at[b])[0]
        out.append(("swap %s %s" % (a, b), _put(_put(data, at[a], "<Q", vb), at[b], "<Q", va)))
    return out


def mutants(rng, data, at):
    """(name, bytes) pairs derived from a valid file."""
    fields = [p for p in at if "#" not in p and p not in ("data", "trailer") and at[p] < len(data)]
    out = []
    # a field set to an interesting value, in its own width
    for _ in range(3):
        p = rng.choice(fields)
        width = 4 if U32_FIELD.search(p) else 8 if U64_FIELD.search(p) else None
        if width is None or at[p] + width > len(data):
            continue
        v = rng.choice(INTERESTING) & ((1 << (8 * width)) - 1)
        b = bytearray(data)
        struct.pack_into("<I" if width == 4 else "<Q", b, at[p], v)
        out.append(("set %s=%d" % (p, v), bytes(b)))
    # a cut, a flipped byte, trailing bytes, non-zero padding
    cut = rng.randint(0, len(data) - 1)
    out.append(("cut %d" % cut, data[:cut]))
    pos = rng.randint(0, min(len(data), at.get("data", len(data))) - 1)
    b = bytearray(data)
    b[pos] ^= 1 << rng.randint(0, 7)
    out.append(("flip %d" % pos, bytes(b)))
    if rng.random() < 0.5:
        out.append(("trailer", data + bytes([rng.randint(0, 255)]) * rng.randint(1, 40)))
    zeros = [i for i in range(at["data_padding"], len(data)) if data[i] == 0]
    if zeros and rng.random() < 0.5:
        b = bytearray(data)
        i = rng.choice(zeros)
        b[i] = rng.randint(1, 255)
        out.append(("nonzero %d" % i, bytes(b)))
    return out + field_mutants(rng, data, at)


def esc(text):
    """A field path as one manifest cell: a tensor's name is part of some
    paths and may hold any byte (a mutant's name may run into the next
    field), so tabs, newlines and the like are written escaped."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


def verdict(res):
    return "valid" if res["valid"] else "invalid"


def make(outdir, n, seed):
    rng = random.Random(seed)
    os.makedirs(outdir, exist_ok=True)
    rows = []
    for i in range(n):
        # (1, 2 and 4: lenient only, as version 2)
        align = rng.choice([None, None, None, 8, 16, 32, 64, 128, 256] + ([1, 2, 4, 4096] if rng.random() < 0.1
                                                                            else []))
        version = 2 if rng.random() < 0.03 else 3
        kvs, tensors = rand_kvs(rng, align), rand_tensors(rng)
        data, at = gguf(kvs, tensors, version=version)
        cases = [("valid" if version == 3 and (align or 8) >= 8 else "lenient-only", data)] + mutants(rng, data, at)
        if rng.random() < 0.1:   # a key or a tensor name twice (gguf.cpp refuses both)
            k = rng.choice(kvs)
            cases.append(("duplicate key %s" % k.key, gguf(kvs + [Kv(k.key, V.UINT8, 1)], tensors, version=version)[0]))
            if tensors:
                t = rng.choice(tensors)
                cases.append(("duplicate name %r" % t.name, gguf(kvs, tensors + [Tensor(t.name, [1], T.F32)],
                                                                 version=version)[0]))
        for j, (what, blob) in enumerate(cases):
            name = "r%04d_%d.gguf" % (i, j)
            with open(os.path.join(outdir, name), "wb") as f:
                f.write(blob)
            s, le = read(blob, False), read(blob, True)
            if j == 0:
                assert le["valid"] and (s["valid"] and not s["warnings"]) == (what == "valid"), (name, s, le)
            rows.append([name, verdict(s), verdict(le), esc(s.get("field", "-")), str(s.get("offset", "-")),
                         s.get("kind", "-"), what])
    with open(os.path.join(outdir, "manifest.tsv"), "w") as f:
        f.write("# file\tstrict\tlenient\tfield\toffset\tkind\tmutation\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    valid = sum(r[1] == "valid" for r in rows)
    print("gguf_corpus: %d files in %s (%d valid strict, %d lenient), seed %d"
          % (len(rows), outdir, valid, sum(r[2] == "valid" for r in rows), seed))


def load(outdir):
    rows = []
    for line in open(os.path.join(outdir, "manifest.tsv")):
        if not line.startswith("#"):
            rows.append(line.rstrip("\n").split("\t"))
    return rows


def policy_reason(blob):
    """Why the rulebook and gguf.cpp may disagree on this file, or None.
    A file that breaks a rule lenient mode tolerates and one it does not
    (version 2 and a ggml type 40) is judged by the one it does not."""
    s, le = read(blob, False), read(blob, True)
    if not s["valid"] and le["valid"]:
        return "tolerated in lenient only (%s: %s)" % (s["field"], s["message"])
    if not le["valid"]:
        e = le
        if e["kind"] == "overflow" and e["field"].endswith(".ne"):
            return "ne product >= 2^63 (gguf.cpp's guard wraps when the product wraps to 0)"
        if e["kind"] == "unknown-type" and ".type" in e["field"] and e["field"].startswith("tensor"):
            code = struct.unpack_from("<I", blob, e["offset"])[0]
            if code in (40, 41, 42):
                return "ggml type %d is newer than the rulebook's table" % code
        if e["kind"] == "truncated" and e["field"].endswith(".padding"):
            return "the last padding is cut (gguf.cpp with no_alloc does not read it)"
        if e["kind"] in ("truncated", "constraint") and _ggml_nbytes_wraps(blob):
            # (the tensor past the end, or the next offset not where the rulebook's size ends it)
            return "ggml_nbytes wraps (ne[0] x bytes per block >= 2^64: ggml sees a small tensor)"
        return None
    if _has_nested_array(le["metadata"]):
        return "arrays of arrays (gguf.cpp refuses them, the rulebook accepts them)"
    return None


def _ggml_nbytes_wraps(blob):
    """True when a quantized tensor's ne[0] x bytes per block is 2^64 or
    more: ggml_nbytes computes ne[0]*nb[0]/block in size_t, so gguf.cpp sees
    the tensor (and llama.cpp's in-file check) as that product mod 2^64
    (a 2^60-element Q4_K row: 144 bytes).  The rulebook's size has no
    wrap: such a tensor runs far past the end of the file."""
    infos = read_infos(blob)
    return any(t["ne"] and TYPES[t["code"]][1] > 1 and t["ne"][0] * TYPES[t["code"]][2] >= 1 << 64
               for t in infos or [])


def _has_nested_array(kvs):
    return any(kv["type"] == "array" and kv["value"]["type"] == "array" for kv in kvs)


def run_ggml(check, outdir, names):
    out = {}
    for k in range(0, len(names), 200):
        chunk = names[k:k + 200]
        p = subprocess.run([check] + [os.path.join(outdir, x) for x in chunk], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
        for line in p.stdout.split("\n"):
            if not line:
                continue
            v, path = line.split(" ", 1)
            out[os.path.basename(path)] = "valid" if v == "OK" else "invalid"
    return out


def run_afmt(validate, outdir, names, lenient, info=False):
    """afmt-validate --json (or, info: afmt info --json) on each file."""
    out = {}
    for k in range(0, len(names), 200):
        chunk = names[k:k + 200]
        cmd = [validate, "info", "--json", "-f", "gguf"] if info else [validate, "--json", "-j", "1", "-f", "gguf"]
        cmd += ["--lenient"] if lenient else []
        p = subprocess.run(cmd + [os.path.join(outdir, x) for x in chunk], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        for line in p.stdout.split("\n"):  # (not splitlines: a JSON string may hold U+2028, U+0085 raw)
            if not line:
                continue
            j = json.loads(line)
            out[os.path.basename(j["path"])] = j
    return out


def compare_tensors(blob, got, lenient):
    """Differences between the oracle's tensors and afmt's arrays."""
    want = read(blob, lenient)["tensors"]
    arrs = got.get("arrays", [])
    if len(arrs) != len(want):
        return ["%d arrays, expected %d" % (len(arrs), len(want))]
    diffs = []
    for w, a in zip(want, arrs):
        # (a name is a C string to ggml and to afmt's views: up to its first NUL)
        for key, wv, av in (("name", w["c_name"], a.get("name")), ("type", w["type"].lower(),
                                                             str(a.get("opaque_name") or a.get("dtype")).lower()),
                            ("shape", w["shape"], a.get("shape")), ("offset", w["absolute_offset"], a.get("offset")),
                            ("nbytes", w["nbytes"], a.get("nbytes"))):
            if wv != av:
                diffs.append("%s %s: %r, expected %r" % (w["name"], key, av, wv))
    return diffs


def _cut_items(err, row):
    """An array whose items the file cuts short, blamed by afmt where the
    bytes end: afmt holds an array's count to one byte an item before it
    reads any (the least any value type takes: memory stays bounded by the
    bytes present), then reads the items and blames the one the end cuts
    (kv[4].items[27].value); the oracle holds the count to the element
    type's size and blames the items as a whole at their first byte
    (kv[4].items).  Both name the array and a true offset in it."""
    field, kind = row[3], row[5]
    return (err.get("code") == "truncated" and kind == "truncated" and field.endswith(".items") and
            esc(err["field"]).startswith(field + "[") and err["offset"] >= int(row[4]))


def compare_info(outdir, rows, info, strict):
    """afmt info --json against the oracle: the same verdict, every tensor
    of a valid file (name, type, logical shape, absolute offset, byte size),
    and a refusal's field and offset as afmt-validate gives them.  The
    number of files that differ."""
    a = run_afmt(info, outdir, [r[0] for r in rows], False, info=True)
    bad = []
    for r in rows:
        j, v = a.get(r[0]), strict.get(r[0])
        if j is None or v is None:
            bad.append("%s: no output" % r[0])
        elif j["valid"] != (r[1] == "valid"):
            bad.append("%s: info says %s, expected %s" % (r[0], "valid" if j["valid"] else "invalid", r[1]))
        elif j["valid"]:
            d = compare_tensors(open(os.path.join(outdir, r[0]), "rb").read(), j, False)
            if d:
                bad.append("%s: info's tensors differ: %s" % (r[0], "; ".join(d[:3])))
        elif (j["error"]["field"], j["error"]["offset"]) != (v["error"]["field"], v["error"]["offset"]):
            bad.append("%s: info blames %s at %s, afmt-validate %s at %s" % (
                r[0], j["error"]["field"], j["error"]["offset"], v["error"]["field"], v["error"]["offset"]))
    print("afmt info --json vs rulebook: %d of %d files alike (verdict; every tensor of the %d valid ones; "
          "a refusal as afmt-validate's); %d differ" % (len(rows) - len(bad), len(rows),
                                                       sum(r[1] == "valid" for r in rows), len(bad)))
    for x in bad[:20]:
        print("    " + x)
    return len(bad)


def compare(outdir, ggml, validate, info=None):
    rows = load(outdir)
    names = [r[0] for r in rows]
    unexplained = 0
    if ggml:
        g = run_ggml(ggml, outdir, names)
        same, policy, odd = 0, {}, []
        for r in rows:
            if r[2] == "valid" and g.get(r[0]) != "valid":
                blob = open(os.path.join(outdir, r[0]), "rb").read()
                if not _has_nested_array(read(blob, True)["metadata"]):
                    odd.append("%s: lenient accepts what ggml refuses (%s)" % (r[0], r[6]))
            if g.get(r[0]) == r[1]:
                same += 1
                continue
            blob = open(os.path.join(outdir, r[0]), "rb").read()
            why = policy_reason(blob)
            if why:
                key = why.split(" (")[0]
                policy[key] = policy.get(key, 0) + 1
            else:
                odd.append("%s: ggml %s, rulebook %s (%s; %s)" % (r[0], g.get(r[0]), r[1], r[6], r[3]))
        print("ggml vs rulebook (strict): %d of %d agree; %d differ where the rulebook says so:"
              % (same, len(rows), sum(policy.values())))
        for k, v in sorted(policy.items()):
            print("  %4d  %s" % (v, k))
        print("  %4d  unexplained" % len(odd))
        for x in odd[:20]:
            print("    " + x)
        unexplained += len(odd)
    if validate:
        for mode, col in (("strict", 1), ("lenient", 2)):
            a = run_afmt(validate, outdir, names, mode == "lenient")
            if mode == "strict":
                strict = a
            ok_verdict = ok_where = 0
            bad, cut_items = [], []
            for r in rows:
                j = a.get(r[0])
                if j is None:
                    bad.append("%s: no output" % r[0])
                    continue
                got = "valid" if j["valid"] else "invalid"
                if got != r[col]:
                    bad.append("%s: afmt %s, expected %s (%s; expected %s at %s)%s" % (
                        r[0], got, r[col], r[6], r[3], r[4],
                        "" if j["valid"] else ": afmt says %s at %s: %s" % (
                            j["error"]["field"], j["error"]["offset"], j["error"]["message"])))
                    continue
                ok_verdict += 1
                blob = open(os.path.join(outdir, r[0]), "rb").read()
                if got == "valid":
                    d = compare_tensors(blob, j, mode == "lenient")
                    if d:
                        bad.append("%s: tensors differ: %s" % (r[0], "; ".join(d[:3])))
                        continue
                elif mode == "strict" and (esc(j["error"]["field"]), str(j["error"]["offset"])) != (r[3], r[4]) and \
                        not (j["error"].get("code") == "limit" and esc(j["error"]["field"]) == r[3]):
                    # (a limit of afmt's, a string longer than max_header_bytes, names the same
                    # field at its length prefix: right too)
                    if _cut_items(j["error"], r):
                        cut_items.append(r[0])
                        continue
                    bad.append("%s: afmt blames %s at %s, the oracle %s at %s (%s)" % (
                        r[0], j["error"]["field"], j["error"]["offset"], r[3], r[4], r[6]))
                    continue
                ok_where += 1
            print("afmt %s vs rulebook: %d of %d verdicts right, %d also right in detail (field and offset, "
                  "or every tensor); %d differ" % (mode, ok_verdict, len(rows), ok_where, len(bad)))
            if cut_items:
                print("  %4d  array cut short: afmt blames the item where the bytes end, the oracle the items as a "
                      "whole (%s ...)" % (len(cut_items), " ".join(cut_items[:3])))
            bad.sort(key=lambda x: ("expected" not in x.split(":")[1][:40], x))  # wrong verdicts first
            for x in bad[:40]:
                print("    " + x)
            unexplained += len(bad)
        if info:
            unexplained += compare_info(outdir, rows, info, strict)
    return 1 if unexplained else 0


def main(argv):
    if len(argv) >= 2 and argv[0] == "make":
        make(argv[1], int(argv[2]) if len(argv) > 2 else 200, int(argv[3]) if len(argv) > 3 else 1)
        return 0
    if len(argv) >= 2 and argv[0] == "compare":
        opts = dict(zip(argv[2::2], argv[3::2]))
        return compare(argv[1], opts.get("--ggml"), opts.get("--afmt"), opts.get("--info"))
    print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
