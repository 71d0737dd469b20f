#!/usr/bin/env python3
"""Write the golden cases tests/<format>/<case>/{input,expect}.

Each case is a crafted file and the verdict afmt must give it: the error
code, the field path and the byte offset (and a fragment of the message).
Run from the repository root: python3 tests/golden/make_cases.py
The files are committed; this script documents how each was made.
"""
import os
import struct
import shutil

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def case(fmt, name, data, valid, code=None, field=None, offset=None, contains=None, mode="strict",
         warnings=None, note=""):
    d = os.path.join(ROOT, fmt, name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    with open(os.path.join(d, "input"), "wb") as f:
        f.write(data)
    lines = ["# " + note if note else "# " + name, "format: " + fmt, "mode: " + mode,
             "valid: " + ("yes" if valid else "no")]
    if code is not None:
        lines.append("code: " + code)
    if field is not None:
        lines.append("field: " + field)
    if offset is not None:
        lines.append("offset: %d" % offset)
    if contains is not None:
        lines.append("message-contains: " + contains)
    if warnings is not None:
        lines.append("warnings: %d" % warnings)
    with open(os.path.join(d, "expect"), "w") as f:
        f.write("\n".join(lines) + "\n")


# ---------------------------------------------------------------- rawarray
def ra(flags=0, eltype=4, elbyte=8, size=None, dims=(3, 4), data=None, magic=b"rawarray", trailer=b""):
    n = 1
    for x in dims:
        n *= x
    if size is None:
        size = elbyte * n
    if data is None:
        data = bytes(range(256)) * (size // 256) + bytes(range(size % 256))
    h = magic + struct.pack("<5Q", flags, eltype, elbyte, size, len(dims))
    h += b"".join(struct.pack("<Q", x) for x in dims)
    return h + data + trailer


R = "rawarray"
case(R, "valid_c64_3x4", ra(), True, note="complex64 3x4 like the documented test.ra")
case(R, "valid_trailer_metadata", ra(trailer=b"created by hand; kept as metadata\n"), True,
     note="bytes after the data are free-form metadata")
case(R, "valid_scalar", ra(eltype=3, elbyte=8, dims=()), True, note="ndims 0 is a scalar")
case(R, "valid_opaque_user_defined", ra(eltype=0, elbyte=80, dims=(2,)), True, note="eltype 0: opaque 80-byte elements")
case(R, "warn_eltype5_elbyte1_bool", ra(eltype=5, elbyte=1, dims=(4,)), True, warnings=1,
     note="RawArray.jl Bool: accepted with a warning naming the conflict")
case(R, "empty_file", b"", False, "truncated", "magic", 0)
case(R, "bad_magic", ra(magic=b"rawarrax"), False, "magic", "magic", 0, "expected \"rawarray\"")
case(R, "truncated_in_flags", ra()[:12], False, "truncated", "flags", 8)
case(R, "unknown_flag_bits", ra(flags=4), False, "constraint", "flags", 8, "unknown flag bits")
case(R, "lz4_not_supported_yet", ra(flags=2), False, "unsupported", "flags", 8, "LZ4")
case(R, "big_endian_flag", ra(flags=1), False, "unsupported", "flags", 8, "big-endian")
case(R, "elbyte_zero", ra(elbyte=0, size=0), False, "constraint", "elbyte", 24)
case(R, "unknown_eltype", ra(eltype=9, elbyte=4), False, "unknown-type", "eltype", 16, "eltype = 9")
case(R, "float_width_3", ra(eltype=3, elbyte=3, size=36), False, "unknown-type", "eltype", 16)
case(R, "size_mismatch", ra(size=800), False, "constraint", "size", 32, "expected 96 = elbyte * prod(dims), found 800")
case(R, "dims_product_overflows", ra(eltype=1, elbyte=8, dims=(1 << 32, 1 << 32), size=0, data=b""), False,
     "overflow", "size", 32, "overflows 64 bits")
case(R, "claims_2_60_elements", ra(eltype=2, elbyte=1, dims=(1 << 30, 1 << 30), size=1 << 60, data=b"x" * 20),
     False, "truncated", "data", 64, "needs 1152921504606846976 bytes")
case(R, "ndims_huge", ra(dims=(3, 4))[:40] + struct.pack("<Q", 1 << 40) + b"\0" * 24, False, "limit", "ndims", 40)
case(R, "dims_truncated", ra(dims=(3, 4, 5))[:60], False, "truncated", "dims", 48)
case(R, "payload_truncated", ra()[:100], False, "truncated", "data", 64, "needs 96 bytes")

# ---------------------------------------------------------------- futhark
def fut(tag=b" i32", dims=(2, 3), data=None, version=2, rank=None, elsize=4):
    n = 1
    for x in dims:
        n *= x
    if data is None:
        data = bytes(n * elsize)
    if rank is None:
        rank = len(dims)
    return b"b" + bytes([version, rank & 0xff]) + tag + b"".join(struct.pack("<q", x) for x in dims) + data


F = "futhark"
case(F, "valid_two_values_newline", fut() + b"\n" + fut(tag=b" f64", dims=(), elsize=8) + b"\n", True,
     note="several values separated by whitespace; Futhark prints a newline after each")
case(F, "valid_leading_whitespace", b" \t\n" + fut(), True)
case(F, "valid_rank_127_empty", fut(tag=b"  u8", dims=(1,) * 126 + (0,), elsize=1), True,
     note="the largest rank Futhark reads (signed byte)")
case(F, "rank_128_negative", fut(dims=(), rank=0x80), False, "constraint", "value[0].rank", 2, "rank is negative")
case(F, "bad_version", fut(version=1), False, "constraint", "value[0].version", 1, "expected 2, found 1")
case(F, "unknown_type_tag", fut(tag=b" i33"), False, "unknown-type", "value[0].type", 3, "\" i33\"")
case(F, "type_tag_case_sensitive", fut(tag=b" I32"), False, "unknown-type", "value[0].type", 3)
case(F, "negative_dim", fut(dims=(2, -3), data=b""), False, "constraint", "value[0].dims[1]", 15, "negative")
case(F, "dim_top_bit_overflow", fut(dims=(0x4000000000000001,), data=b"\0" * 4), False, "overflow",
     "value[0].data", 15, "overflow",
     note="Futhark's C runtime accepts this after allocating 4 bytes")
case(F, "payload_truncated", fut()[:-1], False, "truncated", "value[0].data", 23)
case(F, "bool_not_0_1_strict", fut(tag=b"bool", dims=(3,), data=b"\x00\x02\x01", elsize=1), False, "value",
     "value[0].data[1]", 16, "0x02")
case(F, "bool_not_0_1_lenient", fut(tag=b"bool", dims=(3,), data=b"\x00\x02\x01", elsize=1), True, mode="lenient",
     warnings=1)
case(F, "garbage_after_value", fut() + b"xyz", False, "magic", "value[1].binary_mark", len(fut()), "expected \"b\"")
case(F, "text_value_not_supported", b"[1i32, 2i32]", False, "magic", "value[0].binary_mark", 0)
case(F, "empty_input", b"", False, "truncated", "value", 0, "at least 1",
     note="a file holds one or more values")
case(F, "only_whitespace", b" \n\n", False, "truncated", "value", 3)
