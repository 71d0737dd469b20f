#!/usr/bin/env python3
"""afmt bench peer: rawarray f32 (column-major) -> futhark (row-major) in numpy.

    np_transpose.py IN.ra OUT

The same job as `afmt convert IN.ra OUT --to futhark`, done the way a numpy
user would: map the payload (np.memmap: zero-copy, like afmt's mmap), view
it as the C-order array b = a.T, make the row-major copy with
np.ascontiguousarray(b.T), and write a futhark header plus tofile().  The
output is byte-identical to afmt's, which run.sh checks once.

Only what the benchmark input needs is supported (f32, no metadata check).
"""
import struct
import sys

import numpy as np


def main():
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, "rb") as f:
        head = f.read(48)
        magic, flags, eltype, elbyte, size, ndims = struct.unpack("<8s5Q", head)
        dims = struct.unpack("<%dQ" % ndims, f.read(8 * ndims))
    if magic != b"rawarray" or flags != 0 or (eltype, elbyte) != (3, 4):
        sys.exit("np_transpose: only plain little-endian f32 rawarray files")
    offset = 48 + 8 * ndims
    # Column-major dims (d0, d1, ...) is C-order with the dims reversed.
    b = np.memmap(src, dtype="<f4", mode="r", offset=offset, shape=tuple(reversed(dims)))
    a = np.ascontiguousarray(b.T)  # logical array, row-major
    with open(dst, "wb") as out:
        out.write(b"b" + bytes([2, ndims]) + b" f32" + struct.pack("<%dq" % ndims, *dims))
        out.flush()
        a.tofile(out)


if __name__ == "__main__":
    main()
