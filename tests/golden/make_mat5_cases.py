#!/usr/bin/env python3
"""Golden cases of MAT-file Level 5 (tests/mat5/<case>/input + expect),
written with struct and zlib from the rulebook (docs/FORMATS.md's mat5
section, MathWorks' matfile_format.pdf), never from afmt's output: each
expected field and offset is where this script put the byte it breaks.
Regenerate: python3 tests/golden/make_mat5_cases.py
"""
import os
import struct
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from case_files import write_cases  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mat5")

miINT8, miUINT8, miINT16, miUINT16, miINT32, miUINT32, miSINGLE, miDOUBLE = 1, 2, 3, 4, 5, 6, 7, 9
miINT64, miUINT64, miMATRIX, miCOMPRESSED, miUTF8, miUTF16, miUTF32 = 12, 13, 14, 15, 16, 17, 18
CELL, STRUCT, OBJECT, CHAR, SPARSE, DOUBLE, SINGLE, INT8, UINT8 = 1, 2, 3, 4, 5, 6, 7, 8, 9
COMPLEX, GLOBAL, LOGICAL = 0x800, 0x400, 0x200
PACK = {miINT8: "b", miUINT8: "B", miINT16: "h", miUINT16: "H", miINT32: "i", miUINT32: "I", miSINGLE: "f",
        miDOUBLE: "d", miINT64: "q", miUINT64: "Q"}


class Mat:
    """A MAT-file under construction; at[label] is where label was put
    (absolute offsets of the uncompressed file)."""

    def __init__(self, order="<"):
        self.o, self.b, self.at = order, bytearray(), {}

    def put(self, label, fmt, *v):
        if label:
            self.at[label] = len(self.b)
        self.b += struct.pack(self.o + fmt, *v)

    def raw(self, label, data):
        if label:
            self.at[label] = len(self.b)
        self.b += data


def header(m, text=b"MATLAB 5.0 MAT-file, Platform: test, Created on: golden", subsys=0, version=0x0100, endian=None):
    m.raw("text", text.ljust(116, b" "))
    m.put("subsys", "Q", subsys)
    m.put("version", "H", version)
    m.raw("endian", endian if endian is not None else (b"IM" if m.o == "<" else b"MI"))


def element(m, p, typ, data, small=None, pad_byte=0, count=None):
    """A data element at p (a label prefix): small form when small (or by
    default for 1-4 bytes), else a tag and 8-byte padding."""
    n = len(data) if count is None else count
    if small is None:
        small = 0 < len(data) <= 4
    m.at[p + "tag"] = len(m.b)
    if small:
        m.put(None, "I", (n << 16) | typ)
        m.raw(p + "data", data)
        m.raw(p + "padding", bytes([pad_byte]) * (4 - len(data)))
    else:
        m.put(None, "II", typ, n)
        m.raw(p + "data", data)
        m.raw(p + "padding", bytes([pad_byte]) * (-len(data) % 8))


def values(m, typ, vals):
    return struct.pack(m.o + "%d%s" % (len(vals), PACK[typ]), *vals)


def matrix(m, p, cls, dims, name, body=None, flags=0, nzmax=0, name_small=None, dims_size=None):
    """A miMATRIX element at p: its tag, flags, dims, name, then body(m, p)."""
    m.at[p + "type"] = len(m.b)
    m.put(None, "I", miMATRIX)
    m.at[p + "size"] = len(m.b)
    m.put(None, "I", 0)
    start = len(m.b)
    m.put(p + "flags_tag", "II", miUINT32, 8)
    m.put(p + "flags", "I", cls | flags)
    m.put(p + "nzmax", "I", nzmax)
    d = struct.pack(m.o + "%di" % len(dims), *dims)
    m.put(p + "dims_tag", "I", miINT32)
    m.put(p + "dims_size", "I", len(d) if dims_size is None else dims_size)
    m.raw(p + "dims", d)
    m.raw(p + "dims_padding", b"\0" * (-len(d) % 8))
    element(m, p + "name_", miINT8, name, small=name_small)
    if body:
        body(m, p)
    struct.pack_into(m.o + "I", m.b, start - 4, len(m.b) - start)


