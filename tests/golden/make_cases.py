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


# DAPHNE matrices are a series of blocks (docs/FORMATS.md: several blocks must tile
# the matrix): errors inside a block name it, "block[0].nnz".
DAPHNE_BLOCK_FIELDS = {"block_row", "block_col", "block_rows", "block_cols", "block_type", "block_value_type",
                       "nnz", "row_offsets", "col_indices", "data", "coo_nnz"}


def case(fmt, name, data, valid, code=None, field=None, offset=None, contains=None, mode="strict",
         warnings=None, note=""):
    if fmt == "daphne" and field and not name.startswith("frame") and field.split("[")[0] in DAPHNE_BLOCK_FIELDS:
        field = "block[0]." + field
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


def needs_elems(count, width, data, offset):
    """The exact truncation message for an array field of `count` elements of
    `width` bytes at `offset` in `data`: the numbers come from the case's own
    construction, never from afmt's output."""
    left = max(len(data) - offset, 0)
    return "needs %d element%s of %d bytes (%d bytes), only %d left" % (
        count, "" if count == 1 else "s", width, count * width, left)


def known_types(fmt, table):
    """'; known: ...' as an unknown type code lists the valid ones: every
    entry of the spec's table, in the spec's order."""
    import json
    with open(os.path.join(ROOT, "..", "spec", fmt + ".json")) as f:
        entries = json.load(f)["tables"][table]["entries"]
    out = []
    for e in entries:
        if "key" not in e:
            out.append("%s: %s" % (e["when"], e["dtype"]))
            continue
        keys = ["'%s'" % k if isinstance(k, str) else str(k) for k in e["key"]]
        out.append(("(%s)" % ", ".join(keys) if len(keys) > 1 else keys[0]) + " " + e["dtype"])
    return "; known: " + ", ".join(out)


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
case(R, "warn_eltype5_elbyte1_bool", ra(eltype=5, elbyte=1, dims=(4,), data=b"\x00\x01\x01\x00"), True, warnings=1,
     note="RawArray.jl Bool: accepted with a warning naming the conflict")
case(R, "empty_file", b"", False, "truncated", "magic", 0)
case(R, "bad_magic", ra(magic=b"rawarrax"), False, "magic", "magic", 0, "expected \"rawarray\"")
case(R, "truncated_in_flags", ra()[:12], False, "truncated", "flags", 8)
case(R, "unknown_flag_bits", ra(flags=4), False, "constraint", "flags", 8, "unknown flag bits")
case(R, "lz4_block_malformed", ra(flags=2, size=96), False, "value", "data", 65, "malformed LZ4 block",
     note="flags bit 1: the data must be one LZ4 block; these bytes are not one")
case(R, "lz4_block_wrong_size", ra(flags=2, size=5, data=b"\x40abcd"), False, "size", "data", 69,
     "it must decompress to 96 bytes",
     note="a well-formed block of 4 literal bytes where elbyte*prod(dims) = 96")
case(R, "lz4_size_past_end", ra(flags=2, size=1 << 40, data=b"\x40abcd"), False, "truncated", "data", 64)
case(R, "big_endian_flag", ra(flags=1), False, "unsupported", "flags", 8, "big-endian")
case(R, "elbyte_zero", ra(elbyte=0, size=0), False, "constraint", "elbyte", 24)
case(R, "unknown_eltype", ra(eltype=9, elbyte=4), False, "unknown-type", "eltype", 16,
     "(eltype = 9, elbyte = 4): unknown type code" + known_types("rawarray", "element"))
case(R, "float_width_3", ra(eltype=3, elbyte=3, size=36), False, "unknown-type", "eltype", 16)
case(R, "bool_byte_not_0_1", ra(eltype=5, elbyte=1, dims=(4,), data=b"\x00\x01\x02\x00"), False, "value",
     "data[2]", 58, "0x02", note="eltype 5 elbyte 1 (RawArray.jl Bool): bytes must be 0 or 1")
case(R, "bool_byte_not_0_1_lenient", ra(eltype=5, elbyte=1, dims=(4,), data=b"\x00\x01\x02\x00"), True,
     mode="lenient", warnings=2, note="the eltype warning and the bool-byte tolerance")
case(R, "size_mismatch", ra(size=800), False, "constraint", "size", 32, "expected 96 = elbyte * prod(dims), found 800")
case(R, "dims_product_overflows", ra(eltype=1, elbyte=8, dims=(1 << 32, 1 << 32), size=0, data=b""), False,
     "overflow", "size", 32, "overflows 64 bits")
case(R, "claims_2_60_elements", ra(eltype=2, elbyte=1, dims=(1 << 30, 1 << 30), size=1 << 60, data=b"x" * 20),
     False, "truncated", "data", 64, "needs 1152921504606846976 bytes")
case(R, "ndims_huge", ra(dims=(3, 4))[:40] + struct.pack("<Q", 1 << 40) + b"\0" * 24, False, "limit", "ndims", 40)
case(R, "valid_c32", ra(eltype=4, elbyte=4, dims=(2, 3)), True, warnings=0,
     note="complex of two f16 (docs/FORMATS.md#rawarray): an element type of its own, c32")
case(R, "c32_size_mismatch", ra(eltype=4, elbyte=4, dims=(2, 3), size=48), False, "constraint", "size", 32,
     "expected 24 = elbyte * prod(dims), found 48")
_d = ra(dims=(3, 4, 5))[:60]
case(R, "dims_truncated", _d, False, "truncated", "dims", 48, needs_elems(3, 8, _d, 48))
_d = ra(dims=(2,))[:48] + b"\0" * 3
case(R, "dims_truncated_whole", _d, False, "truncated", "dims", 48, needs_elems(1, 8, _d, 48),
     note="one dim claimed, none of its 8 bytes there: the need is 8, not 2^64-1")
case(R, "payload_truncated", ra()[:100], False, "truncated", "data", 64, "needs 96 bytes")
case(R, "lz4_empty_block", ra(flags=2, eltype=3, elbyte=4, dims=(0,), size=0, data=b""), False, "constraint",
     "size", 32, "liblz4 rejects a 0-byte block", note="zero elements with a 0-byte LZ4 block: liblz4 fails on it")
case(R, "lz4_empty_block_lenient", ra(flags=2, eltype=3, elbyte=4, dims=(0,), size=0, data=b""), False,
     "constraint", "size", 32, mode="lenient", note="the reference reader fails, so lenient refuses too")
case(R, "valid_lz4_zero_elements", ra(flags=2, eltype=3, elbyte=4, dims=(0,), size=1, data=b"\x00"), True,
     warnings=0, note="what liblz4 writes for an empty input: the 1-byte block 00")

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
case(F, "comment_before_binary", b"-- hello\n" + fut(), False, "constraint", "value[0].binary_mark", 9,
     "a -- comment before a binary value", note="Futhark's C runtime does not accept a comment before a binary value")
case(F, "comment_before_binary_lenient", b"-- hello\n" + fut(), True, mode="lenient", warnings=1,
     note="the other Futhark readers do: lenient warns")
