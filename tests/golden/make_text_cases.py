#!/usr/bin/env python3
"""Write the golden cases of the text-header formats: tests/npy/<case>/ and
tests/safetensors/<case>/ ({input, expect}, as tests/golden/make_cases.py).

Files come from tests/golden/textfmt.py, an independent writer; each
invalid one breaks one rule of spec/npy.json or spec/safetensors.json,
including every known class of bug of hand-written safetensors loaders.
Run from the repository root: python3 tests/golden/make_text_cases.py
"""
import os
import shutil
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from textfmt import npy_bytes, npy_dict, st_bytes, st_file, st_header  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def case(fmt, name, data, valid, code=None, field=None, offset=None, contains=None, mode="strict",
         warnings=None, note=""):
    d = os.path.join(ROOT, fmt, name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    with open(os.path.join(d, "input"), "wb") as f:
        f.write(data)
    lines = ["# " + (note or name), "format: " + fmt, "mode: " + mode, "valid: " + ("yes" if valid else "no")]
    for k, v in (("code", code), ("field", field), ("offset", offset), ("message-contains", contains),
                 ("warnings", warnings)):
        if v is not None:
            lines.append("%s: %s" % (k, v))
    with open(os.path.join(d, "expect"), "w") as f:
        f.write("\n".join(lines) + "\n")


def s_idx(text, sub):
    return text.index(sub)


# ---------------------------------------------------------------- npy
N = "npy"
F8 = struct.pack("<6d", *range(6))
ok = npy_dict("<f8", False, (2, 3))
case(N, "f8_2x3", npy_bytes(ok, F8, spare=20), True, note="as np.save writes it (64-byte aligned, spare digits)")
case(N, "align16_numpy_before_1_14", npy_bytes(ok, F8, align=16), True, note="numpy < 1.14 aligned to 16")
case(N, "version2", npy_bytes(ok, F8, version=2), True)
case(N, "version3_utf8", npy_bytes(ok, F8, version=3), True)
case(N, "keys_in_any_order", npy_bytes("{'shape': (2, 3), 'fortran_order': False, 'descr': '<f8'}", F8), True)
case(N, "big_endian_i4", npy_bytes(npy_dict(">i4", False, (2,)), b"\0\0\0\1\0\0\0\2"), True)
case(N, "scalar", npy_bytes(npy_dict("<i2", False, ()), b"\7\0"), True)
case(N, "empty", npy_bytes(npy_dict("|b1", False, (0, 5)), b""), True)
case(N, "fortran", npy_bytes(npy_dict("<f8", True, (2, 3)), F8), True)
case(N, "version4", npy_bytes(ok, F8)[:6] + b"\x04" + npy_bytes(ok, F8)[7:], False, "constraint", "major", 6)
case(N, "minor_1", npy_bytes(ok, F8)[:7] + b"\x01" + npy_bytes(ok, F8)[8:], False, "constraint", "minor", 7)
case(N, "bad_magic", npy_bytes(ok, F8, magic=b"\x93NUMPX"), False, "magic", "magic", 1)
h = npy_bytes(ok, F8)
case(N, "not_aligned", npy_bytes(ok, F8, align=0), False, "constraint", "header_length", 8,
     "not a multiple of 16")
case(N, "no_newline", npy_bytes(ok, F8, end=b" "), False, "padding", "header", 10 + len(h) - len(F8) - 11,
     "must end with byte 0x0a")
bad_pad = npy_bytes(ok, F8).replace(b"}  ", b"}\t ", 1)
case(N, "tab_in_padding", bad_pad, False, "padding", "header", 10 + len(ok), "only 0x20 may pad it")
# lenient: what np.load reads anyway (numpy 1.24 checked: no newline,
# other whitespace, a header off the 16-byte alignment, leading spaces);
# anything else after the value stays an error
case(N, "not_aligned_lenient", npy_bytes(ok, F8, align=0), True, mode="lenient", warnings=1)
case(N, "no_newline_lenient", npy_bytes(ok, F8, end=b" "), True, mode="lenient", warnings=1)
case(N, "tab_in_padding_lenient", bad_pad, True, mode="lenient", warnings=1)
case(N, "leading_space", npy_bytes(" " + ok, F8), False, "value", "header", 10, "starts with '{'")
case(N, "leading_space_lenient", npy_bytes(" " + ok, F8), True, mode="lenient", warnings=1)
case(N, "no_newline_tab_unaligned_lenient", npy_bytes(ok + "\t", F8, align=0, end=b""), True, mode="lenient",
     warnings=3, note="three tolerances, one warning each")
junk = npy_bytes(ok, F8).replace(b"}  ", b"}x ", 1)
case(N, "junk_in_padding_lenient", junk, False, "padding", "header", 10 + len(ok), "only 0x20 may pad it",
     mode="lenient", note="only whitespace is tolerated")
case(N, "duplicate_key", npy_bytes("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", F8),
     False, "constraint", "header.descr", 27, "duplicate key")
case(N, "missing_shape", npy_bytes("{'descr': '<f8', 'fortran_order': False, }", F8), False, "constraint", "header", 10,
     "missing key 'shape'")
case(N, "extra_key", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (6,), 'x': 1, }", F8), False,
     "constraint", "header.x", 66, "unknown key")
