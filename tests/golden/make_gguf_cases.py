#!/usr/bin/env python3
"""Write the GGUF golden cases tests/gguf/<case>/{input,expect}.

Each case is a crafted file and the verdict afmt must give it (valid, mode,
code, field, offset, message-contains, warnings), as in make_cases.py.  The
files come from tests/golden/gguf_writer.py, written from the rulebook
(docs/FORMATS.md#gguf) and ggml's docs/gguf.md; every expected offset
is taken from the writer's own record of where it put each field, never
from afmt's output.  Run from anywhere: python3 tests/golden/make_gguf_cases.py
The files are committed; this script documents how each was made.

Field path conventions (spec/gguf.json is asked to name its fields so):
    magic, version, tensor_count, kv_count      header fields
    kv[i].key / kv[i].type / kv[i].value        metadata pair i (from 0)
    kv[i].value.type / .count / .items          an array value's element type, count, items;
    kv[i].value.items[j]                        one element (a nested array: .items[j].type, ...)
    tensor[i].name / .n_dims / .ne / .ne[k] / .type / .offset    tensor info i
    data_padding                                the zeros between the infos and the data section
                                                (also after the metadata of a file with no tensors)
    NAME                                        tensor NAME's payload (its name, as in the file)
    NAME.padding                                the zeros after tensor NAME's payload
    trailer                                     bytes after the last padding
Offsets:
    - a fixed-size field: its first byte;
    - a gguf_string (u64 length, bytes): its length when the length is
      wrong or cut, its first byte when the bytes are cut or run past the
      end (as daphne's labels: tests/daphne/frame_label_length_past_end);
    - a run of fixed-size elements cut short (ne, a u32 array's items): the
      run as a whole at its first byte (as daphne's row_offsets);
    - an array value's count larger than the bytes left (each item takes
      one at least): the count, where it lies (`kv[i].count`), before any
      item is read; a count that fits one byte an item but not the smallest
      element (8 bytes for a string): the item the end cuts;
    - metadata pairs and tensor infos are records read one after the other
      (a list may grow as they are read: memory stays bounded by the bytes
      present); a kv_count or tensor_count larger than the bytes left (each
      record takes one at least) is refused before any is read, blamed on
      the count field where it lies (`kv_count` at 16, `tensor_count` at 8:
      afmt's rule for every repeat counted by one field, which the expect
      files follow), else it fails where the records run out;
    - non-zero padding: the first non-zero byte, the message naming it;
    - a rule between two fields (duplicate, offsets in order): the later
      field, where it starts.
Codes are pinned where the rule says which (truncated, magic, unknown-type,
padding, trailing, overflow, value); where two codes would be equally right
(a limit or a constraint) only field and offset are pinned.
"""
import os
import shutil
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gguf_writer import Arr, Kv, T, Tensor, V, gguf, nbytes  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
FMT = "gguf"
# The path of the padding after a tensor's bytes and of the bytes after
# the last padding: one place to change if the spec names them otherwise.
PADDING_AFTER = "{name}.padding"