case(F, "comment_before_second_binary", fut() + b"\n-- next\n" + fut(), False, "constraint",
     "value[1].binary_mark", len(fut()) + 9)
case(F, "valid_comment_before_text", b"-- hello\n[1, 2]\n", True, warnings=0,
     note="comments belong to the text syntax")
_d = fut(dims=(2, 3))[:7 + 9]
case(F, "dims_truncated", _d, False, "truncated", "value[0].dims", 7, needs_elems(2, 8, _d, 7))
case(F, "bool_not_0_1_strict", fut(tag=b"bool", dims=(3,), data=b"\x00\x02\x01", elsize=1), False, "value",
     "value[0].data[1]", 16, "0x02")
case(F, "bool_not_0_1_lenient", fut(tag=b"bool", dims=(3,), data=b"\x00\x02\x01", elsize=1), True, mode="lenient",
     warnings=1)
case(F, "garbage_after_value", fut() + b"xyz", False, "value", "value[1].element[0]", len(fut()), "found 'xyz'",
     note="after a value, anything that is not whitespace is another value: here not a valid text value")
case(F, "text_value_array", b"[1i32, 2i32]", True, note="text values are read too (docs/FORMATS.md#futhark)")
case(F, "text_and_binary_mixed", fut() + b"\n-- a comment\n[[1.5f32, 2f32]] true\n" + fut(tag=b" f64", dims=(), elsize=8), True)
case(F, "text_empty_array", b"empty([2][0]i32)", True)
case(F, "text_mixed_types", b"[1, 2i64]", False, "constraint", "value[0].element[1]", 4, "differs from i32")
case(F, "text_irregular", b"[[1], [1, 2]]", False, "constraint", "value[0]", 10)
case(F, "text_out_of_range", b"300i8", False, "value", "value[0].element[0]", 0, "i8")
case(F, "text_bare_empty_brackets", b"[]", False, None, None, None, "empty(")
case(F, "text_unterminated", b"[1, 2", False, "truncated")
case(F, "empty_input", b"", False, "truncated", "value", 0, "at least 1",
     note="a file holds one or more values")
case(F, "only_whitespace", b" \n\n", False, "truncated", "value", 3)

# ---------------------------------------------------------------- tenbin
# docs/FORMATS.md#tenbin: chunks of magic "~TenBin~", int64 payload length, the
# payload, zero bytes up to roundup(length, 64).  An array is a header chunk
# (dtype, info, ndim, dims as int64 words) followed by a data chunk.
TEN_MAGIC = b"~TenBin~"
TEN_ITEMSIZE = {b"f2": 2, b"f4": 4, b"f8": 8, b"i1": 1, b"i2": 2, b"i4": 4, b"i8": 8,
                b"u1": 1, b"u2": 2, b"u4": 4, b"u8": 8}


def roundup64(n):
    return (n + 63) // 64 * 64


def ten_chunk(payload, length=None, magic=TEN_MAGIC, pad=None):
    """One chunk; pad=None writes the zero padding a conforming writer writes."""
    if length is None:
        length = len(payload)
    if pad is None:
        pad = b"\0" * (roundup64(len(payload)) - len(payload))
    return magic + struct.pack("<q", length) + payload + pad


def ten_header(dtype=b"f4", dims=(2, 3), info=b"", ndim=None, extra=b""):
    if ndim is None:
        ndim = len(dims)
    return (dtype.ljust(8, b"\0") + info.ljust(8, b"\0") + struct.pack("<q", ndim) +
            b"".join(struct.pack("<q", x) for x in dims) + extra)


def ten_data(dtype=b"f4", dims=(2, 3)):
    n = 1
    for x in dims:
        n *= x
    size = n * TEN_ITEMSIZE[dtype]
    return bytes((7 * i + 1) & 0xff for i in range(size))


def ten(dtype=b"f4", dims=(2, 3), info=b""):
    """A conforming array: header chunk then data chunk."""
    return ten_chunk(ten_header(dtype, dims, info)) + ten_chunk(ten_data(dtype, dims))


T = "tenbin"
# offsets of the standard f4[2,3] array: header payload 40 bytes (chunk 80),
# data payload 24 bytes (chunk 80): data_magic 80, data_len 88, data 96, padding 120..160
case(T, "valid_f4_2x3", ten(), True, warnings=0, note="one f4[2,3] array, as tenbin.save writes it")
case(T, "valid_two_arrays_infos", ten(b"f8", (28, 28), b"xs") + ten(b"f8", (28, 28), b"ys"), True, warnings=0,
     note="two arrays with info strings, like webdataset's own test shard")
case(T, "valid_u4", ten(b"u4", (5,)), True, warnings=0,
     note="u4: the reference table misspells uint32, afmt supports it")
case(T, "valid_0d_scalar", ten(b"f4", ()), True, warnings=0,
     note="0-d array: header of 24 bytes, 4 data bytes; the reference writes it, afmt accepts it")
case(T, "valid_empty_data_chunk", ten(b"f8", (0, 5)), True, warnings=0,
     note="an empty data chunk is 16 bytes: no padding after a zero-length payload")
case(T, "valid_no_padding_needed", ten(b"f8", (2, 2, 2, 1, 1)), True, warnings=0,
     note="header payload 24+8*5 = 64 and data payload 64: both chunks carry no padding")
case(T, "valid_ndim_9", ten(b"f2", (1,) * 8 + (3,)), True, warnings=0,
     note="9 dimensions: the most the reference writer writes")
case(T, "valid_info_8_chars", ten(b"i2", (3,), b"abcdefgh"), True, warnings=0,
     note="info fills all 8 bytes, no NUL")
case(T, "valid_all_dtypes", b"".join(ten(k, (3,), k) for k in sorted(TEN_ITEMSIZE)), True, warnings=0,
     note="one array of each of the 11 dtype codes")
case(T, "valid_empty_file", b"", True, warnings=0,
     note="zero arrays: what tenbin.write writes for an empty list, and what its reader reads back as []")

# chunk structure
case(T, "odd_chunk_count", ten() + ten_chunk(ten_header()), False, "truncated", "array[1].data_magic", 240,
     note="a header chunk without its data chunk (the reference decoder silently drops it)")
case(T, "odd_chunk_count_lenient", ten() + ten_chunk(ten_header()), False, "truncated", "array[1].data_magic",
     240, mode="lenient", note="odd chunk counts are a reference bug afmt is safer than, not a tolerance")
case(T, "bad_magic_header_chunk", ten_chunk(ten_header(), magic=b"~TenBin!") + ten_chunk(ten_data()), False,
     "magic", "array[0].header_magic", 0)
case(T, "bad_magic_data_chunk", ten_chunk(ten_header()) + ten_chunk(ten_data(), magic=b"~tenbin~"), False,
     "magic", "array[0].data_magic", 80)
case(T, "bad_magic_second_array", ten() + ten()[:3] + b"X" + ten()[4:], False, "magic",
     "array[1].header_magic", 160)
case(T, "negative_header_len", ten_chunk(ten_header(), length=-40) + ten_chunk(ten_data()), False, "negative",
     "array[0].header_len", 8, "negative")