case(N, "negative_dim", npy_bytes(npy_dict("<f8", False, (2, -3)), F8), False, "negative", "header.shape[1]", 64)
case(N, "shape_is_list", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': [6], }", F8), False,
     "constraint", "header.shape", 60, "expected a tuple, found a list")
case(N, "fortran_order_int", npy_bytes("{'descr': '<f8', 'fortran_order': 0, 'shape': (6,), }", F8), False,
     "constraint", "header.fortran_order", 44, "expected a boolean")
case(N, "object_dtype", npy_bytes(npy_dict("|O", False, (1,)), b"\0" * 8), False, "unsupported", "header.descr", 20,
     "never unpickles")
case(N, "unicode_dtype", npy_bytes(npy_dict("<U3", False, (1,)), b"\0" * 12), False, "unsupported", "header.descr", 20)
case(N, "datetime_dtype", npy_bytes(npy_dict("<M8[ns]", False, (1,)), b"\0" * 8), False, "unsupported",
     "header.descr", 20, "datetime")
case(N, "structured_dtype", npy_bytes("{'descr': [('x', '<i4')], 'fortran_order': False, 'shape': (1,), }", b"\0" * 4),
     False, "unsupported", "header.descr", 20, "structured")
case(N, "unknown_dtype", npy_bytes(npy_dict("<q9", False, (1,)), b"\0" * 8), False, "unknown-type", "header.descr", 20)
case(N, "short_payload", npy_bytes(ok, F8[:-1]), False, "truncated", "data", 128)
case(N, "trailing_byte", npy_bytes(ok, F8 + b"\0"), False, "trailing", "trailer", 128 + 48)
case(N, "trailing_byte_lenient", npy_bytes(ok, F8 + b"\0"), True, mode="lenient", warnings=1)
case(N, "bool_byte_2", npy_bytes(npy_dict("|b1", False, (3,)), b"\1\2\0"), False, "value", "data[1]", 129)
case(N, "bool_byte_2_lenient", npy_bytes(npy_dict("|b1", False, (3,)), b"\1\2\0"), True, mode="lenient", warnings=1)
case(N, "header_length_past_end", npy_bytes(ok, F8, length=60000), False, "truncated", "header", 10)
case(N, "shape_overflow", npy_bytes(npy_dict("<f8", False, (1 << 62, 4)), F8), False, "overflow", "header.shape", 60)
case(N, "python_syntax_error", npy_bytes("{'descr': '<f8' 'fortran_order': False, 'shape': (6,), }", F8), False, "value",
     "header", 26)
case(N, "float_dim", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (6.0,), }", F8), False, "value",
     "header.shape[0]", 10 + s_idx("{'descr': '<f8', 'fortran_order': False, 'shape': (6.0,), }", "6.0"))

