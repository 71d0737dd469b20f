#!/usr/bin/env python3
"""Golden cases of FITS (tests/fits/<case>/input + expect), written card by
card from the rulebook (docs/FORMATS.md's fits section, the FITS
Standard 4.0), never from afmt's output: each expected field and offset is
where this script put the byte it breaks.  Table-driven: CASES lists every
case.  Regenerate: python3 tests/golden/make_fits_cases.py
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from case_files import write_cases  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fits")
BLOCK, REC = 2880, 80
PACK = {8: "B", 16: "h", 32: "i", 64: "q", -32: "f", -64: "d"}


def card(key, value=None, comment=None, fixed=True, raw=None):
    """One 80-byte card: key in 1-8, '= ' in 9-10, the value in fixed
    format (a logical or number ending in byte 30, a string from 11)."""
    k = key.ljust(8).encode()
    if raw is not None:
        body = raw.encode() if isinstance(raw, str) else raw
        return (k + body).ljust(REC, b" ")[:REC]
    if value is None:
        return k.ljust(REC, b" ")
    if isinstance(value, bool):
        v = "T" if value else "F"
    elif isinstance(value, str):
        v = "'" + value.replace("'", "''").ljust(8) + "'"
    else:
        v = str(value)
    if fixed and not isinstance(value, str):
        v = v.rjust(20)
    text = "= " + v + ((" / " + comment) if comment else "")
    return (k + text.encode()).ljust(REC, b" ")[:REC]


def end_card():
    return b"END".ljust(REC, b" ")


def header(cards, end=True):
    h = b"".join(cards) + (end_card() if end else b"")
    return h + b" " * ((BLOCK - len(h) % BLOCK) % BLOCK)


def data(bitpix, n, fill=0):
    d = struct.pack(">%d%s" % (n, PACK[bitpix]), *[(i * 3) % 100 for i in range(n)]) if n else b""
    return d + bytes([fill]) * ((BLOCK - len(d) % BLOCK) % BLOCK)


def primary(bitpix=16, axes=(3, 2), extra=()):
    return [card("SIMPLE", True), card("BITPIX", bitpix), card("NAXIS", len(axes))] + \
        [card("NAXIS%d" % (i + 1), a) for i, a in enumerate(axes)] + list(extra)


def image(bitpix=-32, axes=(4,), extra=(), name=None):
    c = [card("XTENSION", "IMAGE"), card("BITPIX", bitpix), card("NAXIS", len(axes))] + \
        [card("NAXIS%d" % (i + 1), a) for i, a in enumerate(axes)] + [card("PCOUNT", 0), card("GCOUNT", 1)]
    if name:
        c.append(card("EXTNAME", name))
    return c + list(extra)


def prod(axes):
    n = 1
    for a in axes:
        n *= a
    return n if axes else 0


def hdu(cards, bitpix, axes):
    return header(cards) + data(bitpix, prod(axes))


def simple(bitpix=16, axes=(3, 2), extra=()):
    return hdu(primary(bitpix, axes, extra), bitpix, axes)


def at(card_index, byte=0):
    """Offset of byte (0-based) of card card_index of the first header."""
    return card_index * REC + byte


CASES = []  # name, doc, bytes, mode, valid, code, field, offset, contains, warnings


def case(name, doc, b, mode="strict", valid=True, code=None, field=None, offset=None, contains=None, warnings=None):
    CASES.append((name, doc, b, mode, valid, code, field, offset, contains, warnings))


def both(name, doc, b, code, field, offset, contains=None):
    """Invalid strict, accepted lenient with one warning."""
    case(name, doc, b, "strict", False, code, field, offset, contains)
    case(name + "_lenient", doc + " (lenient: a warning)", b, "lenient", True, warnings=1)


def never(name, doc, b, code, field, offset, contains=None):
    """Invalid in both modes."""
    case(name, doc, b, "strict", False, code, field, offset, contains)
    case(name + "_lenient", doc + " (never lenient)", b, "lenient", False, code, field, offset, contains)


def build():
    # valid: every BITPIX, shapes
    for bp, axes in [(8, (10,)), (16, (3, 2)), (32, (2, 3, 4)), (64, (5,)), (-32, (4, 4)), (-64, (2, 1, 3))]:
        case("bitpix_%s" % str(bp).replace("-", "m"), "BITPIX %d, axes %s" % (bp, axes), simple(bp, axes))
    case("naxis_0", "NAXIS = 0: a header only, no data", header(primary(8, ())))
    case("naxis1_0", "NAXIS1 = 0: no data", header(primary(16, (0, 5))))
    case("zero_axis_overflow", "one axis 0, the others' product past 2^64: no data",
         header(primary(16, (1 << 40, 0, 1 << 40))))
    many = (1,) * 999
    case("naxis_999", "NAXIS = 999 (past cfitsio's 99 and any fixed array), all 1: one byte",
         hdu(primary(8, many), 8, many))
    case("image_ext", "a primary HDU without data, then two IMAGE extensions (one named)",
         header(primary(8, (), [card("EXTEND", True)])) + hdu(image(-32, (4, 2), name="SCI"), -32, (4, 2)) +
         hdu(image(16, (3,)), 16, (3,)))
    case("commentary", "COMMENT, HISTORY, blank and free-text cards, an undefined value, a complex, D exponents",
         simple(16, (2,), [card("COMMENT", raw="  any text = 'x' / ( at all"), card("HISTORY", raw=" written by hand"),
                           card("", raw="  blank key"), card("UNDEF", raw="=                     / no value"),
                           card("CPLX", raw="= (1.5, -2E3)"), card("DEXP", raw="=  -1.25D+02 / D exponent"),
                           card("LONGINT", raw="= 123456789012345678901234567890"),
                           card("QUOTE", raw="= 'it''s'"), card("DATE-OBS", "2026-12-02")]))
    case("continue", "a long string continued twice with CONTINUE",
         simple(8, (4,), [card("LONGSTR", raw="= 'first part &'"), card("CONTINUE", raw="  'second &' / c"),
                          card("CONTINUE", raw="  'last'")]))
    case("bzero_u16", "BZERO 32768 BSCALE 1 on BITPIX 16: the view is u16 (i16 stored)",
         simple(16, (3,), [card("BSCALE", 1), card("BZERO", 32768)]))
    case("bzero_u32", "BZERO 2^31 on BITPIX 32: the view is u32 (i32 stored)",
         simple(32, (2,), [card("BZERO", 1 << 31)]))
    case("bzero_u16_real", "BZERO 3.2768E4 spells 32768 too: u16", simple(16, (2,), [card("BZERO", raw="= 3.2768E4")]))
    case("bscale_i16", "BSCALE 0.5 BZERO 10 on BITPIX 16: a general scale, f64 values kept with the view",
         simple(16, (3,), [card("BSCALE", raw="= 0.5"), card("BZERO", 10)]))
    case("bzero_32768_on_i32", "BZERO 32768 on BITPIX 32: no convention, a general scale (f64 values)",
         simple(32, (2,), [card("BZERO", 32768)]))
    case("bzero_u64", "BZERO 2^63 on BITPIX 64 (u64, exact: the top bit flipped, never through a double)",
         simple(64, (2,), [card("BZERO", 1 << 63)]))
    case("bzero_i8", "BZERO -128 on BITPIX 8 (i8)", simple(8, (3,), [card("BZERO", -128)]))
    case("blank_int", "BLANK on integer data", simple(16, (3,), [card("BLANK", -32768)]))

    # the record, the keys
    b = bytearray(simple())
    b[at(5, 40)] = 0xE9
    never("byte_non_ascii", "a byte 0xE9 in a card", bytes(b), "value", "primary.card[5]", at(5, 40))
    b = bytearray(simple())
    b[at(5, 40)] = 0x09
    never("byte_tab", "a tab in a card", bytes(b), "value", "primary.card[5]", at(5, 40))
    both("key_lower", "a key in lower case (not read)", simple(extra=[card("date", "x")]), "constraint",
         "primary.card[5]", at(5, 0))
    both("key_inner_space", "a key with an inner space", simple(extra=[card("MY KEY", 1)]), "constraint",
         "primary.card[5]", at(5, 2))
    both("value_bad", "a value that is none of the kinds (not read)", simple(extra=[card("FOO", raw="= abc")]),
         "value", "primary.FOO", at(5, 10))
    both("complex_one", "a complex (1.5): fitsverify's crash", simple(extra=[card("CPLX", raw="= (1.5)")]), "value",
         "primary.CPLX", at(5, 14))
    both("complex_no_comma", "a complex (1.5 2.0)", simple(extra=[card("CPLX", raw="= (1.5 2.0)")]), "value",
         "primary.CPLX", at(5, 15))
    both("string_open", "a string without its closing quote", simple(extra=[card("S", raw="= 'abc")]), "value",
         "primary.S", at(5, 79))
    both("continue_orphan", "CONTINUE after a string not ending in &",
         simple(extra=[card("S", "abc"), card("CONTINUE", raw="  'more'")]), "constraint", "primary.CONTINUE[6]",
         at(6))
    both("continue_number", "CONTINUE holding a number",
         simple(extra=[card("S", "abc&"), card("CONTINUE", raw="  12")]), "value", "primary.CONTINUE[6]", at(6))

    # mandatory keywords
    b = header([card("SIMPLE", False), card("BITPIX", 8), card("NAXIS", 0)])
    never("simple_false", "SIMPLE = F: not conforming", b, "magic", "primary.SIMPLE", at(0, 29))
    never("bitpix_12", "BITPIX 12", header([card("SIMPLE", True), card("BITPIX", 12), card("NAXIS", 0)]),
          "unknown-type", "primary.BITPIX", at(1, 28))
    never("naxis_1000", "NAXIS 1000", header([card("SIMPLE", True), card("BITPIX", 8), card("NAXIS", 1000)]),
          "constraint", "primary.NAXIS", at(2, 26))
    never("naxis1_negative", "NAXIS1 = -5", header(primary(8, (-5,))), "constraint", "primary.NAXIS1", at(3, 28))
    never("naxis2_missing", "NAXIS = 2 and only NAXIS1",
          header([card("SIMPLE", True), card("BITPIX", 8), card("NAXIS", 2), card("NAXIS1", 3)]),
          "constraint", "primary.NAXIS2", at(4))
    never("order_swapped", "NAXIS before BITPIX",
          header([card("SIMPLE", True), card("NAXIS", 0), card("BITPIX", 8)]), "constraint", "primary.BITPIX", at(1))
    never("between", "a key between the mandatory ones",
          header([card("SIMPLE", True), card("BITPIX", 8), card("OBJECT", "M31"), card("NAXIS", 0)]),
          "constraint", "primary.NAXIS", at(2))
    never("bitpix_again", "BITPIX repeated", simple(extra=[card("BITPIX", 16)]), "constraint", "primary.BITPIX",
          at(5))
    never("naxis3_above", "NAXIS3 with NAXIS = 2", simple(extra=[card("NAXIS3", 1)]), "constraint",
          "primary.NAXIS3", at(5))
    never("xtension_in_primary", "XTENSION in the primary header", simple(extra=[card("XTENSION", "IMAGE")]),
          "constraint", "primary.XTENSION", at(5))
    never("groups_t", "GROUPS = T: random groups", simple(extra=[card("GROUPS", True)]), "unsupported",
          "primary.GROUPS", at(5, 29))
    both("bitpix_free", "BITPIX in free format (left-justified)",
         hdu([card("SIMPLE", True), card("BITPIX", 16, fixed=False), card("NAXIS", 1), card("NAXIS1", 2)], 16, (2,)),
         "constraint", "primary.BITPIX", at(1, 10))
    both("simple_free", "SIMPLE in free format",
         hdu([card("SIMPLE", True, fixed=False)] + primary()[1:], 16, (3, 2)),
         "constraint", "primary.SIMPLE", at(0, 10))
    never("bitpix_no_indicator", "BITPIX without '= '",
          simple().replace(b"BITPIX  =", b"BITPIX   ", 1), "constraint", "primary.BITPIX", at(1, 8))
    never("bitpix_string", "BITPIX = '16'", header([card("SIMPLE", True), card("BITPIX", "16"), card("NAXIS", 0)]),
          "constraint", "primary.BITPIX", at(1, 10))
    never("naxis1_huge", "NAXIS1 past 64 bits",
          header([card("SIMPLE", True), card("BITPIX", 8), card("NAXIS", 1),
                  card("NAXIS1", raw="= 99999999999999999999")]), "overflow", "primary.NAXIS1", at(3, 10))
    never("axes_overflow", "axes whose product passes 2^64",
          header(primary(8, (1 << 40, 1 << 40))), "overflow", "primary.data", BLOCK)
    both("blank_float", "BLANK on float data", simple(-32, (2,), [card("BLANK", 0)]), "constraint", "primary.BLANK",
         at(4, 29))
    both("bscale_string", "BSCALE = 'one'", simple(extra=[card("BSCALE", "one")]), "constraint", "primary.BSCALE",
         at(5, 10))

    # header end, fill, data, padding, truncation
    b = bytearray(simple())
    b[at(5, 20)] = ord("X")
    both("end_garbage", "END followed by a non-space", bytes(b), "padding", "primary.END", at(5, 20))
    b = bytearray(simple())
    b[at(6, 3)] = ord("Z")
    both("header_fill", "a non-space after END", bytes(b), "padding", "primary.header_fill", at(6, 3))
    b = bytearray(simple())
    b[BLOCK + 12 + 5] = 1
    both("data_fill", "a non-zero byte in the data's padding", bytes(b), "padding", "primary.data_fill",
         BLOCK + 12 + 5)
    never("no_end", "a header without END", header(primary(), end=False), "truncated", "primary.header", BLOCK)
    never("data_short", "data cut short", simple()[:BLOCK + 6], "truncated", "primary.data", BLOCK)
    never("fill_short", "the data's padding cut short", simple()[:BLOCK + 100], "truncated", "primary.data_fill",
          BLOCK + 12)
    never("header_short", "a header cut inside its block", simple()[:1000], "truncated", "primary.header_fill", 480)
    both("trailing", "bytes after the last HDU", simple() + b"\0" * 100, "trailing", "trailer", 2 * BLOCK)
    both("trailing_block", "a block of zeros after the last HDU", simple() + b"\0" * BLOCK, "trailing", "trailer",
         2 * BLOCK)

    # extensions
    p0 = header(primary(8, (), [card("EXTEND", True)]))
    never("ext_simple", "SIMPLE in an extension",
          p0 + hdu(image(extra=[card("SIMPLE", True)]), -32, (4,)), "constraint", "hdu1.SIMPLE", BLOCK + at(6))
    both("ext_extend", "EXTEND in an extension",
         p0 + hdu(image(extra=[card("EXTEND", True)]), -32, (4,)), "constraint", "hdu1.EXTEND", BLOCK + at(6))
    never("ext_pcount_1", "an IMAGE with PCOUNT = 1",
          p0 + hdu(image(), -32, (4,)).replace(b"PCOUNT  =                    0", b"PCOUNT  =                    1"),
          "constraint", "hdu1.PCOUNT", BLOCK + at(4, 29))
    never("ext_gcount_2", "an IMAGE with GCOUNT = 2",
          p0 + hdu(image(), -32, (4,)).replace(b"GCOUNT  =                    1", b"GCOUNT  =                    2"),
          "constraint", "hdu1.GCOUNT", BLOCK + at(5, 29))
    never("ext_no_pcount", "an IMAGE without PCOUNT",
          p0 + hdu([c for c in image() if not c.startswith(b"PCOUNT")], -32, (4,)), "constraint", "hdu1.PCOUNT",
          BLOCK + at(4))
    both("ext_xtension_short", "XTENSION = 'IMAGE' unpadded",
         p0 + hdu([card("XTENSION", raw="= 'IMAGE'")] + image()[1:], -32, (4,)), "constraint", "hdu1.XTENSION",
         BLOCK + 10)
    table = header([card("XTENSION", "BINTABLE"), card("BITPIX", 8), card("NAXIS", 2), card("NAXIS1", 4),
                    card("NAXIS2", 3), card("PCOUNT", 5), card("GCOUNT", 1), card("TFIELDS", 1),
                    card("TFORM1", "J")]) + data(8, 17)
    both("ext_bintable", "a BINTABLE between IMAGE extensions: lenient skips its 17 bytes",
         p0 + table + hdu(image(), -32, (4,)), "unsupported", "hdu1.XTENSION", BLOCK)
    never("ext_truncated", "an IMAGE extension's header cut short",
          p0 + hdu(image(), -32, (4,))[:200], "truncated", "hdu1.header", BLOCK + 160)
    never("ext_first_record_short", "an extension that ends inside its first record",
          p0 + hdu(image(), -32, (4,))[:40], "truncated", "hdu1.header", BLOCK)
    never("ext_data_short", "an IMAGE extension's data cut short", p0 + hdu(image(), -32, (4,))[:BLOCK + 8],
          "truncated", "hdu1.data", 2 * BLOCK)


def main():
    build()
    write_cases('fits', OUT, CASES)


if __name__ == "__main__":
    sys.exit(main())