case(T, "negative_data_len", ten_chunk(ten_header()) + ten_chunk(ten_data(), length=-24), False, "negative",
     "array[0].data_len", 88, "negative")
case(T, "negative_data_len_lenient", ten_chunk(ten_header()) + ten_chunk(ten_data(), length=-24), False,
     "negative", "array[0].data_len", 88, mode="lenient")
case(T, "crafted_loop_0_0_0_minus64",
     b"".join(TEN_MAGIC + struct.pack("<q", n) for n in (0, 0, 0, -64)), False, "truncated", "array[0].dtype", 16,
     note="the 64-byte file on which the reference decoder loops forever (samples/tenbin/invalid_chunk_loop.ten)")
case(T, "crafted_loop_0_0_0_minus64_lenient",
     b"".join(TEN_MAGIC + struct.pack("<q", n) for n in (0, 0, 0, -64)), False, "truncated", "array[0].dtype", 16,
     mode="lenient")
case(T, "huge_header_len", TEN_MAGIC + struct.pack("<q", 1 << 62) + ten_header(), False, "truncated",
     "array[0].header", 16, note="a header chunk claiming 2^62 bytes in a 56-byte file")
case(T, "huge_data_len", ten_chunk(ten_header(b"f8", (1 << 59,))) + TEN_MAGIC + struct.pack("<q", 1 << 62) +
     b"\0" * 64, False, "truncated", "array[0].data_chunk", 96,
     note="dims agree with a 2^62-byte data chunk that is not there")
case(T, "trailing_garbage", ten() + b"\n", False, "truncated", "array[1].header_magic", 160,
     note="anything after the last chunk is read as another chunk: the reference reader rejects it too")
case(T, "trailing_zero_chunk_header", ten() + b"\0" * 16, False, "magic", "array[1].header_magic", 160,
     mode="lenient", note="trailing zero bytes are not a chunk, even in lenient mode")

# header length
case(T, "header_len_extra_word", ten_chunk(ten_header(extra=b"\0" * 8)) + ten_chunk(ten_data()), False, "size",
     "array[0].header_len", 8, "8 bytes of header are not used: its content takes 40 of header_len = 48",
     note="header_len 48 for ndim 2: the writer writes 24+8*ndim = 40")
case(T, "header_len_extra_word_lenient", ten_chunk(ten_header(extra=b"\0" * 8)) + ten_chunk(ten_data()), True,
     mode="lenient", warnings=1, note="the reference reader ignores words after the dims")
case(T, "header_len_not_multiple_of_8", ten_chunk(ten_header(extra=b"\0" * 4)) + ten_chunk(ten_data()), False,
     "size", "array[0].header_len", 8, "int64 words", note="header_len 44")
case(T, "header_len_not_multiple_of_8_lenient", ten_chunk(ten_header(extra=b"\0" * 4)) + ten_chunk(ten_data()),
     False, mode="lenient",
     note="header_len 44: the reference reader's np.frombuffer(h, 'i8') raises on it, so it is no tolerance")
case(T, "header_len_too_short_for_dims", ten_chunk(ten_header()[:32]) + ten_chunk(ten_data()), False,
     "truncated", "array[0].dims", 40,
     note="header_len 32 holds ndim 2 but only one dim")
case(T, "header_len_too_short_for_dims_lenient", ten_chunk(ten_header()[:32]) + ten_chunk(ten_data()), False,
     "truncated", "array[0].dims", 40, mode="lenient")
case(T, "header_len_too_short_for_ndim", ten_chunk(ten_header()[:16]) + ten_chunk(ten_data()), False,
     "truncated", "array[0].ndim", 32, "needs 8 bytes for ndim, only 0 left in region header: header_len = 16 is too short")
_d = ten() + TEN_MAGIC + struct.pack("<q", 0) + b"\0" * 16
case(T, "header_len_0_in_second_array", _d, False, "truncated", "array[1].dtype", len(ten()) + 16,
     "needs 8 bytes for dtype, only 0 left in region header: header_len = 0 is too short for its fields",
     note="the header chunk is empty although the file goes on: the chunk length is at fault, not the file")
case(T, "header_len_0_at_eof", TEN_MAGIC + struct.pack("<q", 0), False, "truncated", "array[0].dtype", 16,
     "only 0 left in region header: header_len = 0 is too short for its fields, and the input ends there too",
     note="header_len = 0 and nothing after it: the header region is too short for its fields, whatever "
          "the input holds")

# padding
_bad_hpad = ten_chunk(ten_header(), pad=b"\0" * 10 + b"\x01" + b"\0" * 13) + ten_chunk(ten_data())
case(T, "header_padding_nonzero", _bad_hpad, False, "padding", "array[0].header_padding", 66, "0x01")
case(T, "header_padding_nonzero_lenient", _bad_hpad, True, mode="lenient", warnings=1)
_bad_dpad = ten_chunk(ten_header()) + ten_chunk(ten_data(), pad=b"\0" * 39 + b"\xff")
case(T, "data_padding_nonzero", _bad_dpad, False, "padding", "array[0].data_padding", 159, "0xff")
case(T, "data_padding_nonzero_lenient", _bad_dpad, True, mode="lenient", warnings=1)
case(T, "both_paddings_nonzero_lenient", ten_chunk(ten_header(), pad=b"\x01" * 24) +
     ten_chunk(ten_data(), pad=b"\x02" * 40), True, mode="lenient", warnings=2,
     note="one warning per tolerated chunk padding")
case(T, "missing_final_padding", ten()[:120], False, "truncated", "array[0].data_padding", 120,
     note="the file ends right after the last payload")
case(T, "missing_final_padding_lenient", ten()[:120], True, mode="lenient", warnings=1)
case(T, "partial_final_padding", ten()[:130], False, "truncated", "array[0].data_padding", 120)
case(T, "partial_final_padding_lenient", ten()[:130], True, mode="lenient", warnings=1)
case(T, "missing_final_padding_two_arrays_lenient", ten() + ten()[:120], True, mode="lenient", warnings=1)
case(T, "missing_header_padding_at_eof", ten()[:56], False, "truncated", "array[0].header_padding", 56,
     note="header chunk without padding and nothing after it")
case(T, "missing_header_padding_at_eof_lenient", ten()[:56], False, "truncated", "array[0].data_magic", 56,
     mode="lenient", warnings=1, note="the padding is tolerated, the missing data chunk is not")
_unpadded = ten_chunk(ten_header(), pad=b"") + ten_chunk(ten_data())
case(T, "header_chunk_unpadded_in_middle", _unpadded, False, "padding", "array[0].header_padding", 56,
     note="a writer that forgot the padding: the next chunk's magic sits where zeros must be")
case(T, "header_chunk_unpadded_in_middle_lenient", _unpadded, False, "magic", "array[0].data_magic", 80,
     mode="lenient", warnings=None,
     note="the reference stream reader also reads the next magic as padding and then fails")

# data length
case(T, "surplus_data_bytes", ten_chunk(ten_header()) + ten_chunk(ten_data() + b"\0" * 8), False, "size",
     "array[0].data_len", 88, "expected 24 = prod(dims) * sizeof(el), found 32")
