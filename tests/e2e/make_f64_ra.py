#!/usr/bin/env python3
"""Write a RawArray file of f64 [4,4] (column-major, uncompressed) whose
values are fractions in (0, 1): lossy as any integer type, valid as f64.
Usage: make_f64_ra.py OUT"""
import struct
import sys

dims = (4, 4)
values = [(k + 1) / 17.0 for k in range(dims[0] * dims[1])]
data = struct.pack("<%dd" % len(values), *values)
header = struct.pack("<8s5Q", b"rawarray", 0, 3, 8, len(data), len(dims))
header += struct.pack("<%dQ" % len(dims), *dims)
with open(sys.argv[1], "wb") as f:
    f.write(header + data)