# ---------------------------------------------------------------- safetensors
S = "safetensors"
W = struct.pack("<4f", 1, 2, 3, 4)
B = struct.pack("<2q", -1, 7)
two = [("weight", "F32", (2, 2), W), ("bias", "I64", (2,), B)]
case(S, "two_tensors", st_file(two), True, note="compact JSON, space padding to 8")
case(S, "metadata_kept", st_file(two, metadata={"format": "pt"}), True)
case(S, "unpadded_pre_2023", st_file(two, pad_to=None), True, note="writers before 2023 did not pad")
case(S, "empty", st_file([]), True)
case(S, "zero_size_tensor", st_file([("a", "F32", (0, 3), b""), ("b", "U8", (2,), b"\1\2")]), True)
case(S, "all_types", st_file([(t, t, (1,), b"\1" * s) for t, s in
                              (("BOOL", 1), ("U8", 1), ("I8", 1), ("F8_E5M2", 1), ("F8_E4M3", 1), ("I16", 2), ("U16", 2),
                               ("F16", 2), ("BF16", 2), ("I32", 4), ("U32", 4), ("F32", 4), ("C64", 8), ("F64", 8),
                               ("I64", 8), ("U64", 8))]), True)
h, n = st_header([("b", "I64", (2,), 16), ("a", "F32", (2, 2), 16)])
case(S, "json_order_free", st_bytes(dict(reversed(list(h.items()))), B + W), True, note="ranges sorted, JSON order free")

# the CVE classes of hand-written loaders
case(S, "header_length_u64_max", struct.pack("<Q", (1 << 64) - 1) + b"{}", False, "constraint", "header_length", 0,
     "a header of 18446744073709551615 bytes exceeds the format's cap of 100000000")
case(S, "header_length_past_end", st_bytes({}, b"", length=1000), False, "truncated", "header", 8)
h, _ = st_header([("w", "F32", (2, 2), 16)])
h["w"]["data_offsets"] = [16, 0]
t = st_bytes(h, W)
case(S, "end_before_begin", t, False, "constraint", 'header["w"].data_offsets[1]', t.index(b",0]") + 1, "end 0 is before begin 16")
h, _ = st_header([("w", "F32", (2, 2), 12)])
t = st_bytes(h, W[:12])
case(S, "shape_disagrees_with_range", t, False, "size", 'header["w"].data_offsets', t.index(b"[0,12]"),
     "the range holds 12 bytes, the shape needs 16 (4 elements of 4 bytes)")
h, _ = st_header([("a", "F32", (2, 2), 16), ("b", "F32", (2, 2), 16)])
h["b"]["data_offsets"] = [8, 24]
t = st_bytes(h, W + W[:8])
case(S, "overlap", t, False, "constraint", 'header["b"].data_offsets', t.index(b"[8,24]"),
     'overlaps "a" (bytes [0, 16))')
h["b"]["data_offsets"] = [20, 36]
t = st_bytes(h, W + b"\0" * 4 + W)
case(S, "hole", t, False, "constraint", 'header["b"].data_offsets', t.index(b"[20,36]"),
     "a hole: bytes [16, 20) of the data belong to no entry")
h, _ = st_header([("a", "F32", (2, 2), 16)])
h["a"]["data_offsets"] = [4, 20]
t = st_bytes(h, b"\0" * 4 + W)
case(S, "hole_at_start", t, False, "constraint", 'header["a"].data_offsets', t.index(b"[4,20]"),
     "a hole: bytes [0, 4) of the data belong to no entry")
case(S, "byte_after_last_tensor", st_file(two) + b"\0", False, "trailing", "trailer", None)
case(S, "byte_after_last_tensor_lenient", st_file(two) + b"\0", False, "trailing", "trailer", None, mode="lenient",
     note="the reference refuses it too")
txt = b'{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}'
case(S, "duplicate_name", st_bytes(None, W[:8], text=txt), False, "constraint", 'header["w"]', 8 + txt.rindex(b'"w"'),
     "duplicate key")
h, _ = st_header([("x", "U8", (1 << 63,), 0)])
t = st_bytes(h, b"")
case(S, "shape_2_63_elements", t, False, "size", 'header["x"].data_offsets', t.index(b"[0,0]"),
     "the shape needs 9223372036854775808")