case(T, "surplus_data_bytes_lenient", ten_chunk(ten_header()) + ten_chunk(ten_data() + b"\0" * 8), True,
     mode="lenient", warnings=1, note="one tolerance (surplus data bytes), one warning")
case(T, "data_too_short", ten_chunk(ten_header()) + ten_chunk(ten_data()[:16]), False, "size",
     "array[0].data_len", 88, "expected 24 = prod(dims) * sizeof(el), found 16")
case(T, "data_too_short_lenient", ten_chunk(ten_header()) + ten_chunk(ten_data()[:16]), False, "truncated",
     "array[0].data", 96, mode="lenient", note="the reference reader raises on a short buffer: no tolerance")
case(T, "data_chunk_empty_for_nonempty_array", ten_chunk(ten_header()) + ten_chunk(b""), False, "size",
     "array[0].data_len", 88)

# dtype and info
case(T, "unknown_dtype", ten_chunk(ten_header(b"f3")) + ten_chunk(ten_data()), False, "unknown-type",
     "array[0].dtype", 16, "f3\\x00\\x00\\x00\\x00\\x00\\x00\"): unknown type code" + known_types("tenbin", "dtypes"))
case(T, "unknown_dtype_bool", ten_chunk(ten_header(b"b1")) + ten_chunk(ten_data()), False, "unknown-type",
     "array[0].dtype", 16, note="no bool in tenbin")
case(T, "unknown_dtype_complex", ten_chunk(ten_header(b"c8")) + ten_chunk(ten_data()), False, "unknown-type",
     "array[0].dtype", 16, note="no complex in tenbin")
case(T, "unknown_dtype_long_name", ten_chunk(ten_header(b"float32")) + ten_chunk(ten_data()), False,
     "unknown-type", "array[0].dtype", 16, note="the long numpy name is not a code")
case(T, "unknown_dtype_upper_case", ten_chunk(ten_header(b"F4")) + ten_chunk(ten_data()), False, "unknown-type",
     "array[0].dtype", 16)
case(T, "unknown_dtype_lenient", ten_chunk(ten_header(b"f3")) + ten_chunk(ten_data()), False, "unknown-type",
     "array[0].dtype", 16, mode="lenient")
case(T, "dtype_space_padded", ten_chunk(ten_header(b"f4      ")) + ten_chunk(ten_data()), False,
     "unknown-type", "array[0].dtype", 16, note="codes are NUL-padded, not space-padded")
case(T, "dtype_garbage_after_nul", ten_chunk(ten_header(b"f4\0\0\0\0\0x")) + ten_chunk(ten_data()), False,
     "value", "array[0].dtype", 23, "0x78")
case(T, "dtype_non_ascii", ten_chunk(ten_header(b"f4\xff")) + ten_chunk(ten_data()), False, "value",
     "array[0].dtype", 18, "0xff")
case(T, "info_non_ascii", ten_chunk(ten_header(info=b"x\xe9")) + ten_chunk(ten_data()), False, "value",
     "array[0].info", 25, "0xe9")
case(T, "info_non_ascii_lenient", ten_chunk(ten_header(info=b"x\xe9")) + ten_chunk(ten_data()), False, "value",
     "array[0].info", 25, mode="lenient", note="the reference reader's decode('ascii') raises on it")
case(T, "info_nul_in_middle", ten_chunk(ten_header(info=b"a\0b")) + ten_chunk(ten_data()), False, "value",
     "array[0].info", 26, note="NUL padding ends the text")

# ndim and dims
case(T, "ndim_10", ten(b"u1", (1,) * 9 + (2,)), False, "constraint", "array[0].ndim", 32, "ndim <= 9")
case(T, "ndim_10_lenient", ten(b"u1", (1,) * 9 + (2,)), True, mode="lenient", warnings=1,
     note="the reference writer refuses ndim >= 10, its reader reads it")
case(T, "ndim_300_lenient", ten(b"u1", (1,) * 300), False, "limit", "array[0].ndim", 32, mode="lenient",
     note="the rank limit (default 255, --max-rank) applies in every mode")
case(T, "ndim_negative", ten_chunk(ten_header(dims=(), ndim=-1)) + ten_chunk(b"\0" * 4), False, "negative",
     "array[0].ndim", 32)
case(T, "ndim_huge", ten_chunk(ten_header(dims=(2, 3), ndim=1 << 40)) + ten_chunk(ten_data()), False,
     "limit", "array[0].ndim", 32, "exceeds the limit", mode="lenient",
     note="ndim 2^40 with two dims present: the rank limit (255 by default) rejects it before the dims are read")
case(T, "negative_dim", ten_chunk(ten_header(dims=(2, -3))) + ten_chunk(ten_data()), False, "negative",
     "array[0].dims[1]", 48, "negative")
case(T, "negative_dim_lenient", ten_chunk(ten_header(dims=(-1,))) + ten_chunk(ten_data()), False, "negative",
     "array[0].dims[0]", 40, mode="lenient", note="the reference infers -1 (numpy reshape); afmt never does")
case(T, "negative_dim_second_array", ten() + ten_chunk(ten_header(dims=(-2, -3))) + ten_chunk(ten_data()), False,
     "negative", "array[1].dims[0]", 200)
case(T, "dims_product_overflows", ten_chunk(ten_header(b"u1", (1 << 32, 1 << 32))) + ten_chunk(b""), False,
     "overflow", "array[0].data_len", 88)
case(T, "dims_times_itemsize_overflows", ten_chunk(ten_header(b"f8", (1 << 62,))) + ten_chunk(b""), False,
     "overflow", "array[0].data_len", 88)
case(T, "dims_product_overflows_lenient", ten_chunk(ten_header(b"u1", (1 << 32, 1 << 32))) + ten_chunk(b""),
     False, "overflow", mode="lenient")

# truncation
case(T, "truncated_in_header_magic", ten()[:5], False, "truncated", "array[0].header_magic", 0)
case(T, "truncated_in_header_len", ten()[:12], False, "truncated", "array[0].header_len", 8)
case(T, "truncated_in_header_payload", ten()[:40], False, "truncated", "array[0].header", 16)
case(T, "truncated_in_header_padding", ten()[:70], False, "truncated", "array[0].header_padding", 56)
case(T, "truncated_in_data_magic", ten()[:84], False, "truncated", "array[0].data_magic", 80)
case(T, "truncated_in_data_len", ten()[:90], False, "truncated", "array[0].data_len", 88)
case(T, "truncated_in_data_payload", ten()[:110], False, "truncated", "array[0].data_chunk", 96)
case(T, "truncated_in_data_payload_lenient", ten()[:110], False, "truncated", "array[0].data_chunk", 96,
     mode="lenient")
case(T, "truncated_second_array", ten() + ten()[:100], False, "truncated", "array[1].data_chunk", 256)

# ---------------------------------------------------------------- inebin
# docs/FORMATS.md#inebin: "INEBIN", reserved 0x00, type B/Z/R/C, rows u32, cols u32,
# then the data row by row; the length is exact.
TABLE55 = bytes.fromhex("494e4542494e004203000000050000009921")
TABLE56 = bytes.fromhex("494e4542494e005a0200000003000000" "0100000000000000" "0000010000000000"
                        "0605040302010000" "ffffffffffffffff" "0000ffffffffffff" "00000000000000c0")
