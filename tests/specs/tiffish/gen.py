#!/usr/bin/env python3
"""Sample files of tiffish.json, valid and not, in both byte orders, and the
verdict each must get: tests/specs/tiffish/samples/*.tfsh and expected.tsv
(file, verdict, error code, field, offset; offsets computed here from the
layout, never copied from afmt's output).

    python3 tests/specs/tiffish/gen.py DIR     write DIR/samples and DIR/expected.tsv
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import sampleset  # noqa: E402  (tests/specs/sampleset.py)

TYPES = {'u8': (1, 1), 'i16': (2, 2), 'f32': (3, 4), 'f64': (4, 8)}


File = sampleset.File  # File(big): a tiffish file under construction


def build(big, entries, change=None):
    """entries: (name, type, dims, payload bytes); change(name, f) may alter
    the plan: it is called with a step name and returns a replacement value
    or None."""
    ch = change or (lambda step, default: default)
    f = File(big)
    f.at['bom'] = 0
    f.b += ch('bom', b'MM' if big else b'II')
    f.put('version', 'H', ch('version', 43))
    f.at['magic'] = len(f.b)
    f.b += ch('magic', b'TFSH')
    f.put('x_resolution', 'f', ch('x_resolution', 72.0))
    f.put('y_resolution', 'd', ch('y_resolution', 300.0))
    align_log2 = ch('align_log2', 3)
    f.put('align_log2', 'B', align_log2)
    f.put('reserved', 'B', 0)
    dir_offset = ch('dir_offset', 32)
    f.put('dir_offset', 'I', dir_offset)
    f.at['gap'] = len(f.b)
    f.b += ch('gap', bytes(max(0, dir_offset - len(f.b))))
    f.put('n_entries', 'H', len(entries))
    align = 1 << align_log2
    offsets, end = [], 0
    for name, _, _, payload in entries:
        end = (end + align - 1) // align * align
        offsets.append(end)
        end += len(payload)
    for i, (name, tname, dims, payload) in enumerate(entries):
        nm = ch('name%d' % i, name.encode())
        f.put('entry[%d].name' % i, 'B', len(nm))
        f.b += nm
        f.put('entry[%d].sample_format' % i, 'H', ch('code%d' % i, TYPES[tname][0]))
        f.put('entry[%d].rank' % i, 'B', ch('rank%d' % i, len(dims)))
        for k, d in enumerate(dims):
            f.put('entry[%d].dims[%d]' % (i, k), 'I', d)
        f.put('entry[%d].offset' % i, 'I', ch('offset%d' % i, offsets[i]))
    f.at['data_padding'] = len(f.b)
    f.b += bytes((-len(f.b)) % align)
    base = len(f.b)
    f.at['data'] = base
    for i, (name, tname, dims, payload) in enumerate(entries):
        while len(f.b) < base + offsets[i]:
            f.b.append(0)
        f.at['payload%d' % i] = len(f.b)
        f.b += ch('payload%d' % i, payload)
    f.at['tail'] = len(f.b)
    f.b += ch('tail', bytes((-(len(f.b) - base)) % align))
    return f.b[:ch('cut', len(f.b))], f.at


def payload(tname, dims, big):
    n = 1
    for d in dims:
        n *= d
    code = {'u8': 'B', 'i16': 'h', 'f32': 'f', 'f64': 'd'}[tname]
    return struct.pack(('>' if big else '<') + code * n, *range(n))


def entries(big):
    return [('image', 'u8', [3, 5], payload('u8', [3, 5], big)),
            ('depth', 'f32', [2, 2], payload('f32', [2, 2], big)),
            ('scalar', 'f64', [], payload('f64', [], big)),
            ('gain', 'i16', [3], payload('i16', [3], big))]


def cases():
    """(name, big, change, expected (code, field, offset-of) or None)."""
    def one(step, value):
        return lambda s, d: value if s == step else d
    nan = float('nan')
    out = []
    for big in (False, True):
        o = 'mm' if big else 'ii'
        out += [
            (o + '_valid', big, None, None),
            (o + '_version', big, one('version', 42), ('constraint', 'version', 'version')),
            (o + '_x_nan', big, one('x_resolution', nan), ('constraint', 'x_resolution', 'x_resolution')),
            (o + '_y_inf', big, one('y_resolution', float('inf')), ('constraint', 'y_resolution', 'y_resolution')),
            (o + '_y_negative', big, one('y_resolution', -1.0), ('constraint', 'y_resolution', 'y_resolution')),
            (o + '_align_7', big, one('align_log2', 7), ('constraint', 'align_log2', 'align_log2')),
            (o + '_dir_in_header', big, one('dir_offset', 20), ('constraint', 'dir_offset', 'dir_offset')),
            (o + '_gap_byte', big, one('gap', b'\0\0\0\x01\0\0\0\0'), ('padding', 'gap', 'gap+3')),
            (o + '_unknown_type', big, one('code1', 9), ('unknown-type', 'entry[1].sample_format', 'entry[1].sample_format')),
            (o + '_rank_5', big, one('rank2', 5), ('constraint', 'entry[2].rank', 'entry[2].rank')),
            (o + '_duplicate_name', big, one('name2', b'image'), ('constraint', 'entry[2].name', 'entry[2].name')),
            (o + '_offset_hole', big, one('offset1', 24), ('constraint', 'entry[1].offset', 'entry[1].offset')),
            (o + '_padding_byte', big, one('tail', b'\0\x07'), ('padding', 'gain.padding', 'tail+1')),
            (o + '_truncated', big, lambda s, d: d - 7 if s == 'cut' else d, ('truncated', 'gain', 'payload3')),
        ]
    out.append(('xx_bom', False, one('bom', b'IM'), ('constraint', 'bom', 'bom')))
    out.append(('ii_magic', False, one('magic', b'TFSX'), ('magic', 'magic', 'magic')))
    return out


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    sampleset.write(out, 'tests/specs/tiffish/gen.py', 'tfsh',
                    ((name,) + build(big, entries(big), change) + (want,) for name, big, change, want in cases()))


if __name__ == '__main__':
    main()
