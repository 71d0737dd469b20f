#!/usr/bin/env python3
"""Write a tenbin stream of N arrays of SIZE bytes (f4 zeros) to stdout:
the long input of the stream memory test."""
import sys, struct
n_arrays = int(sys.argv[1]); size = int(sys.argv[2])  # bytes per array (multiple of 4)
hdr = b"f4".ljust(8, b"\0") + b"".ljust(8, b"\0") + struct.pack("<qq", 1, size // 4)
def chunk(b):
    pad = (-len(b)) % 64
    return b"~TenBin~" + struct.pack("<q", len(b)) + b + b"\0" * pad
data = b"\0" * size
out = sys.stdout.buffer
for i in range(n_arrays):
    out.write(chunk(hdr)); out.write(chunk(data))
