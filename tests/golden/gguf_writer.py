"""An independent GGUF writer for tests (python3 only; numpy not needed).

Written from docs/FORMATS.md#gguf and ggml's docs/gguf.md, not from
afmt's spec or output: the golden cases (make_gguf_cases.py), the random
corpus (gguf_random.py), the bench input and the fuzz seeds all come from
here.  It can write every invalid variant the cases need (wrong counts,
offsets, padding, types), and it records where each field starts, so that
a case's expected byte offset is computed from its own construction.

    from gguf_writer import gguf, Kv, Tensor, T, V
    data, at = gguf([Kv("general.architecture", V.STRING, "llama")],
                    [Tensor("w", [4, 2], T.F32)])
    at["tensor[0].offset"]      # where that field starts in `data`

Field paths (the names afmt's spec/gguf.json is asked to use; `at` keys):
    magic, version, tensor_count, kv_count           the header
    kv[i].key, kv[i].type, kv[i].value                metadata pair i
    kv[i].value.type, .count, .items, .items[j]       an array value
    kv[i].value.items[j].type/.count/.items[k]        an array inside an array
    tensor[i].name, .n_dims, .ne, .ne[k], .type, .offset   tensor info i
    data_padding                                      zeros before the data section
    NAME                                              tensor NAME's bytes
    NAME.padding                                      the zeros after them
    trailer                                           bytes after the last padding
For a gguf_string field P (a key, a name, a string value), at[P] is its u64
length and at[P + "#bytes"] its first byte.
"""
import struct


class V:
    """GGUF metadata value types (gguf.md: enum gguf_metadata_value_type)."""
    UINT8, INT8, UINT16, INT16, UINT32, INT32, FLOAT32, BOOL, STRING, ARRAY, UINT64, INT64, FLOAT64 = range(13)


SCALAR_FMT = {V.UINT8: "B", V.INT8: "b", V.UINT16: "H", V.INT16: "h", V.UINT32: "I", V.INT32: "i",
              V.FLOAT32: "f", V.BOOL: "B", V.UINT64: "Q", V.INT64: "q", V.FLOAT64: "d"}


class T:
    """ggml types gguf.cpp reads (docs/FORMATS.md): code -> (name, elements per block, bytes per block)."""
    TABLE = {0: ("F32", 1, 4), 1: ("F16", 1, 2), 2: ("Q4_0", 32, 18), 3: ("Q4_1", 32, 20), 6: ("Q5_0", 32, 22),
             7: ("Q5_1", 32, 24), 8: ("Q8_0", 32, 34), 9: ("Q8_1", 32, 36), 10: ("Q2_K", 256, 84),
             11: ("Q3_K", 256, 110), 12: ("Q4_K", 256, 144), 13: ("Q5_K", 256, 176), 14: ("Q6_K", 256, 210),
             15: ("Q8_K", 256, 292), 16: ("IQ2_XXS", 256, 66), 17: ("IQ2_XS", 256, 74), 18: ("IQ3_XXS", 256, 98),
             19: ("IQ1_S", 256, 50), 20: ("IQ4_NL", 32, 18), 21: ("IQ3_S", 256, 110), 22: ("IQ2_S", 256, 82),
             23: ("IQ4_XS", 256, 136), 24: ("I8", 1, 1), 25: ("I16", 1, 2), 26: ("I32", 1, 4), 27: ("I64", 1, 8),
             28: ("F64", 1, 8), 29: ("IQ1_M", 256, 56), 30: ("BF16", 1, 2), 34: ("TQ1_0", 256, 54),
             35: ("TQ2_0", 256, 66), 39: ("MXFP4", 32, 17),
             40: ("NVFP4", 64, 36), 41: ("Q1_0", 128, 18), 42: ("Q2_0", 64, 18)}
    REMOVED = (4, 5, 31, 32, 33, 36, 37, 38)


for _code, (_name, _blk, _size) in T.TABLE.items():
    setattr(T, _name, _code)

DEFAULT_ALIGNMENT = 32


def nbytes(ne, ggml_type):
    """Byte size of a tensor (ne[0] must be a multiple of the block)."""
    _, blk, size = T.TABLE[ggml_type]
    n = 1
    for x in ne:
        n *= x
    return n // blk * size


def pad_to(n, alignment):
    return (n + alignment - 1) // alignment * alignment


class Kv:
    """One metadata pair.  value: a number, bytes/str for STRING, and for
    ARRAY an Arr.  raw: bytes written instead of the encoded value."""
    def __init__(self, key, vtype, value=None, raw=None):
        self.key, self.vtype, self.value, self.raw = key, vtype, value, raw


class Arr:
    """An array value: element type, items (Arr for arrays of arrays), and
    a count that may differ from len(items)."""
    def __init__(self, etype, items, count=None):
        self.etype, self.items = etype, list(items)
        self.count = len(self.items) if count is None else count


