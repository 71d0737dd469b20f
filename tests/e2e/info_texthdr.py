#!/usr/bin/env python3
"""afmt info on text headers (npy, safetensors): the header's length field
and each value of its entries, with byte offsets (issue 25, point 5).

A table of files written by tests/golden/textfmt.py (an independent
writer) and the fields `afmt info --json` must list for each, in order:
field name, and the value's text as the header holds it.  For every field
of every case the bytes at [offset, offset + width) of the file must be
its value (for the length field: its little-endian integer), so offsets
and widths are checked against the file itself, not against afmt.  The
reference interpreter (--spec spec/FORMAT.json) must report the same
fields, arrays and error.  An invalid header lists its fields up to the
bad key, then the error that names it.  The text output abbreviates a
long map as it does a long repeat.
Usage: info_texthdr.py BUILD_DIR   (prints one PASS/FAIL line per check)
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(REPO, "tests", "golden"))
from textfmt import npy_bytes, npy_dict, st_bytes, st_file  # noqa: E402

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
AFMT = os.path.join(BUILD, "afmt")
T = tempfile.mkdtemp()
fails = 0

NPY_HEAD = [("magic_byte", None), ("magic", None), ("major", None), ("minor", None)]


def check(name, cond, detail=""):
    global fails
    if cond:
        print("PASS info-texthdr: " + name)
    else:
        fails += 1
        print("FAIL info-texthdr: %s %s" % (name, detail))


def info_json(path, fmt, spec=False):
    args = [AFMT, "info", "--json"] + (["--spec", os.path.join(REPO, "spec", fmt + ".json")] if spec else
                                       ["--format", fmt]) + [path]
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, json.loads(p.stdout.decode())


def st_raw(text, data):
    return st_bytes(None, data, text=text)


# name, format, file bytes, expected [(field, value text or None)], error field (None: valid)
CASES = [
    ("safetensors-metadata", "safetensors",
     st_file([("w", "F32", (2, 2), bytes(16)), ("b", "I64", (2,), bytes(16))],
             metadata={"format": "pt", "note": "x y"}),
     [("header_length", None), ('header["__metadata__"]["format"]', '"pt"'),
      ('header["__metadata__"]["note"]', '"x y"'), ('header["w"].dtype', '"F32"'), ('header["w"].shape', "[2,2]"),
      ('header["w"].data_offsets', "[0,16]"), ('header["b"].dtype', '"I64"'), ('header["b"].shape', "[2]"),
      ('header["b"].data_offsets', "[16,32]")], None),
    ("safetensors-text-order", "safetensors",
     st_raw('{"z":{"shape":[1], "data_offsets":[0,1],"dtype":"U8"}, "__metadata__":{"a":"1"}}', b"\1"),
     [("header_length", None), ('header["z"].shape', "[1]"), ('header["z"].data_offsets', "[0,1]"),
      ('header["z"].dtype', '"U8"'), ('header["__metadata__"]["a"]', '"1"')], None),
    ("npy-v1", "npy", npy_bytes(npy_dict("<f8", False, (2, 3)), bytes(48), version=1),
     NPY_HEAD + [("header_length", None), ("header.descr", "'<f8'"), ("header.fortran_order", "False"),
                 ("header.shape", "(2, 3)")], None),
    ("npy-v2", "npy", npy_bytes(npy_dict("<i4", False, (5,)), bytes(20), version=2),
     NPY_HEAD + [("header_length", None), ("header.descr", "'<i4'"), ("header.fortran_order", "False"),
                 ("header.shape", "(5,)")], None),
    ("npy-v3-keys-in-text-order", "npy",
     npy_bytes("{'shape': (), 'fortran_order': False, 'descr': '|u1', }", b"\7", version=3),
     NPY_HEAD + [("header_length", None), ("header.shape", "()"), ("header.fortran_order", "False"),
                 ("header.descr", "'|u1'")], None),
    ("npy-fortran-order", "npy", npy_bytes(npy_dict("<u2", True, (2, 3)), bytes(12), version=1),
     NPY_HEAD + [("header_length", None), ("header.descr", "'<u2'"), ("header.fortran_order", "True"),
                 ("header.shape", "(2, 3)")], None),
    # invalid: the fields up to the bad key, then the error naming it
    ("safetensors-bad-dtype", "safetensors",
     st_raw('{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},'
            '"b":{"dtype":"F99","shape":[1],"data_offsets":[4,8]},'
            '"c":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}}', bytes(12)),
     [("header_length", None), ('header["a"].dtype', '"F32"'), ('header["a"].shape', "[1]"),
      ('header["a"].data_offsets', "[0,4]"), ('header["b"].dtype', '"F99"'), ('header["b"].shape', "[1]"),
      ('header["b"].data_offsets', "[4,8]")], 'header["b"].dtype'),
    ("safetensors-bad-metadata", "safetensors",
     st_raw('{"__metadata__":{"k":"v","n":3,"m":"w"},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}',
            bytes(4)),
     [("header_length", None), ('header["__metadata__"]["k"]', '"v"'), ('header["__metadata__"]["n"]', "3")],
     'header["__metadata__"]["n"]'),
    ("safetensors-entry-not-object", "safetensors", st_raw('{"a":[1, 2]}', b""),
     [("header_length", None), ('header["a"]', "[1, 2]")], 'header["a"]'),
    ("safetensors-syntax-error", "safetensors",
     st_raw('{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},', bytes(4)),
     [("header_length", None)], "header"),
    ("npy-unknown-descr", "npy", npy_bytes(npy_dict("<x9", False, (2,)), bytes(4), version=1),
     NPY_HEAD + [("header_length", None), ("header.descr", "'<x9'"), ("header.fortran_order", "False"),
                 ("header.shape", "(2,)")], "header.descr"),
    ("npy-header-past-end", "npy", npy_bytes(npy_dict("<f8", False, (1,)), b"", version=1, length=60000),
     NPY_HEAD + [("header_length", None)], "header"),
]


def field_bytes_agree(raw, f):
    """The file's bytes at the field's offset and width are its value."""
    at = raw[f["offset"]:f["offset"] + f["width"]]
    if len(at) != f["width"]:
        return False
    if f["type"] == "text":
        return at.decode() == f["value"]
    if f["type"] == "bytes":
        return at.hex() == f["hex"]
    return int.from_bytes(at, "big" if f["type"].endswith("be") else "little") == f["value"]


def run_case(name, fmt, raw, want, bad_field):
    path = os.path.join(T, name + (".npy" if fmt == "npy" else ".safetensors"))
    with open(path, "wb") as f:
        f.write(raw)
    rc, o = info_json(path, fmt)
    got = [(f["field"], f["value"] if f["type"] == "text" else None) for f in o["fields"]]
    check(name + ": fields", got == want, "got %r" % (got,))
    check(name + ": offsets and widths are the file's bytes",
          all(field_bytes_agree(raw, f) for f in o["fields"]), json.dumps(o["fields"])[:400])
    if bad_field is None:
        check(name + ": valid", rc == 0 and o["valid"], json.dumps(o["error"]))
    else:
        err = o["error"] or {}
        check(name + ": invalid, the error names " + bad_field, rc == 1 and err.get("field") == bad_field,
              json.dumps(err))
    rc2, o2 = info_json(path, fmt, spec=True)
    check(name + ": the interpreter (--spec) reports the same",
          rc2 == rc and all(o2[k] == o[k] for k in ("fields", "arrays", "error", "valid")),
          json.dumps(o2)[:400])


def long_map():
    """A model of 40 tensors and 20 metadata keys: the text shows 16 of
    each and counts the rest; --json lists them all."""
    meta = {"k%02d" % i: "v" for i in range(20)}
    tensors = [("layer.%02d.weight" % i, "F32", (1,), bytes(4)) for i in range(40)]
    path = os.path.join(T, "long.safetensors")
    with open(path, "wb") as f:
        f.write(st_file(tensors, metadata=meta))
    text = subprocess.run([AFMT, "info", path], stdout=subprocess.PIPE).stdout.decode()
    check("long map: first 16 tensors shown", 'header["layer.15.weight"].data_offsets' in text and
          'header["layer.16.weight"]' not in text, text[:2000])
    check("long map: first 16 metadata keys shown", 'header["__metadata__"]["k15"]' in text and
          '["k16"]' not in text, text[:2000])
    check("long map: the rest counted", 'header[...]: 72 more fields not shown (--json lists them)' in text and
          'header["__metadata__"][...]: 4 more fields not shown' in text, text[-1500:])
    rc, o = info_json(path, "safetensors")
    check("long map: --json lists every field", rc == 0 and len(o["fields"]) == 1 + 20 + 3 * 40, len(o["fields"]))


def main():
    for case in CASES:
        run_case(*case)
    long_map()
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
