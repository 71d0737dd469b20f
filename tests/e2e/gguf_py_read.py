#!/usr/bin/env python3
"""Read GGUF files with gguf-py (llama.cpp's own reader, `gguf` from PyPI)
and print, per file, one JSON line: its tensors (name, ggml type name, ne
as stored, offset in the data section, absolute offset) and its metadata
(every key with its GGUF value type and value; 64-bit integers as decimal
strings, non-finite floats as "NaN"/"Infinity"/"-Infinity", arrays as
{"type", "items"}, an array inside an array as the plain list of its items).

    python tests/e2e/gguf_py_read.py FILE...

Run with the interpreter of build/venv (make deps-test), which has gguf.
A file the library cannot read prints {"file", "error"} and makes the exit
status 1.  The values are taken from GGUFReader's parts, the pieces it cut
the file into, in its order: nothing of afmt's or of tests/golden is used.
"""
import json
import math
import sys

from gguf import GGUFReader, GGUFValueType  # noqa: E402

TYPE_NAMES = {
    GGUFValueType.UINT8: "u8", GGUFValueType.INT8: "i8", GGUFValueType.UINT16: "u16",
    GGUFValueType.INT16: "i16", GGUFValueType.UINT32: "u32", GGUFValueType.INT32: "i32",
    GGUFValueType.FLOAT32: "f32", GGUFValueType.BOOL: "bool", GGUFValueType.STRING: "string",
    GGUFValueType.ARRAY: "array", GGUFValueType.UINT64: "u64", GGUFValueType.INT64: "i64",
    GGUFValueType.FLOAT64: "f64",
}


def scalar(vtype, part):
    v = part.tolist()[0]
    if vtype in (GGUFValueType.UINT64, GGUFValueType.INT64):
        return str(v)
    if vtype == GGUFValueType.BOOL:
        return bool(v)
    if vtype in (GGUFValueType.FLOAT32, GGUFValueType.FLOAT64):
        v = float(v)
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
    return v


class Parts:
    """A cursor over a field's parts after its key and type."""

    def __init__(self, parts):
        self.parts, self.at = parts, 0

    def next(self):
        p = self.parts[self.at]
        self.at += 1
        return p

    def value(self, vtype):
        if vtype == GGUFValueType.STRING:
            self.next()  # its length
            return bytes(self.next()).decode("utf-8", errors="replace")
        if vtype == GGUFValueType.ARRAY:
            sub = GGUFValueType(int(self.next()[0]))
            count = int(self.next()[0])
            return sub, [self.value(sub) for _ in range(count)]
        return scalar(vtype, self.next())


def plain(vtype, v):
    """An array's items, those that are arrays as plain lists."""
    if vtype == GGUFValueType.ARRAY:
        sub, items = v
        return [plain(sub, x) for x in items]
    return v


def metadata_of(field):
    vtype = GGUFValueType(int(field.parts[2][0]))
    v = Parts(field.parts[3:]).value(vtype)
    if vtype == GGUFValueType.ARRAY:
        sub, items = v
        return {"type": "array", "value": {"type": TYPE_NAMES[sub], "items": [plain(sub, x) for x in items]}}
    return {"type": TYPE_NAMES[vtype], "value": v}


def read_one(path):
    r = GGUFReader(path, "r")
    metadata = {}
    for name, field in r.fields.items():
        if name.startswith("GGUF."):  # the header's version and counts
            continue
        metadata[name] = metadata_of(field)
    tensors = []
    for t in r.tensors:
        # parts: name length, name, n_dims, dims (ne, as stored), type, offset
        parts = t.field.parts
        offset = int(parts[-1][0])
        tensors.append({"name": t.name, "type": t.tensor_type.name,
                        "ne": [str(int(x)) for x in parts[3]],
                        "offset": str(offset), "absolute_offset": str(r.data_offset + offset)})
    version = int(r.fields["GGUF.version"].parts[-1][0])
    return {"file": path, "version": version, "tensor_data_offset": str(r.data_offset),
            "tensors": tensors, "metadata": metadata}


def main(files):
    failed = 0
    for f in files:
        try:
            print(json.dumps(read_one(f)))
        except Exception as e:  # any refusal of the reader is this file's answer
            failed = 1
            print(json.dumps({"file": f, "error": "%s: %s" % (type(e).__name__, e)}))
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