h, _ = st_header([("x", "F32", (1 << 62, 4), 0)])
t = st_bytes(h, b"")
case(S, "shape_bytes_overflow", t, False, "overflow", 'header["x"].shape', t.index(b"[4611686018427387904"))
h, _ = st_header([("x", "F32", (2, -2), 16)])
t = st_bytes(h, W)
case(S, "negative_dim", t, False, "negative", 'header["x"].shape[1]', t.index(b"-2"))

# The reference's own test vectors (huggingface/safetensors,
# safetensors/src/tensor.rs, tests test_serialization ...
# test_validation_overflow): the reference keeps no .safetensors files, its
# tests build bytes; these are the same files rebuilt with textfmt.py.  The
# verdicts are the reference's, except where afmt's strict rule is
# narrower (whitespace other than spaces around the header: lenient warns).
F6 = struct.pack("<6f", 0, 1, 2, 3, 4, 5)
case(S, "ref_serialization", st_file([("attn.0", "F32", (1, 2, 3), F6)]), True,
     note="reference test_serialization: header of 64 bytes, no padding needed")
case(S, "ref_forced_alignment", st_file([("attn0", "F32", (1, 1, 2, 3), F6)]), True,
     note="reference test_serialization_forced_alignement: 7 spaces of padding")
case(S, "ref_empty_metadata", st_file([], metadata={"framework": "pt"}), True,
     note="reference test_empty: metadata and no tensor")
I32 = b'{"test":{"dtype":"I32","shape":%s,"data_offsets":%s}}'
case(S, "ref_empty_shapes_allowed", st_bytes(None, b"\0" * 4, text=I32 % (b"[]", b"[0,4]"), pad_to=None), True,
     note="reference test_empty_shapes_allowed: a scalar, unpadded")
case(S, "ref_deserialization", st_bytes(None, b"\0" * 16, text=I32 % (b"[2,2]", b"[0,16]"), pad_to=None), True,
     note="reference test_deserialization")
case(S, "ref_zero_sized_tensor", st_bytes(None, b"", text=I32 % (b"[2,0]", b"[0, 0]"), pad_to=None), True,
     note="reference test_zero_sized_tensor: JSON spacing is free")
t = st_bytes(None, b"", text=I32 % (b"[2,2]", b"[0, 4]"), pad_to=None)
case(S, "ref_invalid_info", t, False, "size", 'header["test"].data_offsets', t.index(b"[0, 4]"),
     "the range holds 4 bytes, the shape needs 16", note="reference test_invalid_info")
t = st_bytes(None, b"\0" * 16, text=I32 % (b"[2,18446744073709551614]", b"[0,16]"), pad_to=None)
case(S, "ref_validation_overflow_shape", t, False, "overflow", 'header["test"].shape', t.index(b"[2,1844"),
     note="reference test_validation_overflow (the shape's product)")
t = st_bytes(None, b"\0" * 16, text=I32 % (b"[2,9223372036854775807]", b"[0,16]"), pad_to=None)
case(S, "ref_validation_overflow_bytes", t, False, "overflow", 'header["test"].shape', t.index(b"[2,9223"),
     note="reference test_validation_overflow (elements x 4 bytes)")
t = st_bytes(None, b"\0" * 16, text=I32 % (b"[2,2]", b"[0,16]"), pad_to=None)
case(S, "ref_polyglot_trailer", t + b"extra_bogus_data_for_polyglot_file", False, "trailing", "trailer", len(t),
     note="reference test_metadata_incomplete_buffer (bytes after the data)")
case(S, "ref_missing_data", t[:-2], False, "truncated", None, None,
     note="reference test_metadata_incomplete_buffer (2 bytes of data missing)")
case(S, "ref_header_too_large", b"<\0\0\0\0\xff\xff\xff" + t[8:], False, "constraint", "header_length", 0,
     "exceeds the format's cap of 100000000", note="reference test_header_too_large")
case(S, "ref_header_too_small", b"", False, "truncated", "header_length", 0, note="reference test_header_too_small")
case(S, "ref_invalid_header_length", struct.pack("<Q", 60), False, "truncated", "header", 8,
     note="reference test_invalid_header_length")
case(S, "ref_header_non_utf8", struct.pack("<Q", 1) + b"\xff", False, "value", "header", 8, "byte 0xff",
     note="reference test_invalid_header_non_utf8")
