#!/usr/bin/env python3
"""An independent GGUF reader for tests (python3 only).

Reads a GGUF file by the rulebook (docs/FORMATS.md#gguf), strict or
lenient, and returns either its contents (metadata with types and values,
tensors with name, ggml type, logical shape, offsets and bytes) or the first
rule it breaks, named with the field paths of tests/golden/make_gguf_cases.py.
It shares no code with afmt and none with gguf_writer.py: it is the oracle of
the random corpus (gguf_random.py) and the value reader of the end-to-end
test of files afmt writes (tests/e2e/gguf_readers.sh).

    python3 tests/golden/gguf_reader.py [--lenient] FILE...   one JSON line per file

Limits of a test oracle, not of the format: arrays nest at most 8 deep.
"""
import json
import math
import struct
import sys

TYPES = {0: ("F32", 1, 4), 1: ("F16", 1, 2), 2: ("Q4_0", 32, 18), 3: ("Q4_1", 32, 20), 6: ("Q5_0", 32, 22),
         7: ("Q5_1", 32, 24), 8: ("Q8_0", 32, 34), 9: ("Q8_1", 32, 36), 10: ("Q2_K", 256, 84), 11: ("Q3_K", 256, 110),
         12: ("Q4_K", 256, 144), 13: ("Q5_K", 256, 176), 14: ("Q6_K", 256, 210), 15: ("Q8_K", 256, 292),
         16: ("IQ2_XXS", 256, 66), 17: ("IQ2_XS", 256, 74), 18: ("IQ3_XXS", 256, 98), 19: ("IQ1_S", 256, 50),
         20: ("IQ4_NL", 32, 18), 21: ("IQ3_S", 256, 110), 22: ("IQ2_S", 256, 82), 23: ("IQ4_XS", 256, 136),
         24: ("I8", 1, 1), 25: ("I16", 1, 2), 26: ("I32", 1, 4), 27: ("I64", 1, 8), 28: ("F64", 1, 8),
         29: ("IQ1_M", 256, 56), 30: ("BF16", 1, 2), 34: ("TQ1_0", 256, 54), 35: ("TQ2_0", 256, 66),
         39: ("MXFP4", 32, 17),
         40: ("NVFP4", 64, 36), 41: ("Q1_0", 128, 18), 42: ("Q2_0", 64, 18)}
VALUE_NAMES = ["u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string", "array", "u64", "i64", "f64"]
FIXED = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "B", 10: "Q", 11: "q", 12: "d"}
MAX_DEPTH = 8


class Refusal(Exception):
    def __init__(self, kind, field, offset, message):
        super().__init__(message)
        self.kind, self.field, self.offset, self.message = kind, field, offset, message


class _R:
    def __init__(self, data, lenient):
        self.d, self.pos, self.lenient, self.warnings = data, 0, lenient, []

    def left(self):
        return len(self.d) - self.pos

    def need(self, n, field, at=None):
        if n > self.left():
            raise Refusal("truncated", field, self.pos if at is None else at,
                          "needs %d bytes, only %d left" % (n, self.left()))

    def take(self, fmt, field):
        n = struct.calcsize("<" + fmt)
        self.need(n, field)
        v = struct.unpack_from("<" + fmt, self.d, self.pos)[0]
        self.pos += n
        return v

    def string(self, field):
        n = self.take("Q", field)
        self.need(n, field)
        s = self.d[self.pos:self.pos + n]
        self.pos += n
        return s

    def tolerate(self, kind, field, offset, message):
        if not self.lenient:
            raise Refusal(kind, field, offset, message)
        self.warnings.append({"kind": kind, "field": field, "offset": offset, "message": message})


def _text(b):
    # invalid UTF-8 shown as U+FFFD, as JSON output (afmt's, @huggingface/gguf's) shows it
    return b.decode("utf-8", errors="replace")


