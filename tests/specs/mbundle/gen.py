#!/usr/bin/env python3
"""Sample files of mbundle.json, valid and not, and the verdict each must
get: samples/*.mbdl and expected.tsv (file, verdict, error code, field,
offset; offsets computed here from the layout, never copied from afmt).

    python3 tests/specs/mbundle/gen.py [DIR]   write DIR/samples, DIR/expected.tsv
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import sampleset  # noqa: E402  (tests/specs/sampleset.py)

U8, I16, U32, I64, F32, F64, BOOL, STR, LIST = 0x10, 0x11, 0x12, 0x13, 0x20, 0x21, 0x30, 0x40, 0x50
FMT = {U8: 'B', I16: 'h', U32: 'I', I64: 'q', F32: 'f', F64: 'd', BOOL: 'B'}
# tensor types: code, bytes of an element or (block elements, block bytes)
TYPES = {'f32': (1, 4), 'f16': (2, 2), 'i8': (3, 1), 'B16': (16, (16, 10)), 'B8': (17, (8, 5)), 'B32': (18, (32, 20))}


File = sampleset.File


def value(f, base, code, v):
    """A metadata value of code, of the repetition at path base."""
    if code == STR:
        f.put(base + '.value', 'H', len(v))
        f.b += v
    elif code == LIST:
        item_code, items = v
        f.put(base + '.item_code', 'B', item_code)
        f.put(base + '.n_items', 'I', len(items))
        for i, x in enumerate(items):
            value(f, '%s.items[%d]' % (base, i), item_code, x)
    elif code in FMT:
        f.put(base + '.value', FMT[code], v)
    # else: a code the format does not have, and no value


def nbytes(tname, dims):
    n = 1
    for d in dims:
        n *= d
    size = TYPES[tname][1]
    return n * size if isinstance(size, int) else n // size[0] * size[1]


def meta():
    return [('general.name', STR, b'tiny'), ('bundle.align', U32, 32),
            ('layers', LIST, (LIST, [(U8, [1, 2]), (U8, [3]), (U8, [])])),
            ('scale', F32, 0.5), ('eps', F64, 1e-5), ('tied', BOOL, 1),
            ('delta', I16, -3), ('big', I64, -5), ('n_heads', U32, 7),
            ('names', LIST, (STR, [b'a', b'bc']))]


def tensors():
    return [('tok_embd', 'f32', [3, 4]), ('q16', 'B16', [2, 32]), ('q8', 'B8', [8]),
            ('q32', 'B32', [1, 1, 32]), ('bias', 'f16', [3]), ('scalar', 'i8', [])]


def build(ch):
    f = File()
    f.raw('magic', ch('magic', b'MBDL'))
    f.put('version', 'H', ch('version', 2))
    md, ts = ch('meta', meta()), ch('tensors', tensors())
    f.put('n_meta', 'I', len(md))
    f.put('n_tensors', 'I', len(ts))
    align = 16
    for i, (key, code, v) in enumerate(md):
        p = 'meta[%d]' % i
        f.put(p + '.key', 'H', len(key))
        f.b += key.encode()
        f.put(p + '.code', 'B', code)
        if key == 'bundle.align' and code == U32:
            align = v
            f.put(p + '.value', 'I', v)
        else:
            value(f, p, code, v)
    offsets, end = [], 0
    for name, tname, dims in ts:
        end = (end + align - 1) // align * align
        offsets.append(end)
        end += nbytes(tname, dims)
    for i, (name, tname, dims) in enumerate(ts):
        p = 'tensor[%d]' % i
        f.put(p + '.name', 'H', len(name))
        f.b += name.encode()
        rank = ch('rank%d' % i, len(dims))
        f.put(p + '.rank', 'B', rank)
        slots = ch('dims%d' % i, list(dims) + [1] * (4 - len(dims)))
        for k, d in enumerate(slots):
            f.put('%s.dims[%d]' % (p, k), 'I', d)
        f.put(p + '.type', 'B', ch('type%d' % i, TYPES[tname][0]))
        f.put(p + '.offset', 'Q', ch('offset%d' % i, offsets[i]))
    f.raw('data_padding', ch('data_padding', bytes((-len(f.b)) % align)))
    base = len(f.b)
    for i, (name, tname, dims) in enumerate(ts):
        f.b += bytes(base + offsets[i] - len(f.b))
        f.raw('payload%d' % i, bytes((k * 7 + i) & 0xff for k in range(nbytes(tname, dims))))
    f.raw('tail', ch('tail', bytes((-(len(f.b) - base)) % align)))
    return f.b[:ch('cut', len(f.b))], f.at


def cases():
    def one(step, value):
        return lambda s, d: value if s == step else d

    def meta_with(i, entry):
        m = meta()
        m[i] = entry
        return m

    def tensors_with(i, entry):
        t = tensors()
        t[i] = entry
        return t
    return [
        ('valid', None, None),
        ('magic', one('magic', b'MBDM'), ('magic', 'magic', 'magic')),
        ('version', one('version', 3), ('constraint', 'version', 'version')),
        ('duplicate_key', one('meta', meta_with(4, ('scale', F64, 1.0))), ('constraint', 'meta[4].key', 'meta[4].key')),
        ('empty_key', one('meta', meta_with(3, ('', F32, 0.5))), ('constraint', 'meta[3].key', 'meta[3].key')),
        ('align_as_u8', one('meta', meta_with(1, ('bundle.align', U8, 32))), ('constraint', 'meta[1].code', 'meta[1].code')),
        ('align_24', one('meta', meta_with(1, ('bundle.align', U32, 24))), ('constraint', 'meta[1].value', 'meta[1].value')),
        ('bool_2', one('meta', meta_with(5, ('tied', BOOL, 2))), ('constraint', 'meta[5].value', 'meta[5].value')),
        ('deep_bool_2', one('meta', meta_with(2, ('layers', LIST, (LIST, [(U8, [1]), (BOOL, [1, 0, 2])])))),
         ('constraint', 'meta[2].items[1].items[2].value', 'meta[2].items[1].items[2].value')),
        # a code no case has: blamed on the code's byte (the structure's parameter), not the byte after it
        ('unknown_value_code', one('meta', meta_with(6, ('delta', 0x60, 0))), ('constraint', 'meta[6].code', 'meta[6].code')),
        ('unknown_item_code', one('meta', meta_with(2, ('layers', LIST, (0x61, [1])))),
         ('constraint', 'meta[2].items[0].code', 'meta[2].item_code')),
        ('rank_5', one('rank1', 5), ('constraint', 'tensor[1].rank', 'tensor[1].rank')),
        ('unused_dim_2', one('dims2', [8, 2, 1, 1]), ('constraint', 'tensor[2].dims[1]', 'tensor[2].dims[1]')),
        ('block_not_multiple', one('dims1', [2, 24, 1, 1]), ('constraint', 'tensor[1].dims[1]', 'tensor[1].dims[1]')),
        ('unknown_type', one('type4', 4), ('unknown-type', 'tensor[4].type', 'tensor[4].type')),
        ('duplicate_name', one('tensors', tensors_with(5, ('q8', 'i8', []))), ('constraint', 'tensor[5].name', 'tensor[5].name')),
        ('offset_unaligned', one('offset1', 56), ('constraint', 'tensor[1].offset', 'tensor[1].offset')),
        ('data_padding', None, None),  # made in main: its padding's last byte 1
        ('tail_padding', one('tail', b'\0\0\0\0\0\0\0\0\0\x05' + bytes(21)), ('padding', 'scalar.padding', 'tail+9')),
        ('truncated', None, None),  # made in main: cut inside bias's payload
    ]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    samples = []
    for name, change, want in cases():
        ch = change or (lambda s, d: d)
        if name == 'data_padding':  # a non-zero byte in the padding before the data
            b0, at0 = build(lambda s, d: d)
            pad = b'\0' * (at0['payload0'] - at0['data_padding'] - 1) + b'\x01'
            ch, want = one_step('data_padding', pad), ('padding', 'data_padding', 'payload0-1')
        if name == 'truncated':  # the input ends 3 bytes into bias's 6
            b0, at0 = build(lambda s, d: d)
            ch, want = one_step('cut', at0['payload4'] + 3), ('truncated', 'bias', 'payload4')
        samples.append((name,) + build(ch) + (want,))
    sampleset.write(out, 'tests/specs/mbundle/gen.py', 'mbdl', samples)


def one_step(step, value):
    return lambda s, d: value if s == step else d


if __name__ == '__main__':
    main()