TABLE57 = bytes.fromhex("494e4542494e00520200000003000000" "000000000000f03f" "000000000000f83f"
                        "000000000000f040" "000000000000f0bf" "000000000000d83f" "2d431cebe2362a3f")
TABLE58 = bytes.fromhex("494e4542494e00430200000003000000") + b"".join(
    struct.pack("<2d", re, im) for re, im in ((1, 1.5), (0.375, 1.75), (3, 5), (6, 7), (2, 0), (0.9375, 31)))


def ine(typ=b"Z", rows=2, cols=3, data=None, reserved=0, magic=b"INEBIN"):
    if data is None:
        n = rows * cols
        size = {b"B": (n + 7) // 8, b"Z": 8 * n, b"R": 8 * n, b"C": 16 * n}.get(typ, 8 * n)
        data = bytes((5 * i + 3) & 0xff for i in range(size))
        if typ == b"B" and n % 8:
            data = data[:-1] + bytes([data[-1] & ((1 << (n % 8)) - 1)])
    return magic + bytes([reserved]) + typ + struct.pack("<II", rows, cols) + data


I = "inebin"
case(I, "valid_table55_bool_3x5", TABLE55, True, warnings=0, note="Table 55 with the errata fixed (docs/FORMATS.md hex)")
case(I, "valid_table56_int_2x3", TABLE56, True, warnings=0, note="Table 56 with the errata fixed (docs/FORMATS.md hex)")
case(I, "valid_table57_real_2x3", TABLE57, True, warnings=0, note="Table 57 with the errata fixed (docs/FORMATS.md hex)")
case(I, "valid_table58_complex_2x3", TABLE58, True, warnings=0,
     note="Table 58: real and imaginary f64 interleaved per entry")
case(I, "valid_bool_0x0", ine(b"B", 0, 0), True, warnings=0, note="0x0: the 16-byte header alone")
case(I, "valid_int_0x0", ine(b"Z", 0, 0), True, warnings=0)
case(I, "valid_complex_0x7", ine(b"C", 0, 7), True, warnings=0)
case(I, "valid_real_0_by_u32max", ine(b"R", 0, 0xffffffff), True, warnings=0,
     note="0 rows of 2^32-1 columns hold no entries")
case(I, "valid_bool_1x8_full_byte", ine(b"B", 1, 8, b"\xff"), True, warnings=0, note="no pad bits")
case(I, "valid_bool_1x9", ine(b"B", 1, 9, b"\xff\x01"), True, warnings=0)

case(I, "empty_file", b"", False, "truncated", "magic", 0)
case(I, "bad_magic", b"INEBIM" + TABLE56[6:], False, "magic", "magic", 0)
case(I, "truncated_in_magic", TABLE56[:4], False, "truncated", "magic", 0)
case(I, "truncated_before_reserved", TABLE56[:6], False, "truncated", "reserved", 6)
case(I, "truncated_before_type", TABLE56[:7], False, "truncated", "type", 7)
case(I, "truncated_in_rows", TABLE56[:10], False, "truncated", "rows", 8)
case(I, "truncated_in_cols", TABLE56[:14], False, "truncated", "cols", 12)
case(I, "reserved_nonzero", TABLE56[:6] + b"\x01" + TABLE56[7:], False, "constraint", "reserved", 6,
     "expected 0, found 1")
case(I, "reserved_nonzero_lenient", TABLE56[:6] + b"\x01" + TABLE56[7:], True, mode="lenient", warnings=1,
     note="the reference reader ignores the reserved byte")
case(I, "unknown_type_X", TABLE56[:7] + b"X" + TABLE56[8:], False, "unknown-type", "type", 7, "X")
case(I, "unknown_type_lower_b", TABLE55[:7] + b"b" + TABLE55[8:], False, "unknown-type", "type", 7,
     note="type letters are upper case")
case(I, "unknown_type_lower_z_lenient", TABLE56[:7] + b"z" + TABLE56[8:], False, "unknown-type", "type", 7,
     mode="lenient")
case(I, "unknown_type_nul", TABLE56[:7] + b"\0" + TABLE56[8:], False, "unknown-type", "type", 7)
case(I, "bool_pad_bits_set", TABLE55[:17] + b"\xa1", False, "padding", "data", 17, "0xa1",
     note="3x5 = 15 bits: bit 7 of the second byte is a pad bit")
case(I, "bool_pad_bits_set_lenient", TABLE55[:17] + b"\xa1", True, mode="lenient", warnings=1,
     note="the reference reader ignores pad bits")
case(I, "bool_pad_bits_1x9", ine(b"B", 1, 9, b"\xff\x03"), False, "padding", "data", 17)
case(I, "trailing_bytes", TABLE56 + b"\0", False, "trailing", "trailer", 64, "1 byte after")
case(I, "trailing_bytes_lenient", TABLE56 + b"extra", True, mode="lenient", warnings=1,
     note="the reference reader ignores trailing bytes")
case(I, "trailing_bytes_bool", TABLE55 + b"\0", False, "trailing", "trailer", 18)
case(I, "three_tolerances_lenient", TABLE55[:6] + b"\x07" + TABLE55[7:17] + b"\xa1" + b"\n", True,
     mode="lenient", warnings=3, note="reserved byte, pad bits and a trailing byte: one warning each")
case(I, "truncated_data_int", TABLE56[:-1], False, "truncated", "data", 16, "needs 48 bytes")
case(I, "truncated_data_int_lenient", TABLE56[:-1], False, "truncated", "data", 16, mode="lenient",
     note="short data is never tolerated")
case(I, "truncated_data_bool", TABLE55[:17], False, "truncated", "data", 16, "needs 2 bytes")
case(I, "truncated_data_complex", TABLE58[:-8], False, "truncated", "data", 16, "needs 96 bytes")
case(I, "truncated_data_real_header_only", TABLE57[:16], False, "truncated", "data", 16)
case(I, "complex_length_of_real", ine(b"C", 2, 3, TABLE57[16:]), False, "truncated", "data", 16,
     note="a C matrix with 8 bytes per entry: complex entries are 16 bytes")
case(I, "huge_bool_small_file", ine(b"B", 0xffffffff, 0xffffffff, b"\0" * 8), False, "truncated", "data", 16,
     note="(2^32-1)^2 bits claimed in a 24-byte file; the reference allocates r*c first")
case(I, "huge_int_small_file", ine(b"Z", 0xffffffff, 0xffffffff, b"\0" * 8), False, "overflow", "data", 16,
     note="(2^32-1)^2 * 8 bytes overflows 64 bits")
case(I, "huge_complex_small_file", ine(b"C", 0xffffffff, 0xffffffff, b""), False, "overflow", "data", 16)
case(I, "huge_real_small_file_lenient", ine(b"R", 0x10000, 0x10000, b"\0" * 64), False, "truncated", "data", 16,
     mode="lenient", note="2^32 f64 entries (32 GiB) in an 80-byte file")

# ---------------------------------------------------------------- daphne
# docs/FORMATS.md#daphne: header version u8 = 1, data type u8, rows u64, cols u64;
# dense/CSR: value type u8, then blocks (rx u64, cx u64, rows u32, cols u32,
# block type u8, ...); frame: column types, labels, rx = cx = 0, row-interleaved
# values.  Value type codes are DAPHNE's code's: 0 i8 1 i32 2 i64 3 u8 4 u32
# 5 u64 6 f32 7 f64.
DVT = {0: "b", 1: "i", 2: "q", 3: "B", 4: "I", 5: "Q", 6: "f", 7: "d"}


def dvals(vt, values):
    return b"".join(struct.pack("<" + DVT[vt], v) for v in values)


def dhead(dt, rows, cols, version=1):
    return struct.pack("<BBQQ", version, dt, rows, cols)


def dblock(rows, cols, bt, rx=0, cx=0):
    """A block's position and general block header."""
    return struct.pack("<QQIIB", rx, cx, rows, cols, bt)


def dense(vt=7, rows=2, cols=3, values=None, data=None, bvt=None, brows=None, bcols=None, bt=1, rx=0, cx=0,
          version=1, dt=1):
    if data is None:
        if values is None:
            values = [i + 1 for i in range(rows * cols)]
        data = dvals(vt, values)
    return (dhead(dt, rows, cols, version) + bytes([vt]) +
            dblock(rows if brows is None else brows, cols if bcols is None else bcols, bt, rx, cx) +
            bytes([vt if bvt is None else bvt]) + data)


def csr(vt=7, rows=3, cols=4, offsets=(0, 2, 2, 3), colidx=(1, 3, 0), values=(2.5, -1.0, 7.0), nnz=None,
        bvt=None, bt=2, values_data=None):
    if nnz is None:
        nnz = len(colidx)
    vd = dvals(vt, values) if values_data is None else values_data
    return (dhead(2, rows, cols) + bytes([vt]) + dblock(rows, cols, bt) + bytes([vt if bvt is None else bvt]) +
            struct.pack("<Q", nnz) + b"".join(struct.pack("<Q", x) for x in offsets) +
            b"".join(struct.pack("<Q", x) for x in colidx) + vd)


def frame(types=(2, 7), labels=(b"h", b"\x88c"), rows=((10, 0.5), (20, 1.5)), rx=0, cx=0, nrows=None,
          data=None):
    out = dhead(3, len(rows) if nrows is None else nrows, len(types)) + bytes(types)
    out += b"".join(struct.pack("<H", len(lb)) + lb for lb in labels)
    out += struct.pack("<QQ", rx, cx)
    if data is None:
        data = b"".join(dvals(t, [v]) for r in rows for t, v in zip(types, r))
    return out + data


D = "daphne"
# dense offsets: version 0, data_type 1, rows 2, cols 10, value_type 18, block_row 19, block_col 27,
# block_rows 35, block_cols 39, block_type 43, block_value_type 44, data 45
case(D, "valid_dense_i32_4x3", dense(1, 4, 3, [1, 5, 9, 2, 6, 10, 3, 7, 11, 4, 8, 12]), True, warnings=0,
     note="the layout of samples/daphne/dense_i32_4x3.dbdf")
case(D, "valid_dense_f64_2x3", dense(7, 2, 3, [1, 1.5, 3, -1, 0.375, 0.0002]), True, warnings=0)
case(D, "valid_dense_f32_0x0", dense(6, 0, 0), True, warnings=0, note="45 bytes: header and block header only")
case(D, "valid_dense_0x5", dense(2, 0, 5), True, warnings=0)
for _vt in range(8):
    case(D, "valid_dense_value_type_%d" % _vt, dense(_vt, 2, 2, [1, 2, 3, 4]), True, warnings=0,
         note="value type code %d (DAPHNE's code: 0 i8 1 i32 2 i64 3 u8 4 u32 5 u64 6 f32 7 f64)" % _vt)

case(D, "empty_file", b"", False, "truncated", "version", 0)
case(D, "version_0", dense(version=0), False, "constraint", "version", 0, "expected 1, found 0")
case(D, "version_2", dense(version=2), False, "constraint", "version", 0)
case(D, "data_type_0", dense(dt=0), False, "constraint", "data_type", 1, "found 0")
case(D, "data_type_4_scalar", dense(dt=4), False, "constraint", "data_type", 1, "found 4",
     note="type 4 (scalar) exists only in memory")
case(D, "data_type_9", dense(dt=9), False, "constraint", "data_type", 1, "found 9")
case(D, "truncated_in_rows", dense()[:6], False, "truncated", "rows", 2)
case(D, "truncated_in_cols", dense()[:17], False, "truncated", "cols", 10)
case(D, "truncated_before_value_type", dense()[:18], False, "truncated", "value_type", 18)
case(D, "value_type_8", dense(data=b"\0" * 12) [:18] + b"\x08" + dense()[19:], False, "unknown-type",
     "value_type", 18, "value_type = 8")
case(D, "value_type_9", dense(vt=7)[:18] + b"\x09" + dense(vt=7)[19:44] + b"\x09" + dense(vt=7)[45:], False,
     "unknown-type", "value_type", 18)
case(D, "value_type_10_document_double", dense(vt=7)[:18] + b"\x0a" + dense(vt=7)[19:44] + b"\x0a" +
     dense(vt=7)[45:], False, "unknown-type", "value_type", 18,
     note="the document's 10 = double matches no file DAPHNE writes")
case(D, "value_type_255", dense(vt=7)[:18] + b"\xff" + dense(vt=7)[19:], False, "unknown-type", "value_type", 18,
     "(value_type = 255): unknown type code" + known_types("daphne", "value_types"))
case(D, "block_row_not_0", dense(rx=1), False, "constraint", "block_row", 19,
     note="one block covering the matrix but placed at row 1: it lies outside the matrix")
case(D, "block_col_not_0", dense(cx=3), False, "constraint", "block_col", 27)
case(D, "block_rows_mismatch", dense(brows=3), False, "constraint", "block_rows", 35,
     "block rows 0 + 3 exceed the 2 rows of the matrix")
case(D, "block_cols_mismatch", dense(bcols=4), False, "constraint", "block_cols", 39,
     "block columns 0 + 4 exceed the 3 columns of the matrix")
case(D, "block_type_unknown", dense(bt=9), False, "constraint", "block_type", 43, "found 9")
case(D, "block_type_csr_in_dense_object", dense(bt=2), False,
     note="a dense object whose block claims the CSR layout but holds dense bytes: invalid whether or not a "
          "dense object may hold CSR blocks (docs/FORMATS.md does not say), so only the verdict is pinned")
case(D, "block_value_type_mismatch", dense(vt=7, bvt=6), False, "constraint", "block_value_type", 44,
     "expected 7 = value_type, found 6")
case(D, "block_value_type_unknown", dense(vt=7, bvt=10), False, "constraint", "block_value_type", 44)
case(D, "truncated_dense_data", dense()[:-1], False, "truncated", "data", 45, "needs 48 bytes")
case(D, "truncated_dense_data_lenient", dense()[:-1], False, "truncated", "data", 45, mode="lenient",
     note="DAPHNE reads truncated data as uninitialised memory: never tolerated")
case(D, "truncated_in_block_header", dense()[:40], False, "truncated", "block_cols", 39)
case(D, "zero_area_3x0_with_0x0_block", dense(rows=3, cols=0, brows=0, bcols=0, values=[]), False, "constraint",
     "block_rows", 35, "a matrix of zero area is stored as the one block DAPHNE writes",
     note="a 3 x 0 header with a 0 x 0 block: read as [0,0] before, losing the 3")
case(D, "zero_area_0x4_with_0x0_block", dense(rows=0, cols=4, brows=0, bcols=0, values=[]), False, "constraint",
     "block_rows", 35)
case(D, "zero_area_3x0_with_3x0_block_at_1", dense(rows=3, cols=0, brows=3, bcols=0, rx=1, values=[]), False)
case(D, "valid_zero_area_3x0", dense(rows=3, cols=0, values=[]), True, warnings=0,
     note="what DAPHNE writes for a 3 x 0 matrix: one 3 x 0 block at (0, 0)")
case(D, "valid_zero_area_0x4", dense(rows=0, cols=4, values=[]), True, warnings=0)
case(D, "dense_huge_small_file", dense(3, 0x80000000, 0x80000000, data=b"\0" * 16), False, "truncated", "data",
     45, note="2^62 u8 values claimed in a 61-byte file")
case(D, "dense_size_overflows", dense(7, 0xffffffff, 0xffffffff, data=b"\0" * 16), False, "overflow", "data", 45,
     note="(2^32-1)^2 * 8 bytes overflows 64 bits")
case(D, "trailing_bytes", dense() + b"\0", False, "trailing", "trailer", 93)
case(D, "trailing_bytes_lenient", dense() + b"\0\0\0", True, mode="lenient", warnings=1,
     note="DAPHNE's reader stops after the data; lenient accepts trailing bytes with a warning")

# the document's block types 0 (empty) and 3 (COO), and several blocks: docs/FORMATS.md says afmt supports them as
# the document describes them (blocks inside the matrix, not overlapping, covering it)
case(D, "valid_dense_empty_block", dhead(1, 2, 3) + b"\x07" + dblock(2, 3, 0), True, warnings=0,
     note="block type 0: all zeros, no value type and no values")
case(D, "valid_dense_coo_block", dhead(1, 2, 3) + b"\x07" + dblock(2, 3, 3) + b"\x07" + struct.pack("<I", 2) +
     struct.pack("<IId", 0, 1, 2.5) + struct.pack("<IId", 1, 2, -1.0), True, warnings=0,
     note="block type 3 with more than one column: nzb u32, then (rx u32, cx u32, value) per non-zero")
case(D, "valid_dense_coo_block_single_column", dhead(1, 4, 1) + b"\x01" + dblock(4, 1, 3) + b"\x01" +
     struct.pack("<I", 1) + struct.pack("<Ii", 2, 42), True, warnings=0,
     note="block type 3 with one column: nzb u32, then (rx u32, value) per non-zero")
case(D, "valid_csr_object_empty_block", dhead(2, 3, 4) + b"\x07" + dblock(3, 4, 0), True, warnings=0,
     note="a CSR matrix stored as one empty block")
case(D, "valid_dense_two_row_blocks", dhead(1, 2, 3) + b"\x01" + dblock(1, 3, 1, 0, 0) + b"\x01" +
     dvals(1, [1, 2, 3]) + dblock(1, 3, 1, 1, 0) + b"\x01" + dvals(1, [4, 5, 6]), True, warnings=0,
     note="two 1x3 dense blocks at (0,0) and (1,0) covering the 2x3 matrix")
case(D, "valid_dense_mixed_blocks", dhead(1, 2, 4) + b"\x07" + dblock(2, 2, 1, 0, 0) + b"\x07" +
     dvals(7, [1, 2, 3, 4]) + dblock(2, 2, 0, 0, 2), True, warnings=0,
     note="a dense 2x2 block at (0,0) and an empty 2x2 block at (0,2)")
case(D, "dense_blocks_overlap", dhead(1, 2, 3) + b"\x01" + dblock(2, 3, 1, 0, 0) + b"\x01" + dvals(1, range(6)) +
     dblock(1, 3, 1, 1, 0) + b"\x01" + dvals(1, [4, 5, 6]), False,
     note="a second block inside a matrix the first already covers")
case(D, "dense_blocks_do_not_cover", dhead(1, 2, 3) + b"\x01" + dblock(1, 3, 1, 0, 0) + b"\x01" +
     dvals(1, [1, 2, 3]), False, note="one 1x3 block in a 2x3 matrix, then the file ends")
case(D, "dense_block_outside_matrix", dhead(1, 2, 3) + b"\x01" + dblock(1, 3, 1, 0, 0) + b"\x01" +
     dvals(1, [1, 2, 3]) + dblock(1, 3, 1, 2, 0) + b"\x01" + dvals(1, [4, 5, 6]), False,
     note="the second block starts at row 2 of a 2-row matrix")
case(D, "coo_row_index_out_of_range", dhead(1, 2, 3) + b"\x07" + dblock(2, 3, 3) + b"\x07" + struct.pack("<I", 1) +
     struct.pack("<IId", 2, 0, 1.0), False, note="a COO entry at row 2 of a 2-row block")
case(D, "coo_truncated", dhead(1, 2, 3) + b"\x07" + dblock(2, 3, 3) + b"\x07" + struct.pack("<I", 5) +
     struct.pack("<IId", 0, 0, 1.0), False, note="5 non-zeros announced, 1 present")

# CSR, code layout: nnz 45, row_offsets 53, col_indices 53 + 8(r+1), values after
_csr_cols = 53 + 8 * 4
_csr_vals = _csr_cols + 8 * 3
case(D, "valid_csr_f64_3x4", csr(), True, warnings=0,
     note="the layout of samples/daphne/csr_f64_3x4.dbdf: (0,1)=2.5 (0,3)=-1 (2,0)=7")
case(D, "valid_csr_no_nonzeros", csr(offsets=(0, 0, 0, 0), colidx=(), values=()), True, warnings=0)
case(D, "valid_csr_0x0", csr(rows=0, cols=0, offsets=(0,), colidx=(), values=()), True, warnings=0,
     note="row_offsets holds the single 0")
case(D, "valid_csr_i32_full", csr(vt=1, rows=2, cols=2, offsets=(0, 2, 4), colidx=(0, 1, 0, 1),
                                   values=(1, 2, 3, 4)), True, warnings=0, note="every entry stored")
case(D, "valid_csr_u8", csr(vt=3, rows=1, cols=300, offsets=(0, 3), colidx=(0, 150, 299), values=(9, 8, 7)),
     True, warnings=0)
case(D, "csr_block_type_dense", csr(bt=1), False,
     note="a CSR object whose block claims to be dense but holds CSR bytes (88 bytes for 12 f64): invalid "
          "whether or not a CSR object may hold dense blocks, so only the verdict is pinned")
case(D, "csr_block_type_coo_claimed", csr(bt=3), False,
     note="block type 3 with CSR-layout bytes (crashes DAPHNE's reader): invalid as COO too")
case(D, "csr_block_value_type_mismatch", csr(bvt=6), False, "constraint", "block_value_type", 44)
case(D, "csr_value_type_unknown", csr()[:18] + b"\x0a" + csr()[19:], False, "unknown-type", "value_type", 18)
case(D, "csr_offsets_not_starting_at_0", csr(offsets=(1, 2, 2, 3)), False, "constraint", "row_offsets[0]", 53,
     "found 1")
case(D, "csr_offsets_decreasing", csr(offsets=(0, 2, 1, 3)), False, "constraint", "row_offsets[2]", 53 + 16,
     "non-decreasing")
case(D, "csr_offsets_above_nnz", csr(offsets=(0, 5, 2, 3)), False, "constraint", "row_offsets[2]", 53 + 16,
     note="an offset past nnz is followed by a decrease")
case(D, "csr_last_offset_not_nnz", csr(offsets=(0, 2, 2, 2)), False, "constraint", "row_offsets[3]", 53 + 24,
     "expected 3 = nnz, found 2")
case(D, "csr_last_offset_not_nnz_lenient", csr(offsets=(0, 2, 2, 2)), False, "constraint", "row_offsets[3]",
     53 + 24, mode="lenient", note="CSR invariants DAPHNE assumes are never tolerated")
case(D, "csr_col_index_out_of_range", csr(colidx=(1, 4, 0)), False, "constraint", "col_indices[1]", _csr_cols + 8,
     "out of range")
case(D, "csr_col_index_huge", csr(colidx=(1, 3, 1 << 63)), False, "constraint", "col_indices[2]", _csr_cols + 16)
case(D, "csr_col_indices_decreasing_in_row", csr(colidx=(3, 1, 0)), False, "constraint", "col_indices[1]",
     _csr_cols + 8, "strictly increasing")
case(D, "csr_col_indices_equal_in_row", csr(colidx=(1, 1, 0)), False, "constraint", "col_indices[1]",
     _csr_cols + 8, "strictly increasing")
case(D, "csr_col_indices_unsorted_lenient", csr(colidx=(3, 1, 0)), False, "constraint", "col_indices[1]",
     _csr_cols + 8, mode="lenient")
case(D, "valid_csr_col_indices_restart_per_row", csr(rows=2, cols=4, offsets=(0, 2, 4), colidx=(2, 3, 0, 1),
                                                     values=(1, 2, 3, 4)), True, warnings=0,
     note="indices are increasing within each row, not across rows")
case(D, "csr_more_nonzeros_than_cells", csr(rows=1, cols=2, offsets=(0, 3), colidx=(0, 1, 1), values=(1, 2, 3)),
     False, "constraint", "col_indices[2]", 53 + 16 + 16)
case(D, "csr_nnz_huge_short_file", csr(rows=1, cols=4, offsets=(0, 1 << 61), colidx=(), values=(), nnz=1 << 61),
     False, "truncated", "col_indices", 53 + 16, note="nnz 2^61 with matching offsets in a 69-byte file")
case(D, "csr_nnz_huge_offsets_disagree", csr(nnz=1 << 62), False, "constraint", "row_offsets[3]", 53 + 24)
case(D, "csr_truncated_in_nnz", csr()[:50], False, "truncated", "nnz", 45)
_d = csr()[:53 + 20]
case(D, "csr_truncated_row_offsets", _d, False, "truncated", "row_offsets", 53, needs_elems(4, 8, _d, 53))
_d = csr()[:_csr_cols + 10]
case(D, "csr_truncated_col_indices", _d, False, "truncated", "col_indices", _csr_cols, needs_elems(3, 8, _d, _csr_cols))
case(D, "csr_truncated_values", csr()[:-1], False, "truncated", "data", _csr_vals, "needs 24 bytes")
case(D, "csr_truncated_values_lenient", csr()[:-1], False, "truncated", "data", _csr_vals, mode="lenient")
case(D, "csr_trailing_bytes", csr() + b"\x01", False, "trailing", None, _csr_vals + 24)
case(D, "csr_trailing_bytes_lenient", csr() + b"\x01", True, mode="lenient", warnings=1)

# frames: column types at 18, labels after, then rx, cx, then row-interleaved values
case(D, "valid_frame_2x2_garbage_labels", frame(), True, warnings=0,
     note="the layout of samples/daphne/frame_2x2.dbdf: si64 and f64 columns, label bytes as DAPHNE's writer "
          "leaves them")
case(D, "valid_frame_all_types", frame(types=tuple(range(8)),
                                       labels=(b"a", b"bb", b"", b"dddd", b"e", b"f", b"g", b"h"),
                                       rows=((1, 2, 3, 4, 5, 6, 7.5, 8.5), (-1, -2, -3, 4, 5, 6, -7.5, -8.5))),
     True, warnings=0, note="one column of every value type, with an empty label")
case(D, "valid_frame_0_rows", frame(rows=()), True, warnings=0)
case(D, "frame_unknown_column_type", frame(types=(2, 8), rows=((1, 1), (2, 2)),
                                           data=b"\0" * 32), False, "unknown-type", "column_types[1]", 19,
     "(8)")
case(D, "frame_column_type_10_document_double", frame(types=(10,), labels=(b"x",), rows=((0,),), data=b"\0" * 8),
     False, "unknown-type", "column_types[0]", 18)
case(D, "frame_truncated_column_types", frame()[:19], False, "truncated", "column_types", 18)
case(D, "frame_truncated_in_label_length", frame()[:24], False, "truncated", "labels[1]", 23)
case(D, "frame_truncated_in_label_bytes", frame()[:25], False, "truncated", "labels[1]", 25)
case(D, "frame_label_length_past_end", frame(labels=(b"h", b"\x88c"))[:20] + struct.pack("<H", 0xffff) +
     frame()[22:], False, "truncated", "labels[0]", 22, "65535")
case(D, "frame_block_row_not_0", frame(rx=1), False, "constraint", "block_row", 27)
case(D, "frame_block_col_not_0", frame(cx=7), False, "constraint", "block_col", 35)
case(D, "frame_truncated_data", frame()[:-1], False, "truncated", "columns", 43, "needs 32 bytes")
case(D, "frame_truncated_data_lenient", frame()[:-1], False, "truncated", "columns", 43, mode="lenient")
case(D, "frame_huge_rows_small_file", frame(nrows=1 << 58, data=b"\0" * 16), False, "truncated", "columns", 43,
     note="2^58 rows of 9 bytes in a 59-byte file")
case(D, "frame_rows_times_width_overflows", frame(nrows=1 << 61, data=b"\0" * 16), False, "overflow", "columns",
     43, note="2^61 rows of 9 bytes overflow 64 bits")
case(D, "frame_huge_cols_small_file", dhead(3, 1, 1 << 40) + b"\x07" * 8, False, "truncated", "column_types", 18)
case(D, "frame_trailing_bytes", frame() + b"\0", False, "trailing", None, 75)
case(D, "frame_trailing_bytes_lenient", frame() + b"\0", True, mode="lenient", warnings=1)
