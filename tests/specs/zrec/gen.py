#!/usr/bin/env python3
"""Sample files of zrec.json (inflated regions), valid and not, and the
verdict each must get: samples/*.zrec and expected.tsv (file, verdict,
error code, field, offset; offsets computed here from the layout, never
copied from afmt).  A failure inside inflated bytes is reported at the
offset of the compressed bytes.

    python3 tests/specs/zrec/gen.py [DIR]   write DIR/samples, DIR/expected.tsv
"""
import os
import struct
import sys
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import sampleset  # noqa: E402  (tests/specs/sampleset.py)


def content(ch, i, typ, data, nbytes=None):
    n = len(data) if nbytes is None else nbytes
    return struct.pack('<II', ch('type%d' % i, typ), ch('nbytes%d' % i, n)) + data + b'\0' * (-len(data) % 4)


def build(ch):
    f = sampleset.File()
    f.raw('magic', b'ZREC')
    # record 0: plain, five u8
    c0 = content(ch, 0, 1, bytes([1, 2, 3, 4, 5]))
    f.put('record[0].kind', 'I', 1)
    f.put('record[0].size', 'I', len(c0))
    f.raw('record[0].plain', c0)
    f.b += b'\0' * (-len(f.b) % 4)
    # record 1: zlib, its size from the content's byte count
    c1 = ch('c1', content(ch, 1, 2, struct.pack('<4H', 10, 20, 30, 40)))
    z1 = bytearray(zlib.compress(c1))
    z1[0] = ch('z1_cmf', z1[0])
    z1[1] = ch('z1_flg', z1[1])
    z1[-4:] = ch('z1_adler', bytes(z1[-4:]))
    z1 = bytes(z1) + ch('z1_after', b'')
    z1 = z1[:ch('z1_cut', len(z1))]
    f.put('record[1].kind', 'I', 2)
    f.put('record[1].size', 'I', len(z1))
    f.raw('record[1].packed', z1)
    f.at['record[1].adler'] = f.at['record[1].packed'] + len(zlib.compress(c1)) - 4
    f.b += b'\0' * (-len(f.b) % 4)
    # record 2: zlib, its size in a field before it
    c2 = ch('c2', content(ch, 2, 1, bytes(range(8))))
    z2 = zlib.compress(c2)
    f.put('record[2].kind', 'I', 3)
    f.put('record[2].size', 'I', len(z2) + 4)
    f.put('record[2].raw_size', 'I', ch('raw_size', len(c2)))
    f.raw('record[2].sized', z2)
    f.b += b'\0' * (-len(f.b) % 4)
    return bytes(f.b), f.at


def cases():
    def one(step, value):
        return lambda s, d: value if s == step else d

    def nb1(n):  # record 1's byte count says n, its 8 bytes stay
        return lambda s, d: (struct.pack('<II', 2, n) + struct.pack('<4H', 10, 20, 30, 40)) if s == 'c1' else d
    return [
        ('valid', None, None),
        ('zlib_method', one('z1_cmf', 0x79), ('value', 'record[1].packed', 'record[1].packed')),
        ('zlib_check', one('z1_flg', 0x9d), ('value', 'record[1].packed', 'record[1].packed+1')),
        ('adler', one('z1_adler', b'\0\0\0\0'), ('value', 'record[1].packed', 'record[1].adler')),
        ('after_stream', one('z1_after', b'\0\0\0\0'), ('size', 'record[1].packed', 'record[1].adler+4')),
        ('adler_cut', lambda s, d: d - 2 if s == 'z1_cut' else d, ('truncated', 'record[1].packed', 'record[1].adler')),
        ('says_more', nb1(12), ('size', 'record[1].packed', 'record[1].packed')),
        ('says_less', nb1(4), ('size', 'record[1].packed', 'record[1].packed')),
        ('too_big', nb1(5000), ('limit', 'record[1].packed', 'record[1].packed')),
        ('inner_type', one('type1', 9), ('unknown-type', 'record[1].type', 'record[1].packed')),
        ('sized_short', one('raw_size', 12), ('size', 'record[2].sized', 'record[2].sized')),
        ('sized_unused', lambda s, d: (content(lambda a, b: b, 2, 1, bytes(range(4))) + b'\0' * 4) if s == 'c2' else d,
         ('size', 'record[2].sized', 'record[2].sized')),
    ]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    sampleset.write(out, 'tests/specs/zrec/gen.py', 'zrec',
                    ((name,) + build(change or (lambda s, d: d)) + (want,) for name, change, want in cases()))


if __name__ == '__main__':
    main()
