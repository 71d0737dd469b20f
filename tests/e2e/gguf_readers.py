#!/usr/bin/env python3
"""GGUF files read back by independent readers (tests/e2e/run_gguf_readers.sh).

    python3 tests/e2e/gguf_readers.py BUILD [VENV_PYTHON]

1. Always: the valid golden files tests/gguf/valid_*/input are read by the
   python reader (tests/golden/gguf_reader.py) and, with VENV_PYTHON (an
   interpreter that has gguf from PyPI: build/venv's), by llama.cpp's
   gguf-py (tests/e2e/gguf_py_read.py); both must report the same tensors (name,
   type, ne, absolute offset) and metadata (key, type, value).  This proves
   the harness on files afmt did not write.
2. When BUILD/afmt-validate knows GGUF: a file of real model sizes (a
   262,144-token vocabulary as Gemma's, 150,000 merges, scores, token types,
   a 12 KB chat template: about 6 MB of header) must validate with the
   default options, strict, without warnings (issue 20: real files pass the
   defaults).
3. When BUILD/afmt can write GGUF: files written by `afmt random --to gguf`
   and `afmt convert x.npy y.gguf` / `afmt convert x.safetensors y.gguf` are
   read the same way; they must be valid in strict mode without warnings,
   and every tensor must hold the values of its source (the npy array
   numpy wrote; the safetensors file afmt random wrote with the same seed),
   at the same logical index, in the same type; a GGUF of quantized tensors
   (tests/gguf/valid_quantized) converted to GGUF keeps every tensor's name,
   type, ne and bytes, and to safetensors is refused naming the type, no
   file left.  Typed metadata: every golden GGUF converted GGUF -> GGUF is
   the same bytes; safetensors' __metadata__ becomes GGUF string kvs and
   GGUF string kvs __metadata__, the others said dropped by name; the
   converted files are read alike by both readers (metadata values too).
   Otherwise one SKIP line says why.
Prints PASS/FAIL/SKIP lines; exit status 1 when a check failed.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tests", "golden"))
from gguf_reader import read, tensor_bytes  # noqa: E402

failures = 0


def check(name, ok, why=""):
    global failures
    print(("PASS " if ok else "FAIL ") + name + ("" if ok or not why else ": " + why))
    failures += not ok


def python_view(res):
    """The python reader's result in gguf_py_read.py's shape."""
    def val(kv_type, v, nested=False):
        # an array inside an array is the plain list of its items
        if kv_type == "array":
            items = [val(v["type"], x, True) for x in v["items"]]
            return items if nested else {"type": v["type"], "items": items}
        if kv_type in ("u64", "i64"):
            return str(v)
        return v
    tensors = [{"name": t["name"], "type": t["type"], "ne": [str(x) for x in t["ne"]], "offset": str(t["offset"]),
                "absolute_offset": str(t["absolute_offset"])} for t in res["tensors"]]
    meta = {kv["key"]: {"type": kv["type"], "value": val(kv["type"], kv["value"])} for kv in res["metadata"]}
    return tensors, meta


def peer_read(venv_python, files):
    p = subprocess.run([venv_python, os.path.join(HERE, "gguf_py_read.py")] + files, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    out = {}
    for line in p.stdout.splitlines():
        j = json.loads(line)
        out[j["file"]] = j
    return out, p.stderr.strip()


def same_value(a, b):
    if isinstance(a, float) or isinstance(b, float):
        return a == b or (a != a and b != b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.get("type") == b.get("type") and same_value(a["items"], b["items"])
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    return a == b


def shown(path):
    rel = os.path.relpath(path, ROOT)
    return os.path.basename(path) if rel.startswith("..") else rel


def compare_readers(label, files, venv_python):
    """Both readers on each file; returns the python results by file."""
    results = {}
    for f in files:
        with open(f, "rb") as fh:
            data = fh.read()
        res = read(data, lenient=False)
        check("%s: %s valid for the python reader" % (label, shown(f)),
              res["valid"] and not res["warnings"], res.get("message") or str(res.get("warnings")))
        results[f] = (data, res)
    if not venv_python:
        return results
    peer, err = peer_read(venv_python, files)
    for f in files:
        name = "%s: %s read alike by gguf-py" % (label, shown(f))
        j, (data, res) = peer.get(f), results[f]
        if j is not None and "is not a valid GGMLQuantizationType" in j.get("error", ""):
            # a ggml type newer than this gguf-py (tests/requirements.txt's pin)
            print("SKIP %s: gguf-py %s" % (name, j["error"]))
            continue
        if j is None or "error" in j or not res["valid"]:
            check(name, False, (j or {}).get("error") or err[:300])
            continue
        tensors, meta = python_view(res)
        why = []
        if j["tensors"] != tensors:
            why.append("tensors %s != %s" % (json.dumps(j["tensors"])[:300], json.dumps(tensors)[:300]))
        if j["tensor_data_offset"] != str(res["data_offset"]):
            why.append("data offset %s != %d" % (j["tensor_data_offset"], res["data_offset"]))
        for k in sorted(set(meta) | set(j["metadata"])):
            a, b = j["metadata"].get(k), meta.get(k)
            if a is None or b is None or a["type"] != b["type"] or not same_value(a["value"], b["value"]):
                why.append("metadata %r: %s != %s" % (k, json.dumps(a)[:200], json.dumps(b)[:200]))
        check(name, not why, "; ".join(why[:3]))
    return results


def real_sizes(build, tmp):
    sys.path.insert(0, os.path.join(ROOT, "tests", "golden"))
    from gguf_writer import Arr, Kv, T, Tensor, V, gguf
    n = 262144
    tokens = ["<t%d>" % i if i < 256 else "tok%x" % i for i in range(n)]
    merges = ["%s %s" % (tokens[300 + i % 5000], tokens[400 + i // 7]) for i in range(150000)]
    kvs = [Kv("general.architecture", V.STRING, "gemma2"), Kv("general.name", V.STRING, "real sizes"),
           Kv("tokenizer.ggml.model", V.STRING, "llama"), Kv("tokenizer.ggml.tokens", V.ARRAY, Arr(V.STRING, tokens)),
           Kv("tokenizer.ggml.scores", V.ARRAY, Arr(V.FLOAT32, [0.0] * n)),
           Kv("tokenizer.ggml.token_type", V.ARRAY, Arr(V.INT32, [1] * n)),
           Kv("tokenizer.ggml.merges", V.ARRAY, Arr(V.STRING, merges)),
           Kv("tokenizer.chat_template", V.STRING, "{% for m in messages %}{{ m.content }}{% endfor %}" * 240),
           Kv("gemma2.context_length", V.UINT32, 8192)]
    tensors = [Tensor("token_embd.weight", [256, 4], T.Q4_K), Tensor("output_norm.weight", [256], T.F32)]
    path = os.path.join(tmp, "real_sizes.gguf")
    with open(path, "wb") as f:
        f.write(gguf(kvs, tensors)[0])
    rc, out = run([os.path.join(build, "afmt-validate"), "--json", path])
    j = json.loads(out.splitlines()[0]) if out.startswith("{") else {}
    check("a 262,144-token vocabulary with 150,000 merges (%d bytes) validates with the default options, "
          "no warning" % os.path.getsize(path), rc == 0 and j.get("valid") and not j.get("warnings"), out[:300])


def afmt_knows_gguf(build):
    if not os.access(os.path.join(build, "afmt-validate"), os.X_OK):
        return False
    p = subprocess.run([os.path.join(build, "afmt-validate"), "--help"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return "gguf" in p.stdout


def afmt_writes_gguf(build, tmp):
    """None when afmt writes GGUF (a one-array `afmt random` works), else why not."""
    p = subprocess.run([os.path.join(build, "afmt"), "formats"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if not any(line.split()[:1] == ["gguf"] for line in p.stdout.splitlines()):
        return "no gguf in `afmt formats`"
    rc, out = run([os.path.join(build, "afmt"), "random", "--to", "gguf", "-o", os.path.join(tmp, "probe.gguf"),
                   "[2]f32"])
    return None if rc == 0 else "afmt random --to gguf [2]f32: " + out.splitlines()[0] if out else "exit %d" % rc


def safetensors_arrays(path):
    """[(name, dtype, shape, bytes)] of a safetensors file, in data order."""
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack_from("<Q", data)[0]
    head = json.loads(data[8:8 + n])
    head.pop("__metadata__", None)
    out = [(k, v["dtype"], v["shape"], data[8 + n + v["data_offsets"][0]:8 + n + v["data_offsets"][1]])
           for k, v in head.items()]
    return sorted(out, key=lambda x: (len(x[3]) == 0, head[x[0]]["data_offsets"][0]))


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, (p.stdout + p.stderr).strip()


def metadata_conversions(afmt, tmp):
    """Typed metadata: every golden GGUF converted GGUF -> GGUF is the same
    bytes (every kv kept: types, order; tensors and their bytes); string kvs
    to and from safetensors' __metadata__, the others said dropped by name.
    Returns files for the independent readers."""
    golden = os.path.join(ROOT, "tests", "gguf")
    out = []
    for d in sorted(os.listdir(golden)):
        src = os.path.join(golden, d, "input")
        if not d.startswith("valid_") or not os.path.isfile(src):
            continue
        dst = os.path.join(tmp, d + ".gguf")
        rc, msg = run([afmt, "convert", src, dst, "--to", "gguf"])
        with open(src, "rb") as f:
            want = f.read()
        got = open(dst, "rb").read() if rc == 0 and os.path.exists(dst) else b""
        if d == "valid_tensor_name_empty":
            # an empty name is no name: written as arr_0 (the one naming
            # rule, docs/FORMATS.md), the values as they were
            rc2, info = run([afmt, "info", "--json", dst])
            names = [a["name"] for a in json.loads(info)["arrays"]] if rc2 == 0 else info
            same = run([afmt, "dump", src]) == run([afmt, "dump", dst])
            check("afmt convert %s GGUF -> GGUF: the unnamed tensor is arr_0, its values kept" % d,
                  rc == 0 and names == ["arr_0"] and same, "%s %s" % (msg[:200], names))
            continue
        check("afmt convert %s GGUF -> GGUF: the same %d bytes (metadata kept)" % (d, len(want)), got == want,
              msg[:200] if rc else "%d bytes differ from byte %d" % (len(got), next(
                  (i for i, (x, y) in enumerate(zip(got, want)) if x != y), min(len(got), len(want)))))
        if d in ("valid_every_value_type", "valid_base") and got == want:
            out.append(dst)
    # safetensors __metadata__ -> GGUF string kvs
    st = os.path.join(ROOT, "examples", "model.safetensors")
    g = os.path.join(tmp, "from_st.gguf")
    rc, msg = run([afmt, "convert", st, g])
    res = read(open(g, "rb").read()) if rc == 0 else {"metadata": []}
    check("safetensors __metadata__ {\"format\": \"pt\"} -> a GGUF string kv", rc == 0 and
          [(kv["key"], kv["type"], kv["value"]) for kv in res["metadata"]] == [("format", "string", "pt")], msg[:200])
    if rc == 0:
        out.append(g)
    # GGUF kvs -> safetensors: strings kept, the others dropped, each said
    src = os.path.join(golden, "valid_every_value_type", "input")
    s = os.path.join(tmp, "every_value_type.safetensors")
    rc, msg = run([afmt, "convert", src, s])
    meta = {}
    if rc == 0:
        with open(s, "rb") as f:
            data = f.read()
        meta = json.loads(data[8:8 + struct.unpack_from("<Q", data)[0]]).get("__metadata__", {})
    want = read(open(src, "rb").read())
    strings = {kv["key"]: kv["value"] for kv in want["metadata"] if kv["type"] == "string"}
    others = [kv["key"] for kv in want["metadata"] if kv["type"] != "string"]
    check("GGUF string kvs -> safetensors __metadata__ (%d of them)" % len(strings), rc == 0 and meta == strings,
          "%s != %s: %s" % (meta, strings, msg[:200]))
    check("GGUF non-string kvs -> safetensors: each said dropped by name on stderr (%d)" % len(others),
          all(("metadata key '%s' dropped" % k) in msg for k in others), msg[:300])
    return out


def afmt_written(build, tmp, venv_python):
    afmt = os.path.join(build, "afmt")
    types = ["[3][5]f32", "[7]i64", "[2][2][2]f16", "[4]bf16", "[3]f64", "[9]i8", "[2]i16", "[2]i32", "f32"]
    g, s = os.path.join(tmp, "random.gguf"), os.path.join(tmp, "random.safetensors")
    files = []
    rc, out = run([afmt, "random", "-s", "7", "--to", "gguf", "-o", g] + types)
    rc2, out2 = run([afmt, "random", "-s", "7", "--to", "safetensors", "-o", s] + types)
    check("afmt random --to gguf writes %s" % " ".join(types), rc == 0 and rc2 == 0, out + out2)
    if rc == 0:
        files.append(g)
    try:
        import numpy as np
    except ImportError:
        np = None
        print("SKIP gguf from .npy: python3-numpy is not installed")
    npys = []
    if np is not None:
        for name, arr in (("f32_3x4", np.arange(12, dtype="<f4").reshape(3, 4) - 5.5),
                          ("i16_2x3x2", np.arange(12, dtype="<i2").reshape(2, 3, 2) * -7),
                          ("u8_5", np.array([0, 1, 127, 128, 255], dtype="u1")),
                          ("f64_scalar", np.array(2.5, dtype="<f8"))):
            src, dst = os.path.join(tmp, name + ".npy"), os.path.join(tmp, name + ".gguf")
            np.save(src, arr)
            rc, out = run([afmt, "convert", src, dst])
            if arr.dtype == np.uint8 and rc != 0:
                # GGUF has no u8 tensor type: a refusal naming it, and no file left, is right
                check("afmt convert u8_5.npy u8_5.gguf: refused, nothing written", not os.path.exists(dst), out)
                continue
            check("afmt convert %s.npy %s.gguf" % (name, name), rc == 0, out)
            if rc == 0:
                files.append(dst)
                npys.append((dst, arr))
    # quantized tensors: copied byte for byte GGUF -> GGUF, refused by name elsewhere
    qsrc = os.path.join(ROOT, "tests", "gguf", "valid_quantized", "input")
    qdst, qst = os.path.join(tmp, "quantized.gguf"), os.path.join(tmp, "quantized.safetensors")
    rc, out = run([afmt, "convert", qsrc, qdst, "--to", "gguf"])
    check("afmt convert a GGUF of quantized tensors to GGUF", rc == 0, out)
    if rc == 0:
        files.append(qdst)
    rc, out = run([afmt, "convert", qsrc, qst])
    check("afmt convert quantized GGUF -> safetensors: refused naming the type, nothing written",
          rc != 0 and "Q4_0" in out and not os.path.exists(qst), "exit %d: %s" % (rc, out[:200]))
    files += metadata_conversions(afmt, tmp)
    results = compare_readers("afmt-written", files, venv_python)
    if qdst in results and results[qdst][1]["valid"]:
        with open(qsrc, "rb") as f:
            src = f.read()
        want, (data, got) = read(src), results[qdst]
        same = [(t["name"], t["type"], t["ne"]) for t in want["tensors"]] == \
            [(t["name"], t["type"], t["ne"]) for t in got["tensors"]] and \
            all(tensor_bytes(src, want, t["name"]) == tensor_bytes(data, got, t["name"]) for t in want["tensors"])
        check("quantized.gguf: every tensor's name, type, ne and bytes as in the source", same)
    if g in results and os.path.exists(s):
        data, res = results[g]
        want = safetensors_arrays(s)
        got = res.get("tensors", [])
        check("random.gguf holds %d tensors like random.safetensors" % len(want), len(got) == len(want),
              "%d != %d" % (len(got), len(want)))
        # safetensors sorts its arrays (by type, then name); GGUF keeps the order given: matched by name
        by_name = {w[0]: w for w in want}
        check("random.gguf names its tensors as random.safetensors does, in the order given",
              [t["name"] for t in got] == ["arr_%d" % i for i in range(len(types))] and
              sorted(by_name) == sorted(t["name"] for t in got), str([t["name"] for t in got]))
        for t in got:
            name, dtype, shape, raw = by_name.get(t["name"], (t["name"], None, None, None))
            ok = t["type"] == dtype and t["shape"] == shape and tensor_bytes(data, res, t["name"]) == raw
            check("random.gguf tensor %s: %s%s, same bytes as safetensors %s" % (t["name"], t["type"], t["shape"],
                                                                                 name), ok,
                  "%s%s vs %s%s" % (t["type"], t["shape"], dtype, shape))
    for dst, arr in npys:
        if dst not in results or not results[dst][1]["valid"]:
            continue
        data, res = results[dst]
        t = res["tensors"][0] if len(res["tensors"]) == 1 else None
        want_type = {"float32": "F32", "int16": "I16", "uint8": None, "float64": "F64"}[arr.dtype.name]
        if want_type is None:
            # written after all: as a wider integer type, every value exact
            wide = {"I16": "<i2", "I32": "<i4", "I64": "<i8"}.get(t["type"]) if t else None
            ok = wide is not None and t["shape"] == list(arr.shape) and \
                tensor_bytes(data, res, t["name"]) == arr.astype(wide).tobytes()
            check("%s: u8 written as a wider integer type, values exact" % os.path.basename(dst), ok, str(t))
            continue
        ok = t is not None and t["type"] == want_type and t["shape"] == list(arr.shape) and \
            tensor_bytes(data, res, t["name"]) == arr.tobytes()
        check("%s: one %s%s tensor, values of the .npy at the same indices" % (os.path.basename(dst), want_type,
                                                                             list(arr.shape)), ok, str(t))


def main(argv):
    build = argv[0] if argv else "build"
    venv_python = argv[1] if len(argv) > 1 and argv[1] else None
    golden = os.path.join(ROOT, "tests", "gguf")
    files = sorted(os.path.join(golden, d, "input") for d in os.listdir(golden)
                   if d.startswith("valid_") and os.path.isdir(os.path.join(golden, d)))
    compare_readers("golden", files, venv_python)
    if not afmt_knows_gguf(build):
        print("SKIP gguf-readers real sizes: %s/afmt-validate does not know GGUF yet" % build)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            real_sizes(build, tmp)
    with tempfile.TemporaryDirectory() as tmp:
        why = afmt_writes_gguf(build, tmp)
        if why:
            print("SKIP gguf-readers afmt-written: %s/afmt cannot write GGUF yet (%s)" % (build, why))
        else:
            afmt_written(build, tmp, venv_python)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