def _value(r, vtype, base, depth):
    """The value of type vtype of pair or item `base` (kv[i], kv[i].items[j]):
    a number or string is `base.value`; an array's parts are `base.item_type`,
    `base.count`, `base.items` and its items `base.items[j]`, as spec/gguf.json
    names them (and tests/gguf/*/expect with it)."""
    field = base + ".value"
    if vtype in FIXED:
        at = r.pos
        v = r.take(FIXED[vtype], field)
        if vtype == 7 and v > 1:
            r.tolerate("value", field, at, "bool byte 0x%02x" % v)
        if vtype == 7:
            return v != 0
        if vtype in (6, 12) and not math.isfinite(v):
            return repr(v)
        return v
    if vtype == 8:
        return _text(r.string(field))
    if vtype == 9:
        if depth >= MAX_DEPTH:
            raise Refusal("limit", field, r.pos, "arrays nested deeper than %d" % MAX_DEPTH)
        et = r.take("I", base + ".item_type")
        if et not in FIXED and et not in (8, 9):
            raise Refusal("unknown-type", base + ".item_type", r.pos - 4, "unknown value type %d" % et)
        count_at = r.pos
        n = r.take("Q", base + ".count")
        least = struct.calcsize("<" + FIXED[et]) if et in FIXED else (8 if et == 8 else 12)
        if n > r.left():
            # more items than bytes left (each takes one at least): the
            # count is what is wrong, blamed where it lies
            raise Refusal("truncated", base + ".count", count_at, "%d items, only %d bytes left" % (n, r.left()))
        if n * least > r.left():
            raise Refusal("truncated", base + ".items", r.pos, "%d items need %d bytes at least, only %d left"
                          % (n, n * least, r.left()))
        if et in FIXED and et != 7:
            fmt = "<%d%s" % (n, FIXED[et])
            vals = list(struct.unpack_from(fmt, r.d, r.pos))
            r.pos += struct.calcsize(fmt)
            return {"type": VALUE_NAMES[et], "items": [repr(v) if isinstance(v, float) and not math.isfinite(v)
                                                       else v for v in vals]}
        return {"type": VALUE_NAMES[et], "items": [_value(r, et, "%s.items[%d]" % (base, j), depth + 1)
                                                   for j in range(n)]}
    raise Refusal("unknown-type", field, r.pos, "unknown value type %d" % vtype)


def _header(r):
    r.need(4, "magic")
    if r.d[:4] != b"GGUF":
        raise Refusal("magic", "magic", 0, "not GGUF")
    r.pos = 4
    version = r.take("I", "version")
    if version & 0xFFFF == 0 and version:
        raise Refusal("unsupported", "version", 4, "big-endian file (version 0x%08x)" % version)
    if version == 2:
        r.tolerate("version", "version", 4, "version 2")
    elif version != 3:
        raise Refusal("constraint", "version", 4, "version %d" % version)
    return version, r.take("Q", "tensor_count"), r.take("Q", "kv_count")


def _records(r, n, count_field, count_at):
    """A count of records (pairs, tensor infos) is held to the bytes present
    before any is read (docs/FORMATS.md#gguf: every count is checked
    against them): each takes a byte at least, so a count above the bytes
    left is a truncation blamed on the count field, where it lies
    (kv_count at 16, tensor_count at 8)."""
    if n > r.left():
        raise Refusal("truncated", count_field, count_at, "%d records, only %d bytes left" % (n, r.left()))


def _metadata(r, n_kv):
    kvs, keys = [], set()
    _records(r, n_kv, "kv_count", 16)
    for i in range(n_kv):
        p = "kv[%d]" % i
        at = r.pos
        key = r.string(p + ".key")
        if not key:
            raise Refusal("constraint", p + ".key", at, "empty key")
        if key in keys:
            raise Refusal("constraint", p + ".key", at, "duplicate key %r" % _text(key))
        keys.add(key)
        vt = r.take("I", p + ".type")
        if vt > 12:
            raise Refusal("unknown-type", p + ".type", r.pos - 4, "unknown value type %d" % vt)
        vat = r.pos
        if key == b"general.alignment" and vt != 4:
            raise Refusal("constraint", p + ".type", vat - 4, "general.alignment must be u32")
        kvs.append({"key": _text(key), "type": VALUE_NAMES[vt], "offset": vat,
                    "value": _value(r, vt, p, 0), "type_at": vat - 4})
        if key == b"general.alignment":
            _alignment(r, kvs[-1], i)
    return kvs