def case(name, data, valid, code=None, field=None, offset=None, contains=None, mode="strict", warnings=None,
         note=""):
    d = os.path.join(ROOT, FMT, name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    with open(os.path.join(d, "input"), "wb") as f:
        f.write(data)
    lines = ["# " + (note or name), "format: " + FMT, "mode: " + mode, "valid: " + ("yes" if valid else "no")]
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


def both(name, data, code, field, offset, contains=None, note=""):
    """A tolerance: strict refuses it, lenient accepts it with one warning."""
    case(name, data, False, code, field, offset, contains, note=note)
    case(name + "_lenient", data, True, mode="lenient", warnings=1, note=note)


def put(data, at, value, fmt="<Q"):
    """data with struct `fmt` of `value` written at offset `at`."""
    b = bytearray(data)
    struct.pack_into(fmt, b, at, value)
    return bytes(b)


S, U32, ARR = V.STRING, V.UINT32, V.ARRAY
ARCH = Kv("general.architecture", S, "llama")

# The base file for the truncation series: every stage of the layout.
BASE_KVS = [ARCH, Kv("tokenizer.ggml.tokens", ARR, Arr(S, ["<s>", "hi"])), Kv("general.file_type", U32, 1)]
BASE_TENSORS = [Tensor("w", [3, 2], T.F32)]   # 24 bytes, then 8 of padding (alignment 32)
base, at = gguf(BASE_KVS, BASE_TENSORS)

# ---------------------------------------------------------------- valid
case("valid_vocab_only", gguf([ARCH, Kv("tokenizer.ggml.tokens", ARR, Arr(S, ["<unk>", "<s>", "</s>", "a"]))])[0],
     True, warnings=0, note="no tensors: header, metadata, zero padding to 32 (gguf.cpp and gguf-py pad it)")
case("valid_empty", gguf()[0], True, warnings=0, note="no metadata, no tensors: the 24-byte header and 8 zeros")
case("valid_one_f32", gguf([ARCH], [Tensor("w", [4, 2], T.F32)])[0], True, warnings=0,
     note="one f32 tensor ne=[4,2]: a row-major 2x4 matrix")
case("valid_base", base, True, warnings=0, note="the truncation series' base file")
case("valid_plain_types", gguf([ARCH], [Tensor("f32", [5], T.F32), Tensor("f16", [3, 3], T.F16),
                                        Tensor("bf16", [7], T.BF16), Tensor("f64", [2, 1, 3], T.F64),
                                        Tensor("i8", [33], T.I8), Tensor("i16", [1, 2], T.I16),
                                        Tensor("i32", [4], T.I32), Tensor("i64", [2, 2], T.I64)])[0],
     True, warnings=0, note="F32 F16 BF16 F64 I8 I16 I32 I64, each padded to 32")
case("valid_quantized", gguf([ARCH], [Tensor("q4_0", [64, 2], T.Q4_0), Tensor("q8_0", [32, 3], T.Q8_0),
                                      Tensor("q6_k", [256, 2], T.Q6_K), Tensor("iq4_xs", [512], T.IQ4_XS),
                                      Tensor("q2_k", [256], T.Q2_K), Tensor("mxfp4", [32, 1, 2], T.MXFP4),
                                      Tensor("tq1_0", [256], T.TQ1_0), Tensor("iq1_m", [256], T.IQ1_M)])[0],
     True, warnings=0, note="block types, ne[0] a multiple of the block: Q4_0 64x2 = 4 blocks of 18 bytes, ...")
case("valid_every_ggml_type", gguf([ARCH], [Tensor("t%d" % c, [T.TABLE[c][1] * 2], c) for c in sorted(T.TABLE)])[0],
     True, warnings=0, note="one tensor of each of the 35 ggml types the rulebook lists, two blocks each")
case("valid_scalar", gguf([ARCH], [Tensor("s", [], T.F32, data=struct.pack("<f", 1.5))])[0], True, warnings=0,
     note="n_dims 0: a scalar of one element (gguf.cpp reads it so)")
case("valid_4_dims", gguf([ARCH], [Tensor("x", [2, 3, 1, 2], T.F16)])[0], True, warnings=0,
     note="n_dims 4 (GGML_MAX_DIMS)")
case("valid_zero_elements", gguf([ARCH], [Tensor("e", [0, 4], T.F32), Tensor("w", [2], T.F32)])[0], True,
     warnings=0, note="a tensor of 0 elements has 0 bytes: the next one starts at the same offset 0")
case("valid_alignment_64", gguf([Kv("general.alignment", U32, 64)], [Tensor("a", [3], T.F32),
                                                                    Tensor("b", [20], T.F32)])[0],
     True, warnings=0, note="general.alignment = 64: data start and offsets multiples of 64")
case("valid_alignment_8", gguf([Kv("general.alignment", U32, 8)], [Tensor("a", [3], T.F32),
                                                                   Tensor("b", [1], T.I8)])[0],
     True, warnings=0, note="general.alignment = 8, the smallest the document allows")
_every = [Kv("u8", V.UINT8, 255), Kv("i8", V.INT8, -128), Kv("u16", V.UINT16, 65535), Kv("i16", V.INT16, -32768),
          Kv("u32", V.UINT32, 4294967295), Kv("i32", V.INT32, -2147483648), Kv("f32", V.FLOAT32, 0.5),
          Kv("bool", V.BOOL, 1), Kv("string", S, "h\xe9llo"), Kv("u64", V.UINT64, (1 << 64) - 1),
          Kv("i64", V.INT64, -(1 << 63)), Kv("f64", V.FLOAT64, -2.25), Kv("empty_string", S, ""),
          Kv("arr_u8", ARR, Arr(V.UINT8, [1, 2, 3])), Kv("arr_i32", ARR, Arr(V.INT32, [-1, 0, 1])),
          Kv("arr_f32", ARR, Arr(V.FLOAT32, [0.25])), Kv("arr_bool", ARR, Arr(V.BOOL, [0, 1, 1])),
          Kv("arr_str", ARR, Arr(S, ["a", "", "bc"])), Kv("arr_u64", ARR, Arr(V.UINT64, [1 << 63])),
          Kv("arr_f64", ARR, Arr(V.FLOAT64, [])), Kv("arr_empty_str", ARR, Arr(S, [])),
          Kv("arr_arr", ARR, Arr(ARR, [Arr(V.INT16, [1, -1]), Arr(S, ["x"]), Arr(ARR, [Arr(V.UINT8, [9])])]))]
case("valid_every_value_type", gguf(_every, [Tensor("w", [1], T.F32)])[0], True, warnings=0,
     note="a metadata value of each of the 13 types, arrays of each kind, empty arrays, arrays of arrays "
          "three deep (gguf.md and gguf-py allow them; gguf.cpp refuses them: docs/FORMATS.md says accept)")
_v2 = gguf([ARCH], [Tensor("w", [2], T.F32)], version=2)[0]
case("version_2", _v2, False, None, "version", 4, note="strict: version 2 is not what a conforming writer "
     "produces today (gguf.cpp and gguf-py write 3); docs/FORMATS.md: lenient accepts it with a warning")
case("version_2_lenient", _v2, True, mode="lenient", warnings=1,
     note="version 2 has version 3's layout; gguf.cpp still reads it: accepted with a warning")

# ---------------------------------------------------------------- header
case("empty_file", b"", False, "truncated", "magic", 0)
case("bad_magic", b"GGUG" + base[4:], False, "magic", "magic", 0, 'expected "GGUF", found "GGUG"')
case("ggml_magic_lowercase", b"gguf" + base[4:], False, "magic", "magic", 0, 'expected "GGUF", found "gguf"')
case("magic_not_text", b"\x00\x01GU" + base[4:], False, "magic", "magic", 0, 'expected "GGUF", found "\\x00\\x01GU"',
     note='a magic whose bytes are not text: they are shown escaped, beside the expected "GGUF"')
case("version_1", put(base, 4, 1, "<I"), False, None, "version", 4,
     note="GGUFv1 (32-bit counts) is refused by gguf.cpp")
case("version_0", put(base, 4, 0, "<I"), False, None, "version", 4)
case("version_4", put(base, 4, 4, "<I"), False, None, "version", 4, note="a version newer than 3")
_be = gguf(BASE_KVS, BASE_TENSORS, order=">")[0]
case("big_endian", _be, False, None, "version", 4, "endian",
     note="a whole big-endian file (s390x): its version bytes 00 00 00 03 read as 0x03000000")
case("big_endian_version_only", put(base, 4, 0x03000000, "<I"), False, None, "version", 4, "endian",
     note="version bytes 00 00 00 03 in an otherwise little-endian file")

# ---------------------------------------------------------------- truncation, stage by stage
for name, cut, field, off in [
        ("in_magic", 2, "magic", 0),
        ("in_version", 6, "version", 4),
        ("in_tensor_count", 12, "tensor_count", 8),
        ("in_kv_count", 20, "kv_count", 16),
        ("before_kv", 24, "kv_count", 16),
        ("in_key_length", at["kv[0].key"] + 5, "kv[0].key", at["kv[0].key"]),
        ("in_key_bytes", at["kv[0].key#bytes"] + 3, "kv[0].key", at["kv[0].key#bytes"]),
        ("in_value_type", at["kv[0].type"] + 2, "kv[0].type", at["kv[0].type"]),
        ("in_string_value_length", at["kv[0].value"] + 1, "kv[0].value", at["kv[0].value"]),
        ("in_string_value_bytes", at["kv[0].value#bytes"] + 4, "kv[0].value", at["kv[0].value#bytes"]),
        ("in_array_type", at["kv[1].value.type"] + 3, "kv[1].value.type", at["kv[1].value.type"]),
        ("in_array_count", at["kv[1].value.count"] + 7, "kv[1].value.count", at["kv[1].value.count"]),
        ("in_array_string_bytes", at["kv[1].value.items[1]#bytes"] + 1, "kv[1].value.items[1]",
         at["kv[1].value.items[1]#bytes"]),
        ("in_u32_value", at["kv[2].value"] + 2, "kv[2].value", at["kv[2].value"]),
        ("before_tensor_info", at["tensor[0].name"], "tensor_count", 8),
        ("in_tensor_name_bytes", at["tensor[0].name#bytes"], "tensor[0].name", at["tensor[0].name#bytes"]),
        ("in_n_dims", at["tensor[0].n_dims"] + 1, "tensor[0].n_dims", at["tensor[0].n_dims"]),
        ("in_ne", at["tensor[0].ne[1]"] + 4, "tensor[0].ne", at["tensor[0].ne"]),
        ("in_tensor_type", at["tensor[0].type"] + 3, "tensor[0].type", at["tensor[0].type"]),
        ("in_tensor_offset", at["tensor[0].offset"] + 7, "tensor[0].offset", at["tensor[0].offset"]),
        ("in_data_padding", at["data_padding"] + 5, "data_padding", at["data_padding"]),
        ("before_data", at["data"], "w", at["w"]),
        ("in_tensor_data", at["w"] + 23, "w", at["w"]),
        ("in_last_padding", at["w.padding"] + 7, PADDING_AFTER.format(name="w"), at["w.padding"])]:
    assert 0 < cut < len(base)
    case("truncated_" + name, base[:cut], False, "truncated", field, off,
         note="the base file cut at byte %d of %d" % (cut, len(base)))

# ---------------------------------------------------------------- lengths and counts beyond the file
_d = put(base, at["kv[0].value"], 100000)
case("string_length_past_end", _d, False, "truncated", "kv[0].value", at["kv[0].value#bytes"], "100000",
     note="a string value claiming 100000 bytes in a %d-byte file" % len(base))
_d = put(base, at["kv[0].value"], 1 << 40)
case("string_length_2_40", _d, False, None, "kv[0].value", None,
     note="2^40 bytes: past the end, and maybe past a length limit first (then the limit names itself)")
_d = put(base, at["kv[0].key"], (1 << 64) - 1)
case("key_length_u64_max", _d, False, None, "kv[0].key", None,
     note="a key of 2^64-1 bytes: no allocation, no wrap-around (truncated or a limit)")
_d = put(base, at["tensor[0].name"], 1 << 33)
case("tensor_name_length_past_end", _d, False, None, "tensor[0].name", None,
     note="a tensor name of 2^33 bytes: refused at the name (too long for 63, or past the end; either rule)")
_d = put(base, at["kv[1].value.count"], 100000)
case("array_count_past_end", _d, False, "truncated", "kv[1].count", at["kv[1].value.count"],
     "100000 repetitions of items cannot fit in the 142 bytes left at offset %d" % at["kv[1].value.items"],
     note="an array of 100000 strings (8 bytes each at least) in a %d-byte file" % len(base))
_d = put(base, at["kv[1].value.count"], 1 << 40)
case("array_count_2_40", _d, False, None, "kv[1].count", None,
     note="2^40 strings: past the end (or past an item limit first)")
_d, _a = gguf([Kv("ids", ARR, Arr(U32, [1, 2, 3], count=1 << 20))])
case("u32_array_count_past_end", _d, False, "truncated", "kv[0].count", _a["kv[0].value.count"],
     note="2^20 u32 elements (4 MiB) in a small file")
_d, _a = gguf([Kv("ids", ARR, Arr(U32, [1, 2, 3], count=1 << 62))])
case("u32_array_bytes_overflow", _d, False, None, "kv[0].count", None,
     note="2^62 u32 elements: 2^64 bytes overflow 64 bits (overflow, truncated or a limit)")
case("kv_count_past_end", put(base, 16, 1 << 40), False, None, None, None,
     note="2^40 metadata pairs announced, 3 present: the tensor infos are then read as pairs, so where it "
          "fails is not pinned; never by allocating 2^40 records")
case("kv_count_past_end_empty", put(gguf()[0][:24], 16, 1 << 40), False, "truncated", "kv_count", 16,
     "1099511627776 repetitions of kv cannot fit in the 0 bytes left at offset 24",
     note="2^40 metadata pairs announced, none present: refused where the first one should start")
case("tensor_count_past_end", put(base, 8, 1 << 50), False, None, None, None,
     note="2^50 tensors announced, one present")

# ---------------------------------------------------------------- metadata rules
_d, _a = gguf([ARCH, Kv("", U32, 1)])
case("empty_key", _d, False, None, "kv[1].key", _a["kv[1].key"], note="keys must be non-empty (gguf.cpp)")
_d, _a = gguf([ARCH, Kv("general.file_type", U32, 1), Kv("general.architecture", S, "gpt2")])
case("duplicate_key", _d, False, None, "kv[2].key", _a["kv[2].key"], "general.architecture",
     note="the second general.architecture; gguf.cpp refuses a duplicate key")
case("duplicate_key_lenient", _d, False, None, "kv[2].key", _a["kv[2].key"], mode="lenient",
     note="gguf.cpp refuses it too")
_d, _a = gguf([ARCH, Kv("weird", 13, raw=b"\0" * 8)])
case("value_type_13", _d, False, "unknown-type", "kv[1].type", _a["kv[1].type"], "13")
_d, _a = gguf([ARCH, Kv("weird", 0xFFFFFFFF, raw=b"")])
case("value_type_u32_max", _d, False, "unknown-type", "kv[1].type", _a["kv[1].type"])
_d, _a = gguf([ARCH, Kv("weird", ARR, Arr(13, [], count=0))])
case("array_element_type_13", _d, False, "unknown-type", "kv[1].value.type", _a["kv[1].value.type"], "13",
     note="even an empty array names a known element type")
_d, _a = gguf([Kv("flag", V.BOOL, 2), ARCH])
both("bool_byte_2", _d, "value", "kv[0].value", _a["kv[0].value"],
     note="bool bytes other than 0/1: gguf.cpp reads them as true; strict refuses, lenient warns")
_d, _a = gguf([ARCH, Kv("flags", ARR, Arr(V.BOOL, [1, 0, 0xFF]))])
both("bool_array_byte_ff", _d, "value", "kv[1].value.items[2]", _a["kv[1].value.items[2]"])
_d, _a = gguf([ARCH, Kv("nested", ARR, Arr(ARR, [Arr(V.UINT8, [1]), Arr(V.BOOL, [0, 7])]))])
both("bool_nested_array_byte_7", _d, "value", "kv[1].value.items[1].items[1]",
     _a["kv[1].value.items[1].items[1]"])
_d, _a = gguf([ARCH, Kv("nested", ARR, Arr(ARR, [Arr(V.UINT8, [1]), Arr(14, [], count=0)]))])
case("nested_array_element_type_14", _d, False, "unknown-type", "kv[1].value.items[1].type",
     _a["kv[1].value.items[1].type"])

# ---------------------------------------------------------------- alignment
_t = [Tensor("a", [3], T.F32), Tensor("b", [2], T.F32)]
for vt, raw, nm in [(V.UINT64, struct.pack("<Q", 32), "u64"), (V.INT32, struct.pack("<i", 32), "i32"),
                    (S, struct.pack("<Q", 2) + b"32", "string")]:
    _d, _a = gguf([ARCH, Kv("general.alignment", vt, raw=raw)], _t, alignment=32)
    case("alignment_type_" + nm, _d, False, None, "kv[1].type", _a["kv[1].type"],
         note="general.alignment must have type u32 (gguf.cpp refuses any other)")
for v in (0, 3, 48, 1 << 31 | 1):
    _d, _a = gguf([ARCH, Kv("general.alignment", U32, v)], [], alignment=32)
    case("alignment_%d" % v, _d, False, None, "kv[1].value", _a["kv[1].value"],
         note="general.alignment %d is not a non-zero power of two" % v)
for v in (1, 2, 4):
    _d, _a = gguf([ARCH, Kv("general.alignment", U32, v)], [Tensor("a", [3], T.I8), Tensor("b", [5], T.I8)])
    both("alignment_%d" % v, _d, None, "kv[1].value", _a["kv[1].value"],
         note="alignment %d: a power of two (gguf.cpp reads it) but not a multiple of 8 (gguf.md): "
              "strict refuses, lenient warns" % v)
case("valid_alignment_16", gguf([Kv("general.alignment", U32, 16)], [Tensor("a", [3], T.F32),
                                                                    Tensor("b", [5], T.F32)])[0], True, warnings=0)
case("valid_alignment_4k", gguf([Kv("general.alignment", U32, 1 << 12)], [])[0], True, warnings=0,
     note="alignment 4096 with no tensors: the metadata padded to 4096 bytes")
_d, _a = gguf([Kv("general.alignment", U32, 1 << 31)], [Tensor("a", [3], T.F32)], stop="infos")
case("alignment_2_31_short_file", _d + b"\0" * 8, False, "truncated", "data_padding", len(_d),
     note="alignment 2^31 (valid) but the file ends 8 bytes into the padding before the data section at 2^31")

# ---------------------------------------------------------------- tensor infos
_d, _a = gguf([ARCH], [Tensor("w", [2], T.F32), Tensor("w", [2], T.F32)])
case("duplicate_tensor_name", _d, False, None, "tensor[1].name", _a["tensor[1].name"], note="names are distinct")
_d, _a = gguf([ARCH], [Tensor(b"w\0a", [2], T.F32), Tensor(b"w\0b", [2], T.F32)])
case("tensor_names_equal_up_to_nul", _d, False, None, "tensor[1].name", _a["tensor[1].name"],
     note="names 'w\\0a' and 'w\\0b': gguf.cpp keeps names as C strings (ggml_set_name), sees 'w' twice "
          "and refuses the duplicate")
case("tensor_names_equal_up_to_nul_lenient", _d, False, None, "tensor[1].name", _a["tensor[1].name"],
     mode="lenient", note="gguf.cpp refuses it: lenient too")
case("valid_tensor_name_63", gguf([ARCH], [Tensor("n" * 63, [2], T.F32)])[0], True, warnings=0,
     note="63 bytes: the longest name GGML_MAX_NAME (64 with the NUL) holds")
_d, _a = gguf([ARCH], [Tensor("n" * 64, [2], T.F32)])
case("tensor_name_64", _d, False, None, "tensor[0].name", _a["tensor[0].name"], note="64 bytes: one too many")
case("valid_tensor_name_empty", gguf([ARCH], [Tensor("", [2], T.F32)])[0], True, warnings=0,
     note="an empty tensor name: gguf.cpp and gguf.md do not forbid it")
_d, _a = gguf([ARCH], [Tensor("w", [2, 1, 1, 1, 1], T.F32)])
case("n_dims_5", _d, False, None, "tensor[0].n_dims", _a["tensor[0].n_dims"], "5",
     note="n_dims at most 4 (GGML_MAX_DIMS)")
_d, _a = gguf([ARCH], [Tensor("w", [2], T.F32, n_dims=0xFFFFFFFF)], stop="infos")
case("n_dims_u32_max", _d, False, None, "tensor[0].n_dims", _a["tensor[0].n_dims"])
_d, _a = gguf([ARCH], [Tensor("w", [2, 1 << 63], T.F32, data=b"")])
case("ne_2_63", _d, False, None, "tensor[0].ne[1]", _a["tensor[0].ne[1]"],
     note="each ne is below 2^63 (gguf.cpp reads them as int64)")
_d, _a = gguf([ARCH], [Tensor("w", [(1 << 64) - 1], T.I8, data=b"")])
case("ne_u64_max", _d, False, None, "tensor[0].ne[0]", _a["tensor[0].ne[0]"])
_d, _a = gguf([ARCH], [Tensor("w", [1 << 32, 1 << 32], T.I8, data=b"")])
case("ne_product_overflows", _d, False, "overflow", "tensor[0].ne", _a["tensor[0].ne"],
     note="2^32 x 2^32 elements: the product overflows 64 bits")
_d, _a = gguf([ARCH], [Tensor("w", [1 << 31, 1 << 16, 1 << 16], T.I8, data=b"")])
case("ne_product_2_63", _d, False, None, "tensor[0].ne", _a["tensor[0].ne"],
     note="2^31 x 2^16 x 2^16 = 2^63 elements: fits u64 but not gguf.cpp's int64")
_d, _a = gguf([ARCH], [Tensor("w", [1 << 61, 2], T.F64, data=b"")])
case("byte_size_overflows", _d, False, None, "tensor[0].ne", _a["tensor[0].ne"],
     note="2^62 f64 elements fit int64, their 2^65 bytes overflow: refused at the shape, like an element "
          "count that overflows")
_d, _a = gguf([ARCH], [Tensor("w", [1 << 30, 1 << 20], T.F32, data=b"")])
case("tensor_4_pib_short_file", _d, False, "truncated", "w", _a["w"],
     note="2^50 f32 elements (4 PiB) at offset 0 of a small file: nothing allocated")
for code in (4, 5, 31, 33, 36, 38, 43, 99, 0xFFFFFFFF):
    _d, _a = gguf([ARCH], [Tensor("w", [32], code, data=b"\0" * 32)])
    case("ggml_type_%d" % code, _d, False, "unknown-type", "tensor[0].type", _a["tensor[0].type"],
         "%d" % code, note="ggml type %d is not one gguf.cpp still reads (docs/FORMATS.md)" % code)
for code, ne0 in ((T.Q4_0, 48), (T.Q6_K, 128), (T.IQ4_XS, 32), (T.Q8_0, 1), (T.MXFP4, 33)):
    _d, _a = gguf([ARCH], [Tensor("w", [ne0, 2], code, data=b"\0" * 64)])
    case("ne0_not_block_multiple_" + T.TABLE[code][0].lower(), _d, False, None, "tensor[0].ne[0]",
         _a["tensor[0].ne[0]"], note="%s blocks hold %d elements; ne[0] = %d" % (T.TABLE[code][0],
                                                                               T.TABLE[code][1], ne0))
case("valid_q4_0_rows_not_block_multiple", gguf([ARCH], [Tensor("w", [32, 3], T.Q4_0)])[0], True, warnings=0,
     note="only ne[0] must be a multiple of the block; ne[1] = 3 is fine")

# ---------------------------------------------------------------- offsets and the data section
_two = lambda **kw: [Tensor("a", [8], T.F32, **kw.get("a", {})), Tensor("b", [8], T.F32, **kw.get("b", {}))]
_d, _a = gguf([ARCH], _two(b={"offset": 48}))
case("offset_not_aligned", _d, False, None, "tensor[1].offset", _a["tensor[1].offset"],
     note="b at 48: not a multiple of 32 (and not where a ends padded, 32)")
_d, _a = gguf([ARCH], _two(a={"offset": 4}))
case("first_offset_not_aligned", _d, False, None, "tensor[0].offset", _a["tensor[0].offset"])
_d, _a = gguf([ARCH], _two(a={"offset": 32}, b={"offset": 0}))
case("offsets_out_of_order", _d, False, None, "tensor[0].offset", _a["tensor[0].offset"],
     note="a at 32, b at 0: gguf.cpp wants the offsets in info order, the first at 0")
_d, _a = gguf([ARCH], [Tensor("a", [16], T.F32), Tensor("b", [8], T.F32, offset=32)])
case("offsets_overlap", _d, False, None, "tensor[1].offset", _a["tensor[1].offset"],
     note="a has 64 bytes at 0; b at 32 overlaps it")
_d, _a = gguf([ARCH], [Tensor("a", [8], T.F32), Tensor("b", [8], T.F32, offset=64)])
case("offsets_hole", _d, False, None, "tensor[1].offset", _a["tensor[1].offset"],
     note="a ends at 32, b at 64: 32 bytes belong to no tensor")
_d, _a = gguf([ARCH], [Tensor("a", [8], T.F32), Tensor("b", [8], T.F32, offset=32)])
case("valid_explicit_offsets", _d, True, warnings=0)
_full, _a = gguf([ARCH], [Tensor("a", [8], T.F32), Tensor("b", [100], T.F32)])
case("tensor_past_end", _full[:_a["b"] + 100], False, "truncated", "b", _a["b"],
     note="b needs 400 bytes at %d; the file ends 100 bytes in" % _a["b"])
case("tensor_past_end_lenient", _full[:_a["b"] + 100], False, "truncated", "b", _a["b"], mode="lenient",
     note="missing tensor bytes are never tolerated")
_d, _a = gguf([ARCH], [Tensor("a", [8], T.F32), Tensor("b", [8], T.F32, offset=1 << 62)])
case("offset_2_62", _d, False, None, "tensor[1].offset", _a["tensor[1].offset"],
     note="an offset of 2^62: a hole and far past the end; no wrap-around in data start + offset")
_d, _a = gguf([ARCH], [Tensor("a", [8], T.F32, offset=(1 << 64) - 32)])
case("offset_wraps", _d, False, None, "tensor[0].offset", _a["tensor[0].offset"],
     note="offset 2^64-32: data start + offset wraps around in 64 bits")

# ---------------------------------------------------------------- padding and trailing bytes
_p, _a = gguf([ARCH], [Tensor("w", [3], T.F32)])
_n = _a["data"] - _a["data_padding"]
assert _n >= 4
both("data_padding_nonzero", _p[:_a["data_padding"] + 2] + b"\x5a" + _p[_a["data_padding"] + 3:], "padding",
     "data_padding", _a["data_padding"] + 2, "0x5a",
     note="a non-zero byte in the zeros before the data section (gguf.cpp does not read them)")
_d, _a = gguf([ARCH], [Tensor("a", [3], T.F32, pad=b"\0" * 3 + b"\x01" + b"\0" * 16), Tensor("b", [2], T.F32)])
both("tensor_padding_nonzero", _d, "padding", PADDING_AFTER.format(name="a"), _a["a.padding"] + 3, "0x01",
     note="a non-zero byte in the zeros after tensor a (12 bytes, padded to 32)")
_d, _a = gguf([ARCH], [Tensor("a", [3], T.F32), Tensor("b", [2], T.F32, pad=b"\0" * 23 + b"\xff")])
both("last_padding_nonzero", _d, "padding", PADDING_AFTER.format(name="b"), _a["b.padding"] + 23, "0xff",
     note="the last byte of the padding after the last tensor")
_d, _a = gguf([ARCH, Kv("tokenizer.ggml.tokens", ARR, Arr(S, ["a"]))], data_pad=None)
_d2 = bytearray(_d)
_d2[-1] = 0x20
both("vocab_only_padding_nonzero", bytes(_d2), "padding", "data_padding", len(_d) - 1, "0x20",
     note="no tensors: the padding after the metadata is zeros too")
_d, _a = gguf([ARCH], [Tensor("w", [8], T.F32)], trailer=b"\0")
both("trailing_zero_byte", _d, "trailing", "trailer", _a["trailer"],
     note="one byte after the last padding (gguf.cpp does not look): strict refuses, lenient warns")
_d, _a = gguf([ARCH], [Tensor("w", [3], T.F32)], trailer=b"junk" * 10)
both("trailing_bytes", _d, "trailing", "trailer", _a["trailer"])
_d, _a = gguf([ARCH, Kv("x", U32, 7)])
case("vocab_only_unpadded", _d[:_a["data_padding"]], False, "truncated", "data_padding", _a["data_padding"],
     note="no tensors and no padding after the metadata: writers pad it; gguf.cpp does not read it")
case("vocab_only_unpadded_lenient", _d[:_a["data_padding"]], True, mode="lenient", warnings=1,
     note="gguf.cpp reads a file with no tensors without its final padding: accepted with a warning")
_d, _a = gguf([ARCH], [Tensor("w", [3], T.F32)])
case("last_padding_missing", _d[:_a["w.padding"]], False, "truncated", PADDING_AFTER.format(name="w"),
     _a["w.padding"], note="the file ends right after the last tensor's 12 bytes, its 20 bytes of padding "
                           "missing (gguf.cpp with no_alloc does not read them; writers write them)")
case("last_padding_missing_lenient", _d[:_a["w.padding"]], True, mode="lenient", warnings=1,
     note="gguf.cpp (no_alloc, as llama.cpp loads) reads the file: accepted with a warning")
case("truncated_in_last_padding_lenient", base[:at["w.padding"] + 7], True, mode="lenient", warnings=1,
     note="the base file cut inside its last padding: accepted with a warning")

print("wrote %d cases into %s" % (len([d for d in os.listdir(os.path.join(ROOT, FMT))
                                       if os.path.isdir(os.path.join(ROOT, FMT, d))]), os.path.join(ROOT, FMT)))

# ---------------------------------------------------------------- fuzz seeds: corpus/gguf/
# Small valid files for the fuzz targets (corpus/README.md lists them with
# their sha256); each one strict-valid, no warnings.
SEEDS = {
    "vocab_only.gguf": gguf([ARCH, Kv("tokenizer.ggml.model", S, "gpt2"),
                             Kv("tokenizer.ggml.tokens", ARR, Arr(S, ["<unk>", "<s>", "</s>", "a", "\u0120b", "\u4e2d"])),
                             Kv("tokenizer.ggml.scores", ARR, Arr(V.FLOAT32, [0.0, -1.0, -2.0, -3.0, -4.0, -5.0])),
                             Kv("tokenizer.ggml.token_type", ARR, Arr(V.INT32, [2, 3, 3, 1, 1, 1]))])[0],
    "f32_f16_bf16.gguf": gguf([ARCH, Kv("general.file_type", U32, 1)],
                              [Tensor("token_embd.weight", [4, 3], T.F16), Tensor("output_norm.weight", [4], T.F32),
                               Tensor("output.weight", [4, 2], T.BF16)])[0],
    "quantized.gguf": gguf([ARCH], [Tensor("blk.0.attn_q.weight", [32, 2], T.Q4_0),
                                    Tensor("blk.0.ffn_down.weight", [256], T.Q6_K),
                                    Tensor("blk.0.ffn_up.weight", [256], T.IQ4_XS),
                                    Tensor("blk.0.attn_k.weight", [32], T.Q8_0)])[0],
    "every_value_type.gguf": gguf(_every[:13] + [_every[16], _every[17], _every[21]], [Tensor("w", [1], T.F32)])[0],
    "scalar_4d_align64.gguf": gguf([Kv("general.alignment", U32, 64), ARCH],
                                   [Tensor("s", [], T.F32), Tensor("x", [2, 1, 2, 1], T.I16),
                                    Tensor("e", [0], T.I8), Tensor("i", [3], T.I64)])[0],
    "align8_ints.gguf": gguf([Kv("general.alignment", U32, 8)],
                             [Tensor("a", [3], T.I8), Tensor("b", [2], T.I32), Tensor("c", [1], T.F64)])[0],
}
_cdir = os.path.join(ROOT, "..", "corpus", FMT)
os.makedirs(_cdir, exist_ok=True)
for _name, _blob in SEEDS.items():
    with open(os.path.join(_cdir, _name), "wb") as f:
        f.write(_blob)
print("wrote %d seeds into %s" % (len(SEEDS), os.path.normpath(_cdir)))
