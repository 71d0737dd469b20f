#!/usr/bin/env python3
"""NumPy .npz archives: afmt-validate checks each .npy member of what
np.savez and np.savez_compressed write (agreeing with np.load), refuses
crafted zips (size lies, bombs, truncation, overlapping members, bad CRC,
a central directory that disagrees with a local header) with a clear
reason, in bounded memory; afmt info / convert read a member, and numpy
reads the .npz afmt convert --to npz writes.

Usage: tests/e2e/npz_e2e.py [BUILD_DIR]   One PASS/FAIL line per check.
Needs numpy (python3-numpy).
"""
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import Suite  # noqa: E402

import numpy as np  # noqa: E402

S = Suite("npz")
check = S.check
DTYPES = {"float32": "f32", "float64": "f64", "int64": "i64", "int32": "i32", "uint8": "u8",
          "bool": "bool", "int16": "i16", "complex64": "c64", "float16": "f16"}


def run(*args, cwd=None, stdin=None):
    p = subprocess.run(list(args), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       input=stdin, timeout=120)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def validate_json(path):
    rc, out, err = run(S.validate, "--json", path)
    return rc, [json.loads(l) for l in out.splitlines()], err


def agree_with_numpy(d):
    arrays = {"weights": np.arange(12, dtype=np.float32).reshape(3, 4),
              "bias": np.array([1.5, -2.0]), "mask": np.array([True, False, True]),
              "img": np.zeros((2, 3, 4), dtype=np.uint8), "scalar": np.array(7, dtype=np.int16),
              "fortran": np.asfortranarray(np.arange(6, dtype=np.int32).reshape(2, 3))}
    for fn, name in ((np.savez, "plain.npz"), (np.savez_compressed, "packed.npz")):
        p = os.path.join(d, name)
        fn(p, **arrays)
        rc, objs, err = validate_json(p)
        ref = np.load(p)
        got = {o["path"].split(":", 1)[1]: o for o in objs}
        ok = rc == 0 and sorted(got) == sorted(k + ".npy" for k in ref.files)
        for k in ref.files:
            a, o = ref[k], got.get(k + ".npy", {})
            arr = (o.get("arrays") or [{}])[0]
            ok = ok and o.get("valid") and arr.get("shape") == list(a.shape) \
                and arr.get("dtype") == DTYPES[a.dtype.name]
        check("%s (%s): a verdict per member, dtype and shape as np.load says" % (name, fn.__name__),
              ok, (rc, err, objs[:2]))
    rc, out, err = run(S.validate, os.path.join(d, "plain.npz"))
    check("text: ARCHIVE:MEMBER: ok npy DTYPE[SHAPE]",
          os.path.join(d, "plain.npz") + ":weights.npy: ok npy f32[3,4] row-major" in out, out)
    np.savez(os.path.join(d, "positional.npz"), np.ones(3), np.ones((2, 2)))
    rc, out, err = run(S.validate, os.path.join(d, "positional.npz"))
    check("np.savez positional arrays: arr_0.npy, arr_1.npy",
          rc == 0 and ":arr_0.npy: ok npy f64[3]" in out and ":arr_1.npy: ok npy f64[2,2]" in out, out)


def npy_bytes(a):
    b = io.BytesIO()
    np.save(b, a)
    return b.getvalue()


def build_zip(members, count=None):
    """members: dicts name, stored (bytes as in the archive), method, crc,
    csize, usize; optional local_name, at (local header offset to claim)."""
    body, cd = b"", b""
    for m in members:
        name = m["name"].encode()
        off = m.get("at", len(body))
        lname = m.get("local_name", m["name"]).encode()
        body += struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0, m["method"], 0, 0, m["crc"],
                            m["csize"], m["usize"], len(lname), 0) + lname + m["stored"]
        cd += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 20, 20, 0, m["method"], 0, 0,
                          m["crc"], m["csize"], m["usize"], len(name), 0, 0, 0, 0, 0, off) + name
    n = len(members) if count is None else count
    return body + cd + struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, n, n, len(cd), len(body), 0)


def stored(name, data, **kw):
    m = dict(name=name, stored=data, method=0, crc=zlib.crc32(data), csize=len(data),
             usize=len(data))
    m.update(kw)
    return m


def deflated(name, data, **kw):
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    z = c.compress(data) + c.flush()
    m = dict(name=name, stored=z, method=8, crc=zlib.crc32(data), csize=len(z), usize=len(data))
    m.update(kw)
    return m


