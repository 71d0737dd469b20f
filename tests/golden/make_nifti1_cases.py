#!/usr/bin/env python3
"""Golden cases of NIfTI-1 (tests/nifti1/<case>/input + expect), written
with struct from the rulebook (docs/FORMATS.md's nifti1 section, nifti1.h),
never from afmt's output: each expected field and offset is where this
script put the byte it breaks.  Regenerate: python3 tests/golden/make_nifti1_cases.py
"""
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from case_files import write_cases  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "nifti1")

# datatype: (bitpix, struct code of one value or None for opaque bytes)
DT = {2: (8, "B"), 4: (16, "h"), 8: (32, "i"), 16: (32, "f"), 32: (64, "ff"), 64: (64, "d"), 128: (24, None),
      256: (8, "b"), 512: (16, "H"), 768: (32, "I"), 1024: (64, "q"), 1280: (64, "Q"), 1536: (128, None),
      1792: (128, "dd"), 2048: (256, None), 2304: (32, None)}


def header(dims, datatype=16, bitpix=None, vox_offset=352.0, order="<", sizeof_hdr=348, magic=b"n+1\0",
           ndim=None, scl_slope=0.0, extension=0):
    h = bytearray(348)
    struct.pack_into(order + "i", h, 0, sizeof_hdr)
    d = [len(dims) if ndim is None else ndim] + list(dims) + [1] * (7 - len(dims))
    struct.pack_into(order + "8h", h, 40, *d)
    struct.pack_into(order + "hh", h, 70, datatype, DT.get(datatype, (8,))[0] if bitpix is None else bitpix)
    struct.pack_into(order + "8f", h, 76, *([1.0] * 8))
    struct.pack_into(order + "fff", h, 108, vox_offset, scl_slope, 0.0)
    h[344:348] = magic
    return bytes(h) + bytes([extension, 0, 0, 0])