def _alignment(r, kv, i):
    """general.alignment (pair i): checked where it is read, so that a file
    breaking two rules is blamed at the first offending byte (gguf.cpp checks
    it after the last pair; the verdict is the same)."""
    a = kv["value"]
    if a == 0 or a & (a - 1):
        raise Refusal("constraint", "kv[%d].value" % i, kv["offset"], "alignment %d not a power of two" % a)
    if a % 8:
        r.tolerate("constraint", "kv[%d].value" % i, kv["offset"], "alignment %d not a multiple of 8" % a)


def _alignment_of(kvs):
    for kv in kvs:
        if kv["key"] == "general.alignment":
            return kv["value"]
    return 32


def _infos(r, n_tensors, align):
    infos, names = [], set()
    _records(r, n_tensors, "tensor_count", 8)
    for i in range(n_tensors):
        p = "tensor[%d]" % i
        at = r.pos
        name = r.string(p + ".name")
        if len(name) > 63:
            raise Refusal("limit", p + ".name", at, "name of %d bytes" % len(name))
        # gguf.cpp keeps a name as a C string (ggml_set_name): names equal up to a NUL are
        # the same name to it, and it refuses the second as a duplicate
        cname = name.split(b"\0", 1)[0]
        if cname in names:
            raise Refusal("constraint", p + ".name", at, "duplicate name")
        names.add(cname)
        nd = r.take("I", p + ".n_dims")
        if nd > 4:
            raise Refusal("limit", p + ".n_dims", r.pos - 4, "n_dims %d" % nd)
        ne_at = r.pos
        r.need(8 * nd, p + ".ne")
        ne = [r.take("Q", "%s.ne[%d]" % (p, k)) for k in range(nd)]
        for k, x in enumerate(ne):
            if x >= 1 << 63:
                raise Refusal("negative", "%s.ne[%d]" % (p, k), ne_at + 8 * k, "ne %d" % x)
        n = 1
        for x in ne:
            n *= x
        if n >= 1 << 63:
            raise Refusal("overflow", p + ".ne", ne_at, "%d elements" % n)
        t = r.take("I", p + ".type")
        if t not in TYPES:
            raise Refusal("unknown-type", p + ".type", r.pos - 4, "ggml type %d" % t)
        tname, blk, bsize = TYPES[t]
        ne0 = ne[0] if ne else 1
        if ne0 % blk:
            # (a scalar, n_dims 0, has no ne[0]: its one element is blamed on ne)
            raise Refusal("constraint", p + (".ne[0]" if ne else ".ne"), ne_at,
                          "ne[0] %d not a multiple of %d" % (ne0, blk))
        size = n // blk * bsize
        if size >= 1 << 64:
            raise Refusal("overflow", p + ".ne", ne_at, "%d bytes" % size)
        off_at = r.pos
        off = r.take("Q", p + ".offset")
        infos.append({"name": _text(name), "raw_name": name, "c_name": _text(cname), "field": _field_of(name, i),
                      "code": t, "type": tname, "ne": ne,
                      "shape": list(reversed(ne)), "offset": off, "nbytes": size, "offset_at": off_at})
    return infos


def _field_of(name, i):
    """How a tensor's bytes are named in a refusal: by its name when that
    is printable ASCII, else (any other byte, a NUL too, or no name) by its
    place, tensor[i]: a name may hold any byte, a field path stays plain
    text."""
    if name and all(0x20 <= ch < 0x7F for ch in name):
        return name.decode("ascii")
    return "tensor[%d]" % i