def numeric(typ, vals, imag=None):
    def body(m, p):
        element(m, p + "part[0].", typ, values(m, typ, vals))
        if imag is not None:
            element(m, p + "part[1].", typ, values(m, typ, imag))
    return body


def compressed(m, p, inner, fix=None):
    """inner(m2, p) writes one miMATRIX into a fresh file of m's order;
    it is stored zlib-compressed at p; fix(z) may break the stream."""
    m2 = Mat(m.o)
    inner(m2, p)
    z = bytearray(zlib.compress(bytes(m2.b)))
    if fix:
        z = fix(z)
    m.at[p + "type"] = len(m.b)
    m.put(None, "II", miCOMPRESSED, len(z))
    m.raw(p + "compressed", bytes(z))
    m.at[p + "adler"] = len(m.b) - 4
    return m2


CASES = []


def case(name, doc, m, valid=True, code=None, field=None, at=None, mode="strict", warnings=None, contains=None):
    data = bytes(m.b) if isinstance(m, Mat) else m
    offset = None
    if at is not None:
        offset = at if isinstance(at, int) else m.at[at]
    CASES.append((name, doc, data, mode, valid, code, field, offset, contains, warnings))


def simple(order="<", **kw):
    m = Mat(order)
    header(m, **kw)
    matrix(m, "var[0].", DOUBLE, [2, 3], b"a", numeric(miDOUBLE, [0, 1, 2, 3, 4, 5]))
    return m


