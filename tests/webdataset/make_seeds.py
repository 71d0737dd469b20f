#!/usr/bin/env python3
"""make_seeds.py OUT_DIR: the webdataset fuzz seeds (corpus/webdataset/).

WebDataset shards as Python's tarfile writes them (what webdataset's
TarWriter uses), byte for byte reproducible (times, owners and modes
fixed), each ending with its two zero blocks (no record padding): a shard of two samples in a folder, each an .npy and a .ten
beside a .json and a .cls that the format ignores, in tarfile's default
PAX form (ustar headers, as no pax record is needed); one sample in GNU
form under a name longer than 100 bytes (a GNU long-name header).  No numpy needed: the .npy and .ten bytes
are written here.  All valid in strict mode.
"""

import io
import os
import struct
import sys
import tarfile


def npy(descr, shape, body):
    h = ("{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)).encode()
    h += b" " * (-(10 + len(h) + 1) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h + body


def ten_chunk(payload):
    return b"~TenBin~" + struct.pack("<q", len(payload)) + payload + bytes(-len(payload) % 64)


def ten(dtype, dims, data):
    header = dtype.ljust(8, b"\0") + bytes(8) + struct.pack("<q", len(dims)) + b"".join(struct.pack("<q", d) for d in dims)
    return ten_chunk(header) + ten_chunk(data)


def sample_files(key):
    return [
        (key + ".npy", npy("<f4", "(2, 3)", struct.pack("<6f", 0, 1, 2, 3, 4, 5))),
        (key + ".ten", ten(b"i2", [3], struct.pack("<3h", 1, -2, 3))),
        (key + ".json", b'{"label": 1}'),
        (key + ".cls", b"7"),
    ]


def write(path, files, fmt):
    with tarfile.open(path, "w", format=fmt) as tar:
        for name, data in files:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = 0
            info.mode = 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
        end = tar.offset
    # the archive ends with its two zero blocks: tarfile's padding to a
    # 10240-byte record after them is cut, so that any byte less is a
    # shard cut short (a fuzzer's seed, and the vendor test's)
    with open(path, "r+b") as f:
        f.truncate(end + 1024)


def main():
    out = sys.argv[1]
    write(os.path.join(out, "two_samples_pax.tar"),
          sample_files("train/000000") + sample_files("train/000001"), tarfile.PAX_FORMAT)
    write(os.path.join(out, "long_name_gnu.tar"), sample_files("d/" + "x" * 120), tarfile.GNU_FORMAT)


main()