def voxels(n, datatype=16, order="<"):
    bitpix, code = DT[datatype]
    if code is None:
        return bytes((i * 7) & 0xFF for i in range(n * bitpix // 8))
    out = b""
    for i in range(n):
        vals = [i % 100] * len(code) if "f" in code or "d" in code else [i % 100]
        out += struct.pack(order + code, *vals) if len(code) == 1 else struct.pack(order + code, *[i % 50, -(i % 7)])
    return out


def ext(ecode, data, esize=None):
    size = 8 + len(data) + (-(8 + len(data)) % 16)
    return struct.pack("<ii", size if esize is None else esize, ecode) + data + bytes(size - 8 - len(data))


CASES = []


def case(name, doc, data, mode="strict", valid=True, code=None, field=None, offset=None, contains=None, warnings=None):
    CASES.append((name, doc, data, mode, valid, code, field, offset, contains, warnings))


def build():
    le3 = header([2, 3, 4], 4) + voxels(24, 4)
    case("le_i16_3d", "little-endian i16 2x3x4, as nibabel writes it", le3)
    case("be_f32_2d", "big-endian f32 3x2: sizeof_hdr reads 0x5C010000", header([3, 2], 16, order=">") + voxels(6, 16, ">"))
    for dt in sorted(DT):
        case("datatype_%d" % dt, "datatype %d, bitpix %d" % (dt, DT[dt][0]), header([5], dt) + voxels(5, dt))
    case("rank_7", "seven dimensions", header([1, 2, 1, 2, 1, 2, 1], 2) + voxels(8, 2))
    comment = ext(6, b"made by make_nifti1_cases.py")
    case("extension_comment", "one comment extension, the voxels right after it",
         header([4], 16, vox_offset=352.0 + len(comment), extension=1) + comment + voxels(4, 16))
    two = ext(6, b"a") + ext(4, b"<afni/>" * 3)
    case("extensions_two", "two extensions", header([4], 16, vox_offset=352.0 + len(two), extension=1) + two + voxels(4, 16))
    case("free_bytes_before_voxels", "no extension, bytes 352..400 free",
         header([4], 16, vox_offset=400.0) + bytes(range(48)) + voxels(4, 16))
    case("scl_slope_set", "scl_slope 2: reported, not applied", header([4], 4, scl_slope=2.0) + voxels(4, 4))
    # vox_offset not a multiple of 16: a note in both modes
    case("vox_offset_360", "vox_offset 360: not a multiple of 16, a warning in either mode",
         header([4], 16, vox_offset=360.0) + bytes(8) + voxels(4, 16), warnings=1)
    # -- refused
    case("sizeof_hdr_540", "sizeof_hdr 540 (NIfTI-2)", le3.replace(struct.pack("<i", 348), struct.pack("<i", 540), 1),
         valid=False, code="magic", field="sizeof_hdr", offset=0, contains="540 is NIfTI-2")
    h = header([2], 16, ndim=0)
    case("dim0_0", "dim[0] = 0", h + voxels(2, 16), valid=False, field="ndim", offset=40)
    case("dim0_8", "dim[0] = 8", header([2], 16, ndim=8) + voxels(2, 16), valid=False, field="ndim", offset=40)
    case("dim0_swapped", "little-endian sizeof_hdr, dim[0] written big-endian",
         header([2], 16, ndim=0x0100) + voxels(2, 16), valid=False, field="ndim", offset=40)
    case("dim_zero", "dim[2] = 0", header([2, 0], 16) , valid=False, field="dims[1]", offset=44)
    case("dim_negative", "dim[1] = -2", header([-2], 16), valid=False, field="dims[0]", offset=42)
    case("datatype_0", "datatype 0 (unknown)", header([2], 0, bitpix=8) + bytes(2), valid=False, code="unknown-type",
         field="datatype", offset=70)
    case("datatype_1", "datatype 1 (DT_BINARY)", header([8], 1, bitpix=1) + bytes(1), valid=False, code="unknown-type",
         field="datatype", offset=70)
    case("bitpix_mismatch", "f32 with bitpix 16", header([2], 16, bitpix=16) + voxels(2, 16), valid=False,
         field="bitpix", offset=72)
    for name, v in (("nan", float("nan")), ("inf", float("inf"))):
        case("vox_offset_" + name, "vox_offset " + name, header([2], 16, vox_offset=v) + voxels(2, 16), valid=False,
             field="vox_offset", offset=108)
        case("vox_offset_%s_lenient" % name, "vox_offset %s, never lenient" % name,
             header([2], 16, vox_offset=v) + voxels(2, 16), mode="lenient", valid=False, field="vox_offset", offset=108)
    low = header([2], 16, vox_offset=0.0) + voxels(2, 16)
    case("vox_offset_0", "vox_offset 0", low, valid=False, field="vox_offset", offset=108)
    case("vox_offset_0_lenient", "vox_offset 0: read as 352", low, mode="lenient", warnings=1)
    case("vox_offset_300_lenient", "vox_offset 300: read as 352, and not a multiple of 16",
         header([2], 16, vox_offset=300.0) + voxels(2, 16), mode="lenient", warnings=1)
    frac = header([2], 16, vox_offset=352.5) + voxels(2, 16)
    case("vox_offset_fraction", "vox_offset 352.5", frac, valid=False, field="vox_offset", offset=108)
    case("vox_offset_fraction_lenient", "vox_offset 352.5: truncated to 352", frac, mode="lenient", warnings=1)
    case("vox_offset_past_end", "vox_offset 1024 in a file of 360 bytes", header([2], 16, vox_offset=1024.0) + voxels(2, 16),
         valid=False, code="truncated", offset=352)
    case("vox_offset_huge", "vox_offset 2^60", header([2], 16, vox_offset=2.0 ** 60) + voxels(2, 16), valid=False,
         field="vox_offset", offset=108)
    for m, why in ((b"ni1\0", "ni1"), (b"n+2\0", "n+2"), (b"\0\0\0\0", "not the magic")):
        case("magic_" + why.replace(" ", "_").replace("+", "p"), "magic " + repr(m),
             header([2], 16, magic=m) + voxels(2, 16), valid=False, code="magic", field="magic", offset=344, contains=why)
    case("voxels_truncated", "one voxel short", header([3], 16) + voxels(2, 16), valid=False, code="truncated",
         field="voxels", offset=352)
    case("header_truncated", "the file ends in the header", header([3], 16)[:200], valid=False, code="truncated")
    trail = header([2], 16) + voxels(2, 16) + b"xx"
    case("trailing_bytes", "two bytes after the voxels", trail, valid=False, code="trailing", field="trailer", offset=360)
    case("trailing_bytes_lenient", "two bytes after the voxels", trail, mode="lenient", warnings=1)
    bad = ext(6, b"abcd", esize=20)
    badext = header([2], 16, vox_offset=352.0 + len(bad), extension=1) + bad + voxels(2, 16)
    case("extension_esize_20", "esize 20: not a multiple of 16", badext, valid=False, field="ext[0].esize", offset=352)
    case("extension_esize_20_lenient", "esize 20: not a multiple of 16 and past vox_offset, two warnings; ignored",
         badext, mode="lenient", warnings=2)
    over = ext(6, b"abcd", esize=64)
    overext = header([2], 16, vox_offset=352.0 + len(over), extension=1) + over + voxels(2, 16)
    case("extension_past_vox_offset", "esize 64 with 16 bytes before vox_offset", overext, valid=False,
         field="ext[0].esize", offset=352)
    case("extension_past_vox_offset_lenient", "esize past vox_offset: ignored", overext, mode="lenient", warnings=1)
    short = header([2], 16, vox_offset=356.0, extension=1) + b"\1\2\3\4" + voxels(2, 16)
    case("extension_short", "4 bytes before vox_offset: no room for an extension", short, valid=False, offset=352,
         warnings=None)
    case("extension_short_lenient", "4 bytes: ignored (and vox_offset 356 noted)", short, mode="lenient", warnings=2)


def main():
    build()
    write_cases('nifti1', OUT, CASES)


if __name__ == "__main__":
    sys.exit(main())