case(S, "ref_header_not_json", struct.pack("<Q", 1) + b"{", False, "value", "header", 9, "end of the header",
     note="reference test_invalid_header_not_json")
h = {"weight_%d" % i: {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]} for i in range(10)}
t = st_bytes(h, b"\0" * 16, pad_to=None)
case(S, "ref_json_attack", t, False, "constraint", 'header["weight_1"].data_offsets', t.index(b"[0,16]", t.index(b"weight_1")),
     'overlaps "weight_0" (bytes [0, 16))', note="reference test_json_attack: ten tensors on the same 16 bytes")

# header syntax and keys
case(S, "not_an_object", st_bytes(None, b"", text=b"[]"), False, "value", "header", 8, "starts with '{'")
case(S, "leading_space", st_bytes(None, b"", text=b" {}"), False, "value", "header", 8, "starts with '{'")
case(S, "tab_padding", st_bytes(None, b"", text=b"{}\t", pad_to=None), False, "padding", "header", 10)
case(S, "leading_space_lenient", st_bytes(None, b"", text=b" {}"), True, mode="lenient", warnings=1)
case(S, "tab_padding_lenient", st_bytes(None, b"", text=b"{}\t", pad_to=None), True, mode="lenient", warnings=1)
case(S, "ref_whitespace_padded", st_bytes(None, b"", text=b"{}\r \t\n", pad_to=None), False, "padding", "header", 10,
     note="reference test_whitespace_padded_header: accepted there, lenient here")
case(S, "ref_whitespace_padded_lenient", st_bytes(None, b"", text=b"{}\r \t\n", pad_to=None), True, mode="lenient",
     warnings=1, note="reference test_whitespace_padded_header")
case(S, "ref_whitespace_leading", st_bytes(None, b"", text=b"\t\n{}\r ", pad_to=None), False, "value", "header", 8,
     "starts with '{'", note="reference test_whitespace_leading_padded_header: accepted there, lenient here")
case(S, "ref_whitespace_leading_lenient", st_bytes(None, b"", text=b"\t\n{}\r ", pad_to=None), True, mode="lenient",
     warnings=2, note="reference test_whitespace_leading_padded_header: leading and trailing whitespace")
case(S, "junk_padding_lenient", st_bytes(None, b"", text=b"{}x", pad_to=None), False, "padding", "header", 10,
     mode="lenient", note="only whitespace is tolerated")
case(S, "invalid_utf8", st_bytes(None, b"", text=b'{"\xff":1}'), False, "value", "header", 10, "invalid UTF-8")
txt = b'{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"extra":1}}'
case(S, "extra_key", st_bytes(None, W[:4], text=txt), False, "constraint", 'header["w"].extra', 8 + txt.index(b'"extra"'),
     "unknown key")
txt = b'{"w":{"dtype":"F32","shape":[1]}}'
case(S, "missing_offsets", st_bytes(None, b"", text=txt), False, "constraint", 'header["w"]', 8 + txt.index(b'{"dtype'),
     "missing key 'data_offsets'")
txt = b'{"w":{"dtype":"F4","shape":[2],"data_offsets":[0,1]}}'
case(S, "sub_byte_type", st_bytes(None, b"\0", text=txt), False, "unsupported", 'header["w"].dtype',
     8 + txt.index(b'"F4"'), "sub-byte")
txt = b'{"w":{"dtype":"F31","shape":[2],"data_offsets":[0,1]}}'
case(S, "unknown_type", st_bytes(None, b"\0", text=txt), False, "unknown-type", 'header["w"].dtype', 8 + txt.index(b'"F31"'))
txt = b'{"__metadata__":{"n":1}}'
case(S, "metadata_not_string", st_bytes(None, b"", text=txt), False, "constraint", 'header["__metadata__"]["n"]',
     8 + txt.index(b"1}"), "metadata values are strings")
txt = b'{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4.0]}}'
case(S, "float_offset", st_bytes(None, W[:4], text=txt), False, "value", 'header["w"].data_offsets[1]', 8 + txt.index(b"4.0"),
     "only integers")
case(S, "bool_byte_2", st_file([("m", "BOOL", (2,), b"\1\2")]), False, "value", "data[1]", None)
