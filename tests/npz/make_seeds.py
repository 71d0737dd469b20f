#!/usr/bin/env python3
"""make_seeds.py VALID_DIR CRAFTED_DIR: the npz fuzz seeds.

VALID_DIR gets files numpy writes itself (np.savez, np.savez_compressed),
all valid in strict mode: they go to corpus/npz/.  CRAFTED_DIR gets a few
files that each break one thing of a valid one (zipfile and struct only,
no numpy needed for those): they go to corpus/crafted/npz/.

Small on purpose: a fuzzer mutates small seeds faster, and every member
kind (stored, deflated, positional and named keys, 0-d, empty, Fortran
order, big-endian, bool, complex, several members) is here once.

The valid files are not byte-for-byte reproducible (zipfile stamps the
current time into each header): the committed ones are what one run
wrote (corpus/npz/README.md lists their sha256).
"""

import io
import os
import struct
import sys
import zipfile


def write_valid(out):
    import numpy as np
    np.savez(os.path.join(out, 'two_named_stored.npz'),
             w=np.arange(6, dtype='<f4').reshape(2, 3), b=np.array([1, -2, 3], dtype='<i2'))
    np.savez(os.path.join(out, 'positional_scalar_bool.npz'),
             np.float64(-0.0), np.array([True, False, True]))
    np.savez(os.path.join(out, 'fortran_bigendian_empty.npz'),
             f=np.asfortranarray(np.arange(6, dtype='<i4').reshape(2, 3)),
             be=np.array([1.5, 2.5], dtype='>f8'), e=np.zeros((0, 2), dtype='<u1'))
    np.savez_compressed(os.path.join(out, 'compressed_two.npz'),
                        c=np.array([1 + 2j, -0.5j], dtype='<c8'), u=np.arange(20, dtype='<u8'))
    np.savez_compressed(os.path.join(out, 'compressed_f16_3d.npz'),
                        h=np.arange(8, dtype='<f2').reshape(2, 2, 2))
    # 300 skewed bytes: zlib codes them with a dynamic Huffman table (BTYPE 2)
    np.savez_compressed(os.path.join(out, 'compressed_dynamic_huffman.npz'),
                        s=np.frombuffer(skewed_bytes(300), dtype='u1'))
    with open(os.path.join(out, 'compressed_dynamic_huffman.npz'), 'rb') as f:
        z = f.read()
    start = 30 + struct.unpack_from('<H', z, 26)[0] + struct.unpack_from('<H', z, 28)[0]
    assert (z[start] >> 1) & 3 == 2, 'not a dynamic Huffman block'


def npy(descr, shape, data, fortran=False):
    """One .npy (version 1.0) as np.save writes it, header padded to 64."""
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, 'True' if fortran else 'False',
        '(%s,)' % shape[0] if len(shape) == 1 else '(%s)' % ', '.join(map(str, shape)))
    total = 10 + len(header) + 1
    header += ' ' * ((64 - total % 64) % 64) + '\n'
    return b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + header.encode() + data


def zip_of(members, method=zipfile.ZIP_STORED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w', method) as z:
        for name, data in members:
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = method
            z.writestr(info, data)
    return bytearray(buf.getvalue())


def skewed_bytes(n):
    """n pseudo-random bytes, most below 16: zlib codes them with a
    dynamic Huffman table (uniform or repetitive bytes get fixed codes)."""
    x, out = 1, bytearray()
    for _ in range(n):
        x = (x * 1103515245 + 12345) & 0x7fffffff
        r = (x >> 16) & 0xff
        out.append(r % 16 if r < 200 else r)
    return bytes(out)


def write_crafted(out):
    f4 = npy('<f4', (3,), struct.pack('<3f', 1.0, 2.0, 3.0))
    files = {}
    # a wrong CRC-32 in both headers (npz: "crc": "check", refused in both modes)
    z = zip_of([('a.npy', f4)])
    crc = struct.unpack_from('<I', z, 14)[0] ^ 1
    struct.pack_into('<I', z, 14, crc)
    struct.pack_into('<I', z, z.rfind(b'PK\x01\x02') + 16, crc)
    files['bad_crc.npz'] = z
    # a member not named .npy ("others": "lenient": ignored with a warning)
    files['other_member.npz'] = zip_of([('a.npy', f4), ('notes.txt', b'hello')])
    # the npy inside declares more data than the member holds
    files['member_npy_short.npz'] = zip_of([('a.npy', f4[:-4])])
    # deflated member whose stream inflates past the declared size
    z = zip_of([('a.npy', f4 + bytes(64))], zipfile.ZIP_DEFLATED)
    files['deflate_more_than_size.npz'] = z
    struct.pack_into('<I', z, 22, len(f4))
    struct.pack_into('<I', z, z.rfind(b'PK\x01\x02') + 24, len(f4))
    # a member name escaping the archive
    files['name_dotdot.npz'] = zip_of([('../a.npy', f4)])
    # cut in the middle of the central directory
    z = zip_of([('a.npy', f4), ('b.npy', f4)])
    files['truncated_central.npz'] = z[:z.rfind(b'PK\x01\x02') + 20]
    for name, data in files.items():
        with open(os.path.join(out, name), 'wb') as f:
            f.write(bytes(data))


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: make_seeds.py VALID_DIR CRAFTED_DIR')
    for d in sys.argv[1:]:
        os.makedirs(d, exist_ok=True)
    write_valid(sys.argv[1])
    write_crafted(sys.argv[2])


if __name__ == '__main__':
    main()