def crafted(d):
    a = npy_bytes(np.arange(12, dtype=np.float32).reshape(3, 4))
    cases = [
        ("the test's own zip writer makes a valid archive", [stored("a.npy", a)], 0, ":a.npy: ok npy f32[3,4]"),
        ("a stored member with a bad CRC", [stored("a.npy", a, crc=zlib.crc32(a) ^ 1)], 1,
         'invalid npz: archive["a.npy"].central.crc32 at offset '),
        ("a deflated member with a bad CRC", [deflated("a.npy", a, crc=1)], 1,
         "the inflated data's CRC-32 is 0x"),
        ("a deflated member larger than declared (size lie)", [deflated("a.npy", a, usize=len(a) - 8)], 1,
         "inflates to more than the %d bytes the archive says" % (len(a) - 8)),
        ("a deflated member smaller than declared (size lie)", [deflated("a.npy", a, usize=len(a) + 8)], 1,
         "inflates to %d bytes, the archive says %d" % (len(a), len(a) + 8)),
        ("a stored member whose sizes differ", [stored("a.npy", a, usize=len(a) + 1)], 1,
         'archive["a.npy"].central.compressed_size'),
        ("a bomb: more than deflate's ratio claimed", [deflated("a.npy", a, usize=900 << 20)], 1,
         "more than deflate's largest ratio (1032:1)"),
        ("a member over --max-decoded-bytes 1M", [deflated("a.npy", npy_bytes(np.zeros(1 << 18)))], 1,
         "more than the limit of 1048576 (limits.max_decoded_bytes) (raise it with --max-decoded-bytes N)"),
        ("central directory and local header disagree (name)", [stored("a.npy", a, local_name="b.npy")], 1,
         'invalid npz: archive["a.npy"].local.name at offset 30'),
        ("an end record counting more entries than there are", [stored("a.npy", a)], 1,
         "central directory"),
        ("no .npy member", [stored("notes.txt", b"hello")], 1,
         "named like npz, but it is a zip archive of no known format"),
    ]
    for i, (what, members, want_rc, want) in enumerate(cases):
        p = os.path.join(d, "crafted%d.npz" % i)
        count = 2 if "counting more" in what else None
        open(p, "wb").write(build_zip(members, count))
        args = ["--max-decoded-bytes", "1M"] if "max-decoded" in what else []
        rc, out, err = run(S.validate, *args, p)
        check("%s: exit %d, '%s'" % (what, want_rc, want), rc == want_rc and want in out, (rc, out, err))
    # overlapping members: the second's local header lies inside the first's data
    inner = stored("b.npy", a)
    lh = struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0, 0, 0, 0, inner["crc"], len(a), len(a), 5, 0) + b"b.npy"
    outer = stored("a.npy", lh + a)
    inner["at"] = 30 + 5
    body = build_zip([outer])
    cd_b = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 20, 20, 0, 0, 0, 0, inner["crc"], len(a), len(a),
                       5, 0, 0, 0, 0, 0, 35) + b"b.npy"
    cd_start = struct.unpack("<I", body[-6:-2])[0]
    cd = body[cd_start:-22] + cd_b
    z = body[:cd_start] + cd + struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 2, 2, len(cd), cd_start, 0)
    p = os.path.join(d, "overlap.npz")
    open(p, "wb").write(z)
    rc, out, err = run(S.validate, p)
    check("overlapping members are refused",
          rc == 1 and 'archive["b.npy"].central.local_offset' in out and "inside member 0" in out, (rc, out, err))
    np.savez(os.path.join(d, "cut.npz"), w=np.ones(100))
    raw = open(os.path.join(d, "cut.npz"), "rb").read()
    open(os.path.join(d, "cut.npz"), "wb").write(raw[:len(raw) // 2])
    rc, out, err = run(S.validate, os.path.join(d, "cut.npz"))
    check("a truncated archive: no end record, 'cut short'",
          rc == 1 and "invalid npz: archive.end at offset" in out and "cut short" in out, (rc, out))


def bounded_memory(d):
    """A 64 MiB member inflated twice through fixed buffers, and a member
    that inflates far past what it declares: memory stays well under the
    member's size."""
    big = os.path.join(d, "big.npz")
    np.savez_compressed(big, zeros=np.zeros(8 << 20))  # 64 MiB of float64
    lie = deflated("zeros.npy", npy_bytes(np.zeros(32 << 20, dtype=np.uint8)))
    lie["usize"] = 20 << 20  # inflates to 32 MiB, claims 20
    open(os.path.join(d, "lie.npz"), "wb").write(build_zip([lie]))
    for name, want_rc, want in (("big.npz", 0, ":zeros.npy: ok npy f64[8388608]"),
                                ("lie.npz", 1, "inflates to more than the 20971520 bytes the archive says")):
        if not os.path.exists("/usr/bin/time"):
            print("SKIP npz: /usr/bin/time is not installed (Debian: time)")
            return
        p = subprocess.run(["/usr/bin/time", "-v", S.validate, os.path.join(d, name)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        out, err = p.stdout.decode(), p.stderr.decode()
        rss = [int(l.split(":")[1]) for l in err.splitlines() if "Maximum resident" in l]
        check("%s: '%s' with at most 56 MiB resident (%s KiB)" % (name, want, rss),
              p.returncode == want_rc and want in out and rss and rss[0] < 56 * 1024,
              (p.returncode, out, err[-300:]))


def info_convert(d):
    src = os.path.join(d, "plain.npz")
    rc, out, err = run(S.afmt, "info", src + ":weights")
    check("afmt info x.npz:NAME reads the member", rc == 0 and "npy" in out and "valid" in out,
          (rc, out, err))
    rc, out, err = run(S.afmt, "dump", os.path.join(d, "packed.npz") + ":bias.npy")
    check("afmt dump x.npz:NAME.npy of a deflated member", rc == 0 and "1.5" in out, (rc, out, err))
    ra = os.path.join(d, "w.ra")
    rc, out, err = run(S.afmt, "convert", src + ":weights", ra)
    rc2, out2, err2 = run(S.afmt, "convert", ra, os.path.join(d, "back.npy"))
    back = np.load(os.path.join(d, "back.npy")) if rc2 == 0 else None
    check("afmt convert x.npz:NAME OUT: same values",
          rc == 0 and back is not None and np.array_equal(back, np.load(src)["weights"]),
          (rc, err, rc2, err2))
    rc, out, err = run(S.afmt, "info", src + ":nothere")
    check("a member that is not there: an error naming it", rc != 0 and "nothere" in err, (rc, err))
    # several named arrays (safetensors) -> one .npz numpy reads
    st = os.path.join(d, "model.safetensors")
    hdr = json.dumps({"w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
                      "b": {"dtype": "I64", "shape": [2], "data_offsets": [24, 40]}}).encode()
    hdr += b" " * (-len(hdr) % 8)
    payload = np.arange(6, dtype="<f4").tobytes() + np.array([7, -8], dtype="<i8").tobytes()
    open(st, "wb").write(struct.pack("<Q", len(hdr)) + hdr + payload)
    outz = os.path.join(d, "out.npz")
    rc, out, err = run(S.afmt, "convert", st, outz)
    ok = rc == 0
    if ok:
        z = np.load(outz)
        ok = sorted(z.files) == ["b", "w"] and np.array_equal(z["w"], np.arange(6, dtype="<f4").reshape(2, 3)) \
            and np.array_equal(z["b"], [7, -8]) and z["b"].dtype == np.int64
    check("afmt convert model.safetensors out.npz: numpy reads every array by name", ok, (rc, err))
    rc, out, err = run(S.validate, outz)
    check("... and afmt-validate accepts it", rc == 0 and out.count(": ok npy") == 2, (rc, out))
    with zipfile.ZipFile(outz) as zf:
        check("... a zip of stored members that Python's zipfile tests clean",
              zf.testzip() is None and all(i.compress_type == 0 for i in zf.infolist()))
    rc, out, err = run(S.afmt, "convert", "--to", "npz", os.path.join(d, "w.ra"), os.path.join(d, "one.bin"))
    ok = rc == 0 and np.load(os.path.join(d, "one.bin"))["arr_0"].shape == (3, 4)
    check("--to npz: an unnamed array becomes arr_0", ok, (rc, err))


def main():
    d = tempfile.mkdtemp()
    try:
        agree_with_numpy(d)
        crafted(d)
        info_convert(d)
        bounded_memory(d)
    finally:
        shutil.rmtree(d)


main()
sys.exit(S.failed)