def _zeros(r, start, end, field):
    chunk = r.d[start:end]
    nz = len(chunk) - len(chunk.lstrip(b"\0"))
    if nz < len(chunk):
        r.tolerate("padding", field, start + nz, "padding byte 0x%02x" % chunk[nz])


def _data(r, infos, align):
    pad_start = r.pos
    data_start = (pad_start + align - 1) // align * align
    if data_start > len(r.d):
        if infos:
            raise Refusal("truncated", "data_padding", pad_start, "the data section starts past the end")
        r.tolerate("truncated", "data_padding", pad_start, "no padding after the metadata")
        return data_start
    _zeros(r, pad_start, data_start, "data_padding")
    expect = 0
    for i, t in enumerate(infos):
        if t["offset"] != expect:
            raise Refusal("constraint", "tensor[%d].offset" % i, t["offset_at"],
                          "offset %d, expected %d" % (t["offset"], expect))
        expect = (t["offset"] + t["nbytes"] + align - 1) // align * align
    end = data_start
    for t in infos:
        at = data_start + t["offset"]
        t["absolute_offset"] = at
        if t["nbytes"] > len(r.d) - at:
            raise Refusal("truncated", t["field"], at, "needs %d bytes" % t["nbytes"])
        pad_end = (at + t["nbytes"] - data_start + align - 1) // align * align + data_start
        if pad_end > len(r.d):
            if t is not infos[-1] or at + t["nbytes"] > len(r.d):
                raise Refusal("truncated", t["field"] + ".padding", at + t["nbytes"], "padding cut")
            # the last tensor's padding cut: gguf.cpp (no_alloc) does not read it
            r.tolerate("truncated", t["field"] + ".padding", at + t["nbytes"], "the last padding is cut")
            pad_end = len(r.d)
        _zeros(r, at + t["nbytes"], pad_end, t["field"] + ".padding")
        end = pad_end
    if end < len(r.d):
        r.tolerate("trailing", "trailer", end, "%d bytes after the end" % (len(r.d) - end))
    return data_start


def read(data, lenient=False):
    """{"valid": True, "version", "alignment", "data_offset", "metadata", "tensors", "warnings"} or
    {"valid": False, "kind", "field", "offset", "message"}."""
    r = _R(data, lenient)
    try:
        version, n_t, n_kv = _header(r)
        kvs = _metadata(r, n_kv)
        align = _alignment_of(kvs)
        infos = _infos(r, n_t, align)
        start = _data(r, infos, align)
    except Refusal as e:
        return {"valid": False, "kind": e.kind, "field": e.field, "offset": e.offset, "message": e.message}
    for kv in kvs:
        del kv["type_at"]
    tensors = [{k: t[k] for k in ("name", "c_name", "type", "shape", "ne", "offset", "absolute_offset",
                                             "nbytes")}
               for t in infos]
    return {"valid": True, "version": version, "alignment": align, "data_offset": start, "metadata": kvs,
            "tensors": tensors, "warnings": r.warnings}


def read_infos(data):
    """The tensor infos of a file whose header, metadata and infos the
    lenient rules accept (name, ggml type code, ne, offset...), whatever
    its data section holds; None when they do not."""
    r = _R(data, True)
    try:
        _, n_t, n_kv = _header(r)
        kvs = _metadata(r, n_kv)
        return _infos(r, n_t, _alignment_of(kvs))
    except Refusal:
        return None


def tensor_bytes(data, result, name):
    """The bytes of tensor `name` in a file `read` accepted."""
    for t in result["tensors"]:
        if t["name"] == name:
            return data[t["absolute_offset"]:t["absolute_offset"] + t["nbytes"]]
    raise KeyError(name)


def main(argv):
    lenient = "--lenient" in argv
    files = [a for a in argv if a != "--lenient"]
    if not files:
        print(__doc__.strip().split("\n\n")[2], file=sys.stderr)
        return 2
    bad = 0
    for path in files:
        with open(path, "rb") as f:
            res = read(f.read(), lenient)
        res["file"] = path
        bad |= not res["valid"]
        print(json.dumps(res, sort_keys=True))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
