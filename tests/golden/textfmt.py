"""An independent writer of safetensors and .npy files for the tests.

Written from the formats' documentation (safetensors: u64 little-endian
header length N, N bytes of JSON, the data; .npy: NEP 1), with json and
struct only, so that afmt is checked against files it did not write.
Every knob a crafted invalid file needs is a parameter.
"""
import json
import struct

ST_SIZES = {"BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1, "F8_E8M0": 1, "I16": 2, "U16": 2,
            "F16": 2, "BF16": 2, "I32": 4, "U32": 4, "F32": 4, "C64": 8, "F64": 8, "I64": 8, "U64": 8}


def st_header(tensors, metadata=None):
    """tensors: list of (name, dtype, shape, nbytes); data packed in list order.
    Returns (header dict in insertion order, total data bytes)."""
    h = {}
    if metadata is not None:
        h["__metadata__"] = metadata
    off = 0
    for name, dtype, shape, nbytes in tensors:
        h[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [off, off + nbytes]}
        off += nbytes
    return h, off


def st_bytes(header, data, pad_to=8, length=None, text=None):
    """header: a dict (dumped compactly) or text: raw header text.  The
    header is padded with spaces to a multiple of pad_to (None: no pad)."""
    t = text if text is not None else json.dumps(header, separators=(",", ":")).encode()
    if isinstance(t, str):
        t = t.encode()
    if pad_to:
        t += b" " * ((-len(t)) % pad_to)
    n = len(t) if length is None else length
    return struct.pack("<Q", n) + t + data


def st_file(tensors, metadata=None, pad_to=8):
    """tensors: list of (name, dtype, shape, payload bytes)."""
    h, _ = st_header([(n, d, s, len(p)) for n, d, s, p in tensors], metadata)
    return st_bytes(h, b"".join(p for _, _, _, p in tensors), pad_to)


def npy_dict(descr, fortran, shape):
    sh = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    return "{'descr': %r, 'fortran_order': %s, 'shape': %s, }" % (descr, "True" if fortran else "False", sh)


def npy_bytes(text, data=b"", version=1, align=64, spare=0, length=None, end=b"\n", magic=b"\x93NUMPY"):
    """text: the dict literal; padded with spaces so that the whole header
    ends at a multiple of align, then end."""
    t = text.encode() if isinstance(text, str) else text
    t += b" " * spare
    w = 2 if version == 1 else 4
    pre = 6 + 2 + w
    if align:
        t += b" " * ((-(pre + len(t) + len(end))) % align)
    t += end
    n = len(t) if length is None else length
    return magic + bytes([version, 0]) + struct.pack("<H" if w == 2 else "<I", n) + t + data