def build():
    case("le_double_2x3", "a 2x3 double, little-endian", simple())
    case("be_double_2x3", "a 2x3 double, big-endian (MI)", simple(">"))
    m = simple(subsys=0x2020202020202020)
    case("subsys_spaces", "subsystem offset of 8 spaces: none", m)
    m = Mat()
    header(m)
    case("no_variables", "a header and nothing else", m)

    def one(cls, dims, name, body=None, flags=0, order="<", nzmax=0, **kw):
        m = Mat(order)
        header(m, **kw)
        matrix(m, "var[0].", cls, dims, name, body, flags=flags, nzmax=nzmax)
        return m

    case("double_as_uint8", "a double array stored as miUINT8 (read as the class)",
         one(DOUBLE, [1, 3], b"x", numeric(miUINT8, [1, 2, 3])))
    case("double_as_uint8_be", "a double array stored as miUINT8, big-endian (read as the class)",
         one(DOUBLE, [1, 3], b"x", numeric(miUINT8, [1, 2, 250]), order=">"))
    case("single_as_int16_be", "a single 2x1 stored as miINT16, big-endian (read as f32)",
         one(SINGLE, [2, 1], b"y", numeric(miINT16, [-300, 7]), order=">"))
    case("double_as_int64_inexact", "a double stored as miINT64 holding 2^53 + 1: valid; the view stays i64 (not "
         "every i64 is a double): exact, and it decodes", one(DOUBLE, [1, 1], b"z", numeric(miINT64, [(1 << 53) + 1])))
    case("int8_small_data", "int8 1x3 in a small element", one(INT8, [1, 3], b"b", numeric(miINT8, [1, -2, 3])))
    case("complex_double", "complex 1x2: real and imaginary parts",
         one(DOUBLE, [1, 2], b"c", numeric(miDOUBLE, [1, 3], [2, -4]), flags=COMPLEX))
    case("complex_be", "complex single, big-endian",
         one(SINGLE, [2, 1], b"c", numeric(miSINGLE, [1, 3], [2, -4]), flags=COMPLEX, order=">"))
    case("logical", "logical 1x3 (uint8 class with the logical flag)",
         one(UINT8, [1, 3], b"flag", numeric(miUINT8, [1, 0, 1]), flags=LOGICAL))
    case("global_int64", "a global int64", one(14, [1, 2], b"g", numeric(miINT64, [-1, 1 << 40]), flags=GLOBAL))
    case("long_name", "a name longer than 4 bytes: long form",
         one(DOUBLE, [1, 1], b"variable_1", numeric(miDOUBLE, [1.5])))

    def text(typ, data):
        return lambda m, p: element(m, p + "part[0].", typ, data)
    case("char_utf8", "char 1x5 as miUTF8", one(CHAR, [1, 5], b"s", text(miUTF8, b"hello")))
    case("char_utf8_multibyte", "char 1x2 as miUTF8 of 5 bytes (e acute, euro sign)",
         one(CHAR, [1, 2], b"s", text(miUTF8, "\u00e9\u20ac".encode())))
    case("char_uint16", "char 2x2 as miUINT16", one(CHAR, [2, 2], b"s", text(miUINT16, values(Mat(), miUINT16, [97, 98, 99, 100]))))

    def cell(m, p):
        matrix(m, p + "member[0].", DOUBLE, [1, 1], b"", numeric(miDOUBLE, [1]))
        m.put(p + "member[1].type", "II", miMATRIX, 0)
    case("cell_with_empty", "a 2x1 cell: a double and an empty []", one(CELL, [2, 1], b"cel", cell))

    def fields(names, L=8, small_len=True):
        def body(m, p):
            m.at[p + "name_length_tag"] = len(m.b)
            m.put(None, "Ii", (4 << 16) | miINT32, L)
            element(m, p + "names_", miINT8, b"".join(n.ljust(L, b"\0") for n in names))
        return body

    def strct(names, L=8, members=None, cls=STRUCT, classname=None):
        def body(m, p):
            if classname is not None:
                element(m, p + "class_name[0].", miINT8, classname)
            fields(names, L)(m, p)
            for i in range(len(names) if members is None else members):
                matrix(m, p + "member[%d]." % i, DOUBLE, [1, 1], b"", numeric(miDOUBLE, [i]))
        return body
    case("struct_two_fields", "a 1x1 struct with fields x and yy", one(STRUCT, [1, 1], b"st", strct([b"x", b"yy"])))
    case("struct_no_fields", "a 1x1 struct without fields", one(STRUCT, [1, 1], b"st", strct([])))
    case("object", "an object of class 'Pt' with one field",
         one(OBJECT, [1, 1], b"ob", strct([b"x"], cls=OBJECT, classname=b"Pt")))

    def sparse(ir, jc, pr, pi=None, dims=(2, 3), small=False):
        def body(m, p):
            element(m, p + "ir_", miINT32, values(m, miINT32, ir), small=None if small else False)
            element(m, p + "jc_", miINT32, values(m, miINT32, jc), small=None if small else False)
            element(m, p + "part[0].", miDOUBLE, values(m, miDOUBLE, pr))
            if pi is not None:
                element(m, p + "part[1].", miDOUBLE, values(m, miDOUBLE, pi))
        return body
    case("sparse_small_ir", "1x2 sparse of one value: ir in a small element (as scipy writes it)",
         one(SPARSE, [1, 2], b"sps", sparse([0], [0, 0, 1], [2.0], small=True), nzmax=1))
    case("sparse_no_columns", "3x0 sparse: jc [0] in a small element, ir empty",
         one(SPARSE, [3, 0], b"sps", sparse([], [0], [], small=True), nzmax=0))
    sp_ok = sparse([1, 0, 1], [0, 1, 2, 3], [2.0, 1.5, 3.0])
    case("sparse", "2x3 sparse, 3 values", one(SPARSE, [2, 3], b"sps", sp_ok, nzmax=3))
    case("sparse_complex", "2x3 complex sparse",
         one(SPARSE, [2, 3], b"sps", sparse([1, 0, 1], [0, 1, 2, 3], [2, 1.5, 3], [1, 1, 1]), flags=COMPLEX, nzmax=4))
    case("sparse_logical", "2x2 logical sparse",
         one(SPARSE, [2, 2], b"sps", lambda m, p: (element(m, p + "ir_", miINT32, values(m, miINT32, [0]), small=False),
                                                   element(m, p + "jc_", miINT32, values(m, miINT32, [0, 1, 1]), small=False),
                                                   element(m, p + "part[0].", miUINT8, b"\1")), flags=LOGICAL, nzmax=1))
    # compressed
    m = Mat()
    header(m)
    compressed(m, "var[0].", lambda m2, p: matrix(m2, p, DOUBLE, [2, 3], b"z", numeric(miDOUBLE, [0, 1, 2, 3, 4, 5])))
    matrix(m, "var[1].", INT8, [1, 1], b"b", numeric(miINT8, [7]))
    case("compressed", "a miCOMPRESSED double beside a plain int8", m)
    m = Mat(">")
    header(m)
    compressed(m, "var[0].", lambda m2, p: matrix(m2, p, CELL, [1, 1], b"cz", cell1))
    case("compressed_be_cell", "a compressed cell, big-endian", m)

    # ---- invalid: the header
    case("level4_text", "a zero in the first 4 bytes: a Level 4 file",
         b"\0" + bytes(simple().b[1:]), valid=False, code="constraint", field="text[0]", at=0)
    m = simple()
    m.b[2] = 0xFF
    case("text_not_ascii", "byte 2 of the header text is 0xff", m, valid=False, field="text[2]", at=2)
    m = simple()
    case("header_short", "100 bytes: less than a header", bytes(m.b[:100]), valid=False, code="truncated", field="text", at=0)
    case("v73", "version 0x0200: v7.3 (HDF5)", simple(version=0x0200), valid=False, code="unsupported",
         field="version", at=124, contains="v7.3")
    case("version_0101", "version 0x0101", simple(version=0x0101), valid=False, field="version", at=124)
    case("endian_xx", "endian indicator XX", simple(endian=b"XX"), valid=False, field="endian", at=126)
    case("subsys_bogus", "subsystem offset 1", simple(subsys=1), valid=False, field="subsys", at=116)
    # checked at the end, where a stream knows the length too (fuzz finding
    # stream-mat5-subsystem-offset-against-unknown-length)
    case("subsys_past_end", "subsystem offset past the file's end", simple(subsys=1 << 20), valid=False,
         field="subsys", at=116)
    # ---- top-level elements
    m = Mat()
    header(m)
    m.put("var[0].type", "II", miINT32, 0)
    case("top_int32", "a top-level miINT32", m, valid=False, field="var[0].type", at=128)
    m = Mat()
    header(m)
    m.put("var[0].type", "I", miMATRIX)
    m.put("var[0].size", "I", 0)
    case("top_empty_matrix", "a top-level miMATRIX of 0 bytes", m, valid=False, field="var[0].size", at=132)
    m = simple()
    struct.pack_into("<I", m.b, m.at["var[0].size"], 200)
    case("matrix_truncated", "a miMATRIX larger than the file", m, valid=False, code="truncated", field="var[0].matrix",
         at=136)
    m = simple()
    m.b += b"\0\0\0\0"
    case("trailing_4_bytes", "4 bytes after the last element: a cut tag", m, valid=False, code="truncated",
         field="var[1].size", at=len(m.b))
    # ---- flags and class
    for nm, cls, fl, code, why in (("flags_bit_8", DOUBLE, 0x100, "constraint", None),
                                   ("class_16", 16, 0, "unsupported", "function"),
                                   ("class_17", 17, 0, "unsupported", "opaque"),
                                   ("class_0", 0, 0, "constraint", None), ("class_99", 99, 0, "constraint", None),
                                   ("complex_char", CHAR, COMPLEX, "constraint", "complex"),
                                   ("logical_double", DOUBLE, LOGICAL, "constraint", "logical"),
                                   ("complex_logical", UINT8, COMPLEX | LOGICAL, "constraint", None)):
        case(nm, "flags 0x%x" % (cls | fl), one(cls, [1, 1], b"a", numeric(miDOUBLE, [1]), flags=fl), valid=False,
             code=code, field="var[0].flags", at="var[0].flags", contains=why)
    # ---- dims and name
    m = Mat()
    header(m)
    matrix(m, "var[0].", DOUBLE, [1], b"a", numeric(miDOUBLE, [1]))
    case("one_dim", "1 dimension", m, valid=False, code="size", field="var[0].dims_size", at="var[0].dims_size")
    case("dim_negative", "dims 1 x -1", one(DOUBLE, [1, -1], b"a"), valid=False, field="var[0].dims[1]", at=164)
    case("name_empty", "a top-level variable without a name", one(DOUBLE, [1, 1], b"", numeric(miDOUBLE, [1])),
         valid=False, field="var[0].name_tag", at="var[0].name_tag")
    case("name_digit", "name 1a", one(DOUBLE, [1, 1], b"1a", numeric(miDOUBLE, [1])), valid=False,
         field="var[0].name[0]", at="var[0].name_data")
    case("name_dash", "name a-b", one(DOUBLE, [1, 1], b"a-b", numeric(miDOUBLE, [1])), valid=False,
         field="var[0].name[1]", at=1 + 172)
    case("name_64", "a 64-character name", one(DOUBLE, [1, 1], b"a" * 64, numeric(miDOUBLE, [1])), valid=False,
         field="var[0].name_tag", at="var[0].name_tag")
    # ---- data
    case("count_short", "2x3 double with 5 values", one(DOUBLE, [2, 3], b"a", numeric(miDOUBLE, [1] * 5)),
         valid=False, code="size", field="var[0].part[0].tag", at="var[0].part[0].tag")
    case("data_type_8", "data of reserved type 8", one(DOUBLE, [1, 1], b"a", lambda m, p: element(m, p + "part[0].", 8, b"\0" * 8)),
         valid=False, code="unknown-type", field="var[0].part[0].tag", at="var[0].part[0].tag")
    case("data_matrix", "data of type miMATRIX", one(DOUBLE, [1, 1], b"a", lambda m, p: element(m, p + "part[0].", 14, b"\0" * 8)),
         valid=False, code="unknown-type", field="var[0].part[0].tag", at="var[0].part[0].tag")
    case("char_utf32", "char as miUTF32", one(CHAR, [1, 1], b"s", text(miUTF32, b"a\0\0\0")), valid=False,
         code="unknown-type", field="var[0].part[0].tag", at="var[0].part[0].tag")
    case("char_as_double", "char data of miDOUBLE", one(CHAR, [1, 1], b"s", text(miDOUBLE, b"\0" * 8)), valid=False,
         code="unknown-type", field="var[0].part[0].tag", at="var[0].part[0].tag")
    case("double_as_utf8", "double data of miUTF8", one(DOUBLE, [1, 1], b"s", text(miUTF8, b"a")), valid=False,
         code="unknown-type", field="var[0].part[0].tag", at="var[0].part[0].tag")
    case("complex_missing_imag", "complex flag without the imaginary part",
         one(DOUBLE, [1, 1], b"c", numeric(miDOUBLE, [1]), flags=COMPLEX), valid=False, code="truncated")
    case("logical_2", "logical byte 2", one(UINT8, [1, 2], b"f", numeric(miUINT8, [1, 2]), flags=LOGICAL),
         valid=False, code="value", field="var[0].part[0].value[1]", at=1 + 176 + 4)
    case("logical_int16", "logical stored as miINT16", one(UINT8, [1, 1], b"f", numeric(miINT16, [1]), flags=LOGICAL),
         valid=False, code="unknown-type", field="var[0].part[0].tag", at="var[0].part[0].tag")
    bad_pad = one(DOUBLE, [1, 1], b"a", lambda m, p: element(m, p + "part[0].", miINT16, b"\1\0\2\0\3\0", pad_byte=0))
    case("leftover_bytes", "6 bytes of int16 for a 1x1", bad_pad, valid=False, code="size", field="var[0].part[0].tag",
         at="var[0].part[0].tag")
    m = Mat()
    header(m)
    matrix(m, "var[0].", INT8, [1, 1], b"a", lambda m, p: element(m, p + "part[0].", miINT8, b"\7", pad_byte=0xAA))
    case("small_padding_nonzero", "unused bytes of a small element are not zero", m, valid=False, code="padding",
         field="var[0].part[0].padding", at="var[0].part[0].padding")
    case("small_padding_nonzero_lenient", "unused bytes of a small element: warned", m, mode="lenient", warnings=1)
    m = Mat()
    header(m)
    matrix(m, "var[0].", DOUBLE, [1, 1], b"abcdef", numeric(miDOUBLE, [1]))
    m.b[m.at["var[0].name_padding"]] = 0x20
    case("name_padding_nonzero", "a space in a name's padding", m, valid=False, code="padding",
         field="var[0].name_padding", at="var[0].name_padding")
    case("name_padding_nonzero_lenient", "a space in a name's padding: warned", m, mode="lenient", warnings=1)
    m = Mat()
    header(m)
    matrix(m, "var[0].", INT8, [1, 1], b"a", lambda m, p: element(m, p + "part[0].", miINT8, b"\7", small=False))
    del m.b[-7:]
    struct.pack_into("<I", m.b, m.at["var[0].size"], len(m.b) - m.at["var[0].size"] - 4)
    case("last_padding_cut", "the last sub-element's padding cut by the end of its miMATRIX", m, valid=False,
         code="truncated", field="var[0].part[0].padding", at="var[0].part[0].padding")
    case("last_padding_cut_lenient", "the last sub-element's padding cut: warned", m, mode="lenient", warnings=1)
    # ---- sparse
    for nm, sp, fld, code in (("sparse_jc0", sparse([1, 0, 1], [1, 1, 2, 3], [1, 2, 3]), "var[0].jc[0]", "constraint"),
                              ("sparse_jc_decreasing", sparse([1, 0, 1], [0, 2, 1, 3], [1, 2, 3]), "var[0].jc[2]", "constraint"),
                              ("sparse_jc_last", sparse([1, 0, 1], [0, 1, 2, 2], [1, 2, 3]), "var[0].jc[3]", "constraint"),
                              ("sparse_ir_range", sparse([1, 2, 1], [0, 1, 2, 3], [1, 2, 3]), "var[0].ir[1]", "constraint"),
                              ("sparse_ir_unsorted", sparse([1, 0, 1], [0, 2, 2, 3], [1, 2, 3]), "var[0].ir[1]", "constraint"),
                              ("sparse_ir_repeated", sparse([1, 1, 1], [0, 2, 2, 3], [1, 2, 3]), "var[0].ir[1]", "constraint"),
                              ("sparse_ir_negative", sparse([1, -1, 1], [0, 1, 2, 3], [1, 2, 3]), "var[0].ir[1]", "constraint"),
                              ("sparse_pr_short", sparse([1, 0, 1], [0, 1, 2, 3], [1, 2]), "var[0].part[0].tag", "size")):
        m = one(SPARSE, [2, 3], b"sps", sp, nzmax=3)
        idx = int(fld[-2]) if fld.endswith("]") and fld[-3] == "[" else 0
        base = "var[0].jc_data" if ".jc[" in fld else "var[0].ir_data" if ".ir[" in fld else "var[0].part[0].tag"
        case(nm, nm.replace("_", " "), m, valid=False, code=code, field=fld, at=m.at[base] + 4 * idx * (base != "var[0].part[0].tag"))
    m = one(SPARSE, [2, 3], b"sps", sp_ok, nzmax=2)
    case("sparse_nzmax", "nzmax 2 for 3 values", m, valid=False, field="var[0].nzmax", at="var[0].nzmax")
    m = Mat()
    header(m)
    matrix(m, "var[0].", SPARSE, [2, 3, 1], b"sps", sp_ok, nzmax=3)
    case("sparse_3d", "a sparse array of 3 dims", m, valid=False, field="var[0].dims_size", at="var[0].dims_size")
    # ---- cell, struct, object
    def bad_cell(m, p):
        element(m, p + "member[0].", miDOUBLE, values(m, miDOUBLE, [1]))
    m = one(CELL, [1, 1], b"c", bad_cell)
    case("cell_not_matrix", "a cell element of miDOUBLE", m, valid=False, field="var[0].member[0].tag",
         at="var[0].member[0].tag")
    m = one(CELL, [1, 2], b"c", lambda m, p: m.put(p + "member[0].type", "II", miMATRIX, 0))
    case("cell_short", "a 1x2 cell with one element", m, valid=False, code="truncated")
    m = one(STRUCT, [1, 1], b"st", strct([b"x", b""]))
    case("struct_empty_field_name", "a struct field without a name", m, valid=False,
         field="var[0].field_name[1].chars[0]", at=m.at["var[0].names_data"] + 8)
    m = one(STRUCT, [1, 1], b"st", strct([b"x\xe9"]))
    case("struct_field_name_latin1", "a field name byte 0xe9", m, valid=False,
         field="var[0].field_name[0].chars[1]", at=m.at["var[0].names_data"] + 1)
    m = one(STRUCT, [1, 1], b"st", strct([b"x"], members=0))
    case("struct_member_missing", "a struct field without its value", m, valid=False, code="truncated")
    m = one(OBJECT, [1, 1], b"ob", strct([b"x"], cls=OBJECT, classname=b""))
    case("object_no_class_name", "an object with an empty class name", m, valid=False,
         field="var[0].class_name[0].tag", at="var[0].class_name[0].tag")

    def nest(depth):
        def body(m, p):
            if depth > 0:
                matrix(m, p + "member[0].", CELL, [1, 1], b"", nest(depth - 1))
            else:
                matrix(m, p + "member[0].", DOUBLE, [1, 1], b"", numeric(miDOUBLE, [1]))
        return body
    case("nested_32", "32 miMATRIX deep", one(CELL, [1, 1], b"deep", nest(29)))
    m = one(CELL, [1, 1], b"deep", nest(31))
    case("nested_33", "33 miMATRIX deep: past the bound", m, valid=False, code="limit")
    # ---- compressed
    def z(fix=None, order="<", inner=None):
        m = Mat(order)
        header(m)
        compressed(m, "var[0].", inner or (lambda m2, p: matrix(m2, p, DOUBLE, [1, 2], b"z", numeric(miDOUBLE, [1, 2]))), fix)
        return m

    def set_adler(zz):
        zz[-1] ^= 1
        return zz
    m = z(set_adler)
    case("z_adler", "a wrong Adler-32", m, valid=False, code="value", field="var[0].compressed", at="var[0].adler")
    m = z(lambda zz: zz + b"\0\0\0\0")
    case("z_after_stream", "4 bytes after the zlib stream", m, valid=False, code="size", field="var[0].compressed",
         at=m.at["var[0].adler"])
    m = z(lambda zz: zz[:-2])
    case("z_adler_cut", "the Adler-32 cut", m, valid=False, code="truncated", field="var[0].compressed",
         at=m.at["var[0].adler"] + 2)
    m = z(lambda zz: bytearray(b"\x79" + zz[1:]))
    case("z_header", "zlib header byte 0x79", m, valid=False, code="value", field="var[0].compressed",
         at="var[0].compressed")
    m = z(inner=lambda m2, p: (matrix(m2, p, DOUBLE, [1, 2], b"z", numeric(miDOUBLE, [1, 2])), m2.b.extend(b"\0" * 8)))
    case("z_inflates_more", "the stream holds 8 bytes past the inner element", m, valid=False, code="size",
         field="var[0].compressed", at="var[0].compressed")

    def short_inner(m2, p):
        matrix(m2, p, DOUBLE, [1, 2], b"z", numeric(miDOUBLE, [1, 2]))
        struct.pack_into("<I", m2.b, 4, struct.unpack_from("<I", m2.b, 4)[0] + 8)
    m = z(inner=short_inner)
    case("z_inflates_less", "the inner tag says 8 bytes more than the stream holds", m, valid=False, code="size",
         field="var[0].compressed", at="var[0].compressed")

    def inner_int8(m2, p):
        m2.put(None, "II", miINT8, 8)
        m2.b += b"\0" * 8
    m = z(inner=inner_int8)
    case("z_inner_not_matrix", "a compressed miINT8", m, valid=False, field="var[0].inner_type", at="var[0].compressed")
    m = z(inner=lambda m2, p: matrix(m2, p, DOUBLE, [1, 2], b"9z", numeric(miDOUBLE, [1, 2])))
    case("z_inner_bad_name", "a compressed variable named 9z", m, valid=False, field="var[0].name[0]",
         at="var[0].compressed", contains="inflates to")
    case("z_be", "a compressed double, big-endian", z(order=">"))


def cell1(m, p):
    matrix(m, p + "member[0].", DOUBLE, [1, 1], b"", numeric(miDOUBLE, [1]))


def main():
    build()
    write_cases('mat5', OUT, CASES)


if __name__ == "__main__":
    sys.exit(main())
