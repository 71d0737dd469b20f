#!/usr/bin/env python3
"""Sample files of chunky.json, valid and not, and the verdict each must
get: samples/*.chnk and expected.tsv (file, verdict, error code, field,
offset; offsets computed here from the layout, never copied from afmt).

    python3 tests/specs/chunky/gen.py [DIR]   write DIR/samples, DIR/expected.tsv
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import sampleset  # noqa: E402  (tests/specs/sampleset.py)

TYPES = {'u8': (1, 'B'), 'i32': (2, 'i'), 'f64': (3, 'd')}


File = sampleset.File


def chunks():
    return [('u8', [1, 2, 3, 4, 5]), ('i32', [-1, 0, 7]), ('f64', [0.5, -2.0]), ('u8', []), ('i32', [42])]


def build(ch):
    f = File()
    f.at['magic'] = 0
    f.b += ch('magic', b'CHNK')
    f.put('version', 'B', ch('version', 1))
    cs = chunks()
    f.put('n_chunks', 'H', ch('n_chunks', len(cs)))
    running = 0
    payloads = []
    for i, (t, values) in enumerate(cs):
        code, fmt = TYPES[t]
        data = struct.pack('<%d%s' % (len(values), fmt), *values)
        p = 'chunk[%d]' % i
        f.put(p + '.type', 'B', ch('type%d' % i, code))
        f.put(p + '.len[0]', 'I', len(values))
        f.put(p + '.size', 'I', ch('size%d' % i, len(data)))
        f.put(p + '.offset', 'Q', ch('offset%d' % i, running))
        running += len(data)
        payloads.append(data)
    f.put('total', 'Q', ch('total', running))
    for i, data in enumerate(payloads):
        f.at['payload%d' % i] = len(f.b)
        f.b += data
    f.at['end'] = len(f.b)
    f.b += ch('trailer', b'')
    return f.b[:ch('cut', len(f.b))], f.at


def cases():
    def one(step, value):
        return lambda s, d: value if s == step else d
    return [
        ('valid', None, None),
        ('magic', one('magic', b'CHNX'), ('magic', 'magic', 'magic')),
        ('version', one('version', 2), ('constraint', 'version', 'version')),
        ('unknown_type', one('type0', 9), ('unknown-type', 'chunk[0].type', 'chunk[0].type')),
        ('size_not_len', one('size1', 11), ('size', 'chunk[1].size', 'chunk[1].size')),
        ('offset_gap', one('offset2', 18), ('constraint', 'chunk[2].offset', 'chunk[2].offset')),
        ('offset_overlap', one('offset4', 32), ('constraint', 'chunk[4].offset', 'chunk[4].offset')),
        ('total_short', one('total', 36), ('constraint', 'total', 'total')),
        ('total_long', one('total', 38), ('constraint', 'total', 'total')),
        # a sixth record is read from total's bytes: its type is total's first byte, 37
        ('too_many_chunks', one('n_chunks', 6), ('unknown-type', 'chunk[5].type', 'total')),
        ('trailing', one('trailer', b'\0'), ('trailing', 'trailer', 'end')),
    ]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    _, at0 = build(lambda s, d: d)
    all_cases = cases() + [
        # the input ends 2 bytes into the last chunk's 4 (an unnamed array: its record names it)
        ('truncated', lambda s, d: at0['payload4'] + 2 if s == 'cut' else d, ('truncated', 'chunk[4]', 'payload4')),
    ]
    sampleset.write(out, 'tests/specs/chunky/gen.py', 'chnk',
                    ((name,) + build(change or (lambda s, d: d)) + (want,) for name, change, want in all_cases))


if __name__ == '__main__':
    main()