class Tensor:
    """One tensor.  data: its bytes (default: a counting pattern of the
    right size); offset: None = the next padded position; n_dims: None =
    len(ne); pad: the bytes after the data (default zeros to the alignment)."""
    def __init__(self, name, ne, ggml_type=0, data=None, offset=None, n_dims=None, pad=None):
        self.name = name.encode() if isinstance(name, str) else name
        self.ne, self.type, self.offset, self.pad = list(ne), ggml_type, offset, pad
        self.n_dims = len(self.ne) if n_dims is None else n_dims
        if data is None:
            n = nbytes(self.ne, ggml_type) if ggml_type in T.TABLE and _fits(self.ne) else 0
            data = bytes((i * 7 + 3) & 0xFF for i in range(n))
        self.data = data


def _fits(ne):
    n = 1
    for x in ne:
        n *= x
    return n < (1 << 26)


class _Out:
    def __init__(self, order):
        self.b, self.at, self.order = bytearray(), {}, order

    def put(self, path, data):
        if path is not None:
            self.at.setdefault(path, len(self.b))
        self.b += data

    def pack(self, path, fmt, *v):
        self.put(path, struct.pack(self.order + fmt, *v))

    def string(self, path, s, length=None):
        s = s.encode() if isinstance(s, str) else s
        self.pack(path, "Q", len(s) if length is None else length)
        self.put(path + "#bytes", s)


def _value(o, path, vtype, value):
    if vtype == V.STRING:
        o.string(path, value)
    elif vtype == V.ARRAY:
        o.pack(path, "I", value.etype)
        o.at[path + ".type"] = o.at[path]
        o.pack(path + ".count", "Q", value.count)
        o.at[path + ".items"] = len(o.b)
        for j, item in enumerate(value.items):
            _value(o, "%s.items[%d]" % (path, j), value.etype, item)
    else:
        o.pack(path, SCALAR_FMT[vtype], value)


def gguf(kvs=(), tensors=(), version=3, magic=b"GGUF", tensor_count=None, kv_count=None, alignment=None,
         data_pad=None, trailer=b"", order="<", stop=None):
    """The bytes of a GGUF file and the start of each field (see the module
    doc).  alignment: the one used for the layout (default: the file's
    general.alignment when it is a u32, else 32); data_pad: the bytes
    between the infos and the data section (default zeros to the
    alignment); stop: "infos" ends the file after the tensor infos."""
    o = _Out(order)
    o.put("magic", magic)
    o.pack("version", "I", version)
    o.pack("tensor_count", "Q", len(tensors) if tensor_count is None else tensor_count)
    o.pack("kv_count", "Q", len(kvs) if kv_count is None else kv_count)
    for i, kv in enumerate(kvs):
        p = "kv[%d]" % i
        o.string(p + ".key", kv.key)
        o.pack(p + ".type", "I", kv.vtype)
        if kv.raw is not None:
            o.put(p + ".value", kv.raw)
        else:
            _value(o, p + ".value", kv.vtype, kv.value)
        if kv.key == "general.alignment" and kv.vtype == V.UINT32 and alignment is None and kv.raw is None:
            alignment = kv.value
    align = alignment or DEFAULT_ALIGNMENT
    offsets, run = [], 0
    for t in tensors:
        off = run if t.offset is None else t.offset
        offsets.append(off)
        run = pad_to(off + len(t.data), align)
    for i, t in enumerate(tensors):
        p = "tensor[%d]" % i
        o.string(p + ".name", t.name)
        o.pack(p + ".n_dims", "I", t.n_dims)
        o.at[p + ".ne"] = len(o.b)
        for k, x in enumerate(t.ne):
            o.pack("%s.ne[%d]" % (p, k), "Q", x)
        o.pack(p + ".type", "I", t.type)
        o.pack(p + ".offset", "Q", offsets[i])
    if stop == "infos":
        return bytes(o.b), o.at
    o.at["data_padding"] = len(o.b)
    o.put(None, data_pad if data_pad is not None else b"\0" * (pad_to(len(o.b), align) - len(o.b)))
    base = len(o.b)
    o.at["data"] = base
    for t, off in zip(tensors, offsets):
        if base + off > len(o.b) + (1 << 24):
            continue  # an offset far past the end: its bytes are not written
        if base + off > len(o.b):
            o.put(None, b"\0" * (base + off - len(o.b)))
        o.b[base + off:base + off + len(t.data)] = t.data
        o.at.setdefault(t.name.decode("latin-1"), base + off)
        end = base + off + len(t.data)
        pad = t.pad if t.pad is not None else b"\0" * (pad_to(end - base, align) - (end - base))
        o.at.setdefault(t.name.decode("latin-1") + ".padding", end)
        o.b[end:end + len(pad)] = pad
    o.at["trailer"] = len(o.b)
    o.put(None, trailer)
    return bytes(o.b), o.at
