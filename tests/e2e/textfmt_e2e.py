#!/usr/bin/env python3
"""End-to-end checks of .npy and safetensors against real clients.

numpy (python3-numpy) writes .npy files of every supported dtype, both byte
orders, C and Fortran order, scalars, empty arrays and versions 1.0, 2.0 and
3.0: afmt must accept them, convert them to every format that holds the
dtype and back with the same values, and write .npy files that np.load reads
with the same values (byte for byte what np.save writes for little-endian,
C-order arrays).  Safetensors files come from tests/golden/textfmt.py, an
independent writer; afmt's own safetensors files are read back with json
and struct and compared with that writer's output.
Usage: textfmt_e2e.py BUILD_DIR   (prints one PASS/FAIL line per check)
"""
import io
import json
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden"))
from textfmt import st_file  # noqa: E402

import numpy as np  # noqa: E402

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
AFMT = os.path.join(BUILD, "afmt")
VALIDATE = os.path.join(BUILD, "afmt-validate")
T = tempfile.mkdtemp()
fails = 0


def check(name, cond, detail=""):
    global fails
    if cond:
        print("PASS textfmt: " + name)
    else:
        fails += 1
        print("FAIL textfmt: %s %s" % (name, detail))


def run(*args):
    p = subprocess.run(list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode(errors="replace") + p.stderr.decode(errors="replace")


def same(a, b):
    a = np.asarray(a)
    b = np.asarray(b)
    if a.shape != b.shape or a.dtype.newbyteorder("=") != b.dtype.newbyteorder("="):
        return False
    if a.dtype.kind in "fc":
        return np.array_equal(a, b, equal_nan=True)
    return np.array_equal(a, b)


DTYPES = ["?", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16"]
# what each other format holds (a refusal there is the right answer)
TARGETS = ["rawarray", "tenbin", "futhark", "daphne", "inebin", "safetensors"]
EXT = {"rawarray": ".ra", "tenbin": ".ten", "futhark": ".bin", "daphne": ".dbdf", "inebin": ".inebin",
       "safetensors": ".safetensors", "npy": ".npy"}
rng = np.random.default_rng(11)


def sample(dt, shape):
    n = int(np.prod(shape)) if shape else 1
    if dt == "?":
        v = rng.integers(0, 2, n).astype(bool)
    elif dt[0] in "iu":
        info = np.iinfo(dt)
        v = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    elif dt[0] == "f":
        v = rng.standard_normal(n).astype(dt)
        if n >= 3:
            v[0], v[1], v[2] = np.inf, -0.0, np.nan
    else:
        v = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
    return v.reshape(shape)


n_files = 0
for dt in DTYPES:
    for endian in ("<", ">"):
        if endian == ">" and dt in ("?", "i1", "u1"):
            continue
        for shape, fortran, version in (((2, 3), False, None), ((), False, None), ((0, 4), False, None),
                                        ((3, 4, 2), True, None), ((5,), False, (2, 0)), ((5,), False, (3, 0))):
            a = sample(dt, shape).astype(np.dtype(dt).newbyteorder(endian))
            if fortran:
                a = np.asfortranarray(a)
            name = "%s_%s_%s%s%s" % (dt.replace("?", "b1"), "le" if endian == "<" else "be",
                                      "x".join(map(str, shape)) or "scalar", "_F" if fortran else "",
                                      "_v%d" % version[0] if version else "")
            src = os.path.join(T, name + ".npy")
            if version:
                with open(src, "wb") as f:
                    np.lib.format.write_array(f, a, version=version)
            else:
                np.save(src, a)
            n_files += 1
            rc, out = run(VALIDATE, src)
            check("numpy's %s validates" % name, rc == 0 and ": ok npy" in out, out)
            dst = os.path.join(T, name + ".afmt.npy")
            rc, out = run(AFMT, "convert", src, dst)
            ok = rc == 0 and same(np.load(dst), a)
            check("np.load reads afmt's copy of %s with the same values" % name, ok, out)
            if ok and endian == "<" and not fortran and not version:
                check("afmt writes %s byte for byte as np.save" % name, open(dst, "rb").read() == open(src, "rb").read())
            for tgt in TARGETS:
                mid = os.path.join(T, name + EXT[tgt])
                back = os.path.join(T, name + "." + tgt + ".npy")
                rc, out = run(AFMT, "convert", "--to", tgt, src, mid)
                if rc != 0:
                    # a refusal must say why, never crash
                    check("%s -> %s refused cleanly" % (name, tgt), rc == 1 and out.strip() != "", out)
                    continue
                rc, out = run(AFMT, "convert", "--to", "npy", mid, back)
                check("%s -> %s -> npy keeps the values" % (name, tgt), rc == 0 and same(np.load(back), a), out)

check("numpy wrote %d files" % n_files, n_files > 100)

# ---------------------------------------------------------------- safetensors
tensors = [("a.weight", "F32", (2, 3), np.arange(6, dtype="<f4")), ("a.bias", "I64", (3,), np.array([-1, 0, 7], "<i8")),
           ("emb", "BF16", (2,), np.array([0x3f80, 0xc000], "<u2")), ("mask", "BOOL", (4,), np.array([1, 0, 0, 1], "u1")),
           ("z", "U8", (0,), np.zeros(0, "u1"))]
# in the reference's order (its serialize sorts by its Dtype enum, later
# entries first, then by name): the enum in its order
order = {t: i for i, t in enumerate(["BOOL", "F4", "F6_E2M3", "F6_E3M2", "U8", "I8", "F8_E5M2", "F8_E4M3", "F8_E8M0",
                                     "F8_E4M3FNUZ", "F8_E5M2FNUZ", "I16", "U16", "F16", "BF16", "I32", "U32", "F32",
                                     "C64", "F64", "I64", "U64"])}


def reference_order(ts):
    return sorted(ts, key=lambda t: (-order[t[1]], t[0].encode()))


tensors = reference_order(tensors)
st = os.path.join(T, "model.safetensors")
with open(st, "wb") as f:
    f.write(st_file([(n, d, s, v.tobytes()) for n, d, s, v in tensors]))
rc, out = run(VALIDATE, "-v", st)
check("independent safetensors file validates", rc == 0 and "ok safetensors" in out, out)
rc, out = run(AFMT, "info", st)
check("info names every tensor", rc == 0 and all((" %s %s[" % (n, {"F32": "f32", "I64": "i64", "BF16": "bf16",
                                                                    "BOOL": "bool", "U8": "u8"}[d])) in out
                                                for n, d, *_ in tensors), out)

# afmt's own safetensors: a file in the reference's layout comes back byte
# for byte (the writer keeps the order it reads, which is the data order)
def reference_bytes(ts):
    return st_file([(n, d, s, v.tobytes()) for n, d, s, v in ts])


out_st = os.path.join(T, "rewritten.safetensors")
rc, out = run(AFMT, "convert", "--to", "safetensors", st, out_st)
if rc == 0:
    got = open(out_st, "rb").read()
    n = struct.unpack("<Q", got[:8])[0]
    hdr = json.loads(got[8:8 + n])
    names = [k for k in hdr if k != "__metadata__"]
    check("names kept through afmt's safetensors writer", sorted(names) == sorted(t[0] for t in tensors), str(names))
    check("afmt rewrites a reference-layout safetensors file byte for byte", got == reference_bytes(tensors),
          "%r\n%r" % (got[:200], reference_bytes(tensors)[:200]))
    for name, d, s, v in tensors:
        b, e = hdr[name]["data_offsets"]
        check("tensor %s read back with json+struct" % name,
              got[8 + n + b:8 + n + e] == v.tobytes() and hdr[name]["shape"] == list(s) and hdr[name]["dtype"] == d)
else:
    check("afmt converts safetensors to safetensors", False, out)

# any other order (here: by name, and its reverse) is written in the
# reference's order, so the output is what the reference writes
for label, ts in (("name order", sorted(tensors, key=lambda t: t[0])),
                  ("reverse name order", sorted(tensors, key=lambda t: t[0], reverse=True)),
                  ("same type, names out of order", [("b", "F32", (1,), np.ones(1, "<f4")),
                                                     ("B", "F32", (1,), np.zeros(1, "<f4")),
                                                     ("a", "F32", (2,), np.ones(2, "<f4"))])):
    src = os.path.join(T, "order.safetensors")
    with open(src, "wb") as f:
        f.write(reference_bytes(ts))
    dst = os.path.join(T, "order.out.safetensors")
    rc, out = run(AFMT, "convert", "--to", "safetensors", src, dst)
    check("a file in %s is rewritten in the reference's order, byte for byte" % label,
          rc == 0 and open(dst, "rb").read() == reference_bytes(reference_order(ts)), out)

# 8-bit floats (opaque bytes to afmt) keep their type names through afmt's
# writer; every format without those types refuses them and says which
F8 = [("f8a", "F8_E4M3", (2,), b"\x01\x02"), ("f8b", "F8_E5M2", (3,), b"\x03\x04\xfc"),
      ("f8c", "F8_E8M0", (1,), b"\x7f"), ("f8d", "F8_E4M3FNUZ", (1,), b"\x80"), ("f8e", "F8_E5M2FNUZ", (2, 1), b"\x81\xff"),
      ("w", "F32", (1,), b"\x00\x00\x80\x3f")]
src = os.path.join(T, "f8.safetensors")
with open(src, "wb") as f:
    f.write(st_file(reference_order(F8)))
rc, out = run(AFMT, "info", src)
check("info names the 8-bit float types", rc == 0 and all("opaque(%s)[" % d in out for _, d, _, _ in F8[:5]), out)
for label, ts in (("reference order", reference_order(F8)), ("name order", F8)):
    with open(src, "wb") as f:
        f.write(st_file(ts))
    dst = os.path.join(T, "f8.out.safetensors")
    rc, out = run(AFMT, "convert", "--to", "safetensors", src, dst)
    check("8-bit float types written back byte for byte (%s)" % label,
          rc == 0 and open(dst, "rb").read() == st_file(reference_order(F8)), out)
for name, d, s, payload in F8[:5]:
    one = os.path.join(T, "one_f8.safetensors")
    with open(one, "wb") as f:
        f.write(st_file([(name, d, (len(payload), 1), payload)]))  # 2-d: inebin looks at the rank first
    for tgt in ("npy", "rawarray", "tenbin", "futhark", "daphne", "inebin"):
        rc, out = run(AFMT, "convert", "--to", tgt, one, os.path.join(T, "one_f8" + EXT[tgt]))
        check("%s to %s is refused and named" % (d, tgt), rc == 1 and ("cannot hold elements of type %s" % d) in out
              or (tgt == "daphne" and rc == 1 and "opaque(%s)" % d in out), out)

# no tensors: written as the reference writes them (its test_empty bytes)
for label, meta, want in (("no tensors", None, b"\x08" + b"\0" * 7 + b"{}      "),
                          ("only metadata", {"framework": "pt"},
                           b"\x28" + b"\0" * 7 + b'{"__metadata__":{"framework":"pt"}}     ')):
    src = os.path.join(T, "empty.safetensors")
    with open(src, "wb") as f:
        f.write(st_file([], metadata=meta))
    rc, out = run(VALIDATE, src)
    check("a file of %s validates" % label, rc == 0, out)
    dst = os.path.join(T, "empty.out.safetensors")
    rc, out = run(AFMT, "convert", "--to", "safetensors", src, dst)
    check("a file of %s is written as the reference writes it" % label,
          rc == 0 and open(dst, "rb").read() == want, out)

# afmt-validate's limit options: over the limit rejected, naming it; raised, accepted
big_hdr = os.path.join(T, "big_header.safetensors")
with open(big_hdr, "wb") as f:
    f.write(st_file([("t%06d" % i, "F32", (1,), b"\0\0\0\0") for i in range(30000)]))  # a 2 MB header
HINT = "(limits.max_header_bytes) (raise it with --max-header-bytes N)"
for args, ok, says in (([], True, "ok safetensors"), (["--max-header-bytes", "1M"], False, HINT),
                       (["--max-header-bytes", "4M"], True, "ok safetensors"),
                       (["--max-header-bytes", "4M", "--max-items", "1000"], False,
                        "more than 1000 entries in one object (limits.max_items) (raise it with --max-items N)"),
                       (["--max-header-bytes", "4M", "--max-depth", "2"], False, "(limits.max_depth) (raise it with --max-depth N)"),
                       (["--max-header-bytes", "4M", "--max-depth", "3", "--max-items", "30000"], True, "ok safetensors")):
    rc, out = run(VALIDATE, *args, big_hdr)
    check("afmt-validate %s on a 2 MB header" % " ".join(args), rc == (0 if ok else 1) and says in out, out)
rc, out = run(VALIDATE, "--max-depth", "0", big_hdr)
check("--max-depth 0 is a usage error", rc == 2 and "--max-depth needs a number from 1 to 32" in out, out)

# The same options on afmt info, dump and convert (one shared parser): the
# 2 MB header read by default (safetensors' own limit is 100 MB), refused
# under a 1M limit naming the limit and the option, read when it is raised.
big_out = os.path.join(T, "big_header.out.safetensors")
for cmd, extra, ok_says in (("info", [], "valid"), ("dump", ["--list"], "# [29999] t029999 f32[1]"),
                            ("convert", [big_out], "")):
    for args, ok, says in (([], True, ok_says), (["--max-header-bytes", "1M"], False, HINT),
                           (["--max-header-bytes", "4M"], True, ok_says),
                           (["--max-header-bytes", "4M", "--max-items", "1000"], False, "more than 1000 entries"),
                           (["--max-header-bytes", "4M", "--max-depth", "2"], False, "(limits.max_depth)")):
        if os.path.exists(big_out):
            os.unlink(big_out)
        rc, out = run(AFMT, cmd, *args, big_hdr, *extra)
        check("afmt %s %s on a 2 MB header" % (cmd, " ".join(args)),
              rc == (0 if ok else 1) and says in out and (cmd != "convert" or os.path.exists(big_out) == ok), out[-600:])
    rc, out = run(AFMT, cmd, "--max-items", "0", big_hdr, *extra)
    check("afmt %s --max-items 0 is a usage error" % cmd,
          rc == 2 and "afmt %s: --max-items needs a positive number" % cmd in out, out)
rc, out = run(AFMT, "convert", "--max-header-bytes", "4M", big_hdr, big_out)
rc2, out2 = run(VALIDATE, "--max-header-bytes", "4M", big_out)
check("the converted 2 MB header validates with the limit raised",
      rc == 0 and rc2 == 0 and "ok safetensors" in out2 and open(big_out, "rb").read() == open(big_hdr, "rb").read(),
      out + out2)

# Long names: afmt keeps 255 bytes of a name (AFMT_NAME_MAX - 1).  A
# longer safetensors key is shown as cut (never as if whole); a writer that
# stores names writes what fits and stderr says so (issue 25, point 13),
# and with --keep-names refuses it, naming its length; formats without
# names take the array; a 255-byte name comes back exactly.
long_name, edge_name = "w" * 290 + ".long_tail", "e" * 255
long_st = os.path.join(T, "long_name.safetensors")
with open(long_st, "wb") as f:
    f.write(st_file([(long_name, "F32", (2,), b"\0" * 8), ("short", "F32", (2,), b"\0" * 8)]))
rc, out = run(VALIDATE, "-v", long_st)
check("a 300-byte name validates and is shown as cut",
      rc == 0 and "...(a name of 300 bytes, the first 255 shown)" in out, out)
rc, out = run(AFMT, "info", "--json", long_st)
check("info --json gives a cut name's length", rc == 0 and '"name_bytes":300' in out, out[-300:])
rc, out = run(AFMT, "dump", "--list", long_st)
check("dump --list shows a cut name as cut", rc == 0 and "(a name of 300 bytes, the first 255 shown)" in out, out[-300:])
for target in ("safetensors", "daphne", "tenbin"):
    dst = os.path.join(T, "long_name.out")
    if os.path.exists(dst):
        os.unlink(dst)
    rc, out = run(AFMT, "convert", "--keep-names", "--to", target, long_st, dst)
    says = "does not fit 8 bytes" if target == "tenbin" else "has 300 bytes, of which afmt keeps 255"
    check("with --keep-names a 300-byte name is refused by the %s writer, with the reason" % target,
          rc == 1 and says in out and not os.path.exists(dst), out[-400:])
    rc, out = run(AFMT, "convert", "--to", target, long_st, dst)
    check("a 300-byte name is shortened by the %s writer, and stderr says so" % target,
          rc == 0 and "shortened" in out and os.path.exists(dst), out[-400:])
    if os.path.exists(dst):
        os.unlink(dst)
one_long = os.path.join(T, "one_long.safetensors")
with open(one_long, "wb") as f:
    f.write(st_file([(long_name, "F32", (2,), struct.pack("<2f", 1.5, -2.0))]))
rc, out = run(AFMT, "convert", one_long, os.path.join(T, "one_long.npy"))
check("a format without names takes an array of a 300-byte name",
      rc == 0 and same(np.load(os.path.join(T, "one_long.npy")), np.array([1.5, -2.0], dtype=np.float32)), out)
edge_st, edge_out = os.path.join(T, "edge_name.safetensors"), os.path.join(T, "edge_name.out.safetensors")
with open(edge_st, "wb") as f:
    f.write(st_file([(edge_name, "F32", (2,), b"\0" * 8)]))
rc, out = run(AFMT, "convert", edge_st, edge_out)
check("a 255-byte name is written back exactly",
      rc == 0 and open(edge_out, "rb").read() == open(edge_st, "rb").read(), out)

# __metadata__ kept: written back first and compactly, as the reference
# does, so a reference-layout file with metadata comes back byte for byte,
# from a file and from a pipe (the header is gone from the window by the
# time the writer runs); escapes and non-ASCII text keep their values.
META_CASES = [
    ("ascii metadata", {"format": "pt", "note": "a \"quoted\" \\ tab\t newline\n"}, True),
    ("empty metadata", {}, True),
    ("non-ASCII metadata", {"auteur": "\u00e9l\u00e8ve \U0001f600", "ctl": "\x01"}, False),
]
for label, meta, identical in META_CASES:
    src = os.path.join(T, "meta.safetensors")
    with open(src, "wb") as f:
        f.write(st_file([(n, d, s, v.tobytes()) for n, d, s, v in tensors], metadata=meta))
    for how in ("file", "pipe"):
        dst = os.path.join(T, "meta.out.safetensors")
        if how == "file":
            rc, out = run(AFMT, "convert", "--to", "safetensors", src, dst)
        else:
            with open(src, "rb") as f:
                p = subprocess.run([AFMT, "convert", "--to", "safetensors", "-", dst], stdin=f,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            rc, out = p.returncode, p.stdout.decode(errors="replace")
        if rc != 0:
            check("%s through convert (%s)" % (label, how), False, out)
            continue
        got = open(dst, "rb").read()
        n = struct.unpack("<Q", got[:8])[0]
        hdr = json.loads(got[8:8 + n])
        check("%s kept through convert (%s)" % (label, how),
              list(hdr)[0] == "__metadata__" and hdr["__metadata__"] == meta, repr(got[:160]))
        if identical:
            check("%s: rewritten byte for byte (%s)" % (label, how), got == open(src, "rb").read(), repr(got[:160]))
with open(os.path.join(T, "meta_f32.safetensors"), "wb") as f:
    f.write(st_file([("w", "F32", (2,), np.ones(2, "<f4").tobytes())], metadata={"format": "pt"}))
rc, out = run(AFMT, "convert", "--to", "tenbin", os.path.join(T, "meta_f32.safetensors"), os.path.join(T, "meta.ten"))
check("metadata does not stop a conversion to a format without metadata", rc == 0, out)

# names through tenbin (which has no bf16 or bool) and back
st2 = os.path.join(T, "model2.safetensors")
kept = [t for t in tensors if t[1] in ("F32", "I64", "U8")]
with open(st2, "wb") as f:
    f.write(st_file([(n, d, s, v.tobytes()) for n, d, s, v in kept]))
ten = os.path.join(T, "model.ten")
back = os.path.join(T, "model.back.safetensors")
rc1, out1 = run(AFMT, "convert", "--to", "tenbin", st2, ten)
rc2, out2 = run(AFMT, "convert", "--to", "safetensors", ten, back)
if rc1 == 0 and rc2 == 0:
    g = open(back, "rb").read()
    n = struct.unpack("<Q", g[:8])[0]
    hdr = json.loads(g[8:8 + n])
    check("tensor names survive safetensors -> tenbin -> safetensors",
          sorted(k for k in hdr) == sorted(t[0] for t in kept), str(list(hdr)))
else:
    check("safetensors -> tenbin -> safetensors", False, out1 + out2)

# a map to .npy: one array per file, so afmt refuses rather than drop any
rc, out = run(AFMT, "convert", "--to", "npy", st, os.path.join(T, "model.npy"))
check("several tensors to .npy is refused with a reason", rc == 1 and "npy holds one array" in out, out)
one = os.path.join(T, "one.safetensors")
with open(one, "wb") as f:
    f.write(st_file([("x", "F32", (2, 3), np.arange(6, dtype="<f4").tobytes())]))
rc, out = run(AFMT, "convert", "--to", "npy", one, os.path.join(T, "one.npy"))
check("one tensor to .npy reads back with numpy", rc == 0 and same(np.load(os.path.join(T, "one.npy")),
                                                                   np.arange(6, dtype="<f4").reshape(2, 3)), out)
# a stream longer than afmt-validate's 32 MiB window: the header is gone
# from the window once payloads are read through (this read stale bytes)
big = os.path.join(T, "big.safetensors")
with open(big, "wb") as f:
    f.write(st_file([("t%02d" % i, "F32", (1024, 1024), bytes([i]) * (4 << 20)) for i in range(10)]))
with open(big, "rb") as f:
    p = subprocess.run([VALIDATE, "-"], stdin=f, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
check("a 40 MiB safetensors stream validates through the window", p.returncode == 0 and b"ok safetensors" in p.stdout,
      p.stdout.decode(errors="replace"))
os.unlink(big)
sys.exit(1 if fails else 0)
