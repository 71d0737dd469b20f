#!/usr/bin/env python3
"""afmt bench peers in numpy: the read and write tasks done the numpy way.

    np_peer.py fromfile FILE RUNS        np.fromfile of the payload (rawarray or tenbin)
    np_peer.py tenbin-read FILE RUNS     a tenbin reader in the style of webdataset's
    np_peer.py tofile FILE OUT RUNS      header + a.tofile() (rawarray) of FILE's array
    np_peer.py tenbin-write FILE OUT RUNS  a tenbin writer in the style of webdataset's
    np_peer.py convert-tenbin-ra IN OUT  one conversion, as a whole command (fsync'd)
    np_peer.py npy-load FILE RUNS        np.load of a .npy file (reads the payload)
    np_peer.py npy-mmap FILE RUNS        np.load(mmap_mode='r') (maps it, reads nothing)
    np_peer.py st-json FILE RUNS         json.loads of a safetensors header (bytes
                                         read beforehand): what a Python loader parses

The timed modes run RUNS rounds in this process (one untimed warm-up
first), time each with time.perf_counter() and print
"RESULT <median s> <min s> <max s>", so that the interpreter's start-up
is not in the numbers (afmt's in-process side, bench/validate_inproc.c,
is timed the same way).  Writes go to OUT, deleted (untimed) before each
round, and are not fsync'd: the writer, not the disk, is measured.
The tenbin code follows the format as spec/tenbin.json describes it
(chunks of "~TenBin~", an int64 length, the bytes, zeros to a multiple
of 64; the header chunk: dtype code, info, ndim, dims as int64 words),
which is what webdataset's tenbin.py writes and reads.
"""
import json
import os
import struct
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_timing import timed  # noqa: E402

MAGIC = b"~TenBin~"
SHORT = {"f2": "<f2", "f4": "<f4", "f8": "<f8", "i1": "i1", "i2": "<i2", "i4": "<i4",
         "i8": "<i8", "u1": "u1", "u2": "<u2", "u4": "<u4", "u8": "<u8"}


def roundup(n, k=64):
    return (n + k - 1) // k * k


def ra_layout(path):
    """(offset, numpy dtype, shape in C order) of a plain rawarray file."""
    with open(path, "rb") as f:
        magic, flags, eltype, elbyte, size, ndims = struct.unpack("<8s5Q", f.read(48))
        dims = struct.unpack("<%dQ" % ndims, f.read(8 * ndims))
    kinds = {1: "i", 2: "u", 3: "f"}
    if magic != b"rawarray" or flags != 0 or eltype not in kinds:
        sys.exit("np_peer: only plain little-endian rawarray files")
    # column-major dims (d0, d1, ...) are C-order dims reversed
    return 48 + 8 * ndims, np.dtype("<%s%d" % (kinds[eltype], elbyte)), tuple(reversed(dims))


def tenbin_decode(buf):
    """The arrays of a tenbin file held in buf (bytes), as numpy views of it."""
    arrays, pos, view = [], 0, memoryview(buf)
    while pos < len(buf):
        chunks = []
        for _ in range(2):
            if view[pos:pos + 8] != MAGIC:
                raise ValueError("no ~TenBin~ at %d" % pos)
            (n,) = struct.unpack_from("<q", buf, pos + 8)
            chunks.append(view[pos + 16:pos + 16 + n])
            pos += 16 + roundup(n)
        header, data = chunks
        code = bytes(header[:8]).rstrip(b"\0").decode()
        (ndim,) = struct.unpack_from("<q", header, 16)
        dims = struct.unpack_from("<%dq" % ndim, header, 24)
        arrays.append(np.frombuffer(data, dtype=SHORT[code]).reshape(dims))
    return arrays


def tenbin_write(f, arrays):
    for a in arrays:
        code = a.dtype.str[1:]
        header = struct.pack("<8s8sq", code.encode(), b"", a.ndim) + struct.pack("<%dq" % a.ndim, *a.shape)
        for chunk in (header, memoryview(np.ascontiguousarray(a)).cast("B")):
            f.write(MAGIC)
            f.write(struct.pack("<q", len(chunk)))
            f.write(chunk)
            f.write(b"\0" * (roundup(len(chunk)) - len(chunk)))


def payload_layout(path):
    with open(path, "rb") as f:
        head = f.read(8)
    if head == MAGIC:
        with open(path, "rb") as f:
            buf = f.read(4096)
        (n,) = struct.unpack_from("<q", buf, 8)
        code = buf[16:24].rstrip(b"\0").decode()
        (ndim,) = struct.unpack_from("<q", buf, 32)
        dims = struct.unpack_from("<%dq" % ndim, buf, 40)
        return 16 + roundup(n) + 16, np.dtype(SHORT[code]), tuple(dims)
    return ra_layout(path)


def main():
    mode = sys.argv[1]
    if mode == "fromfile":
        path, runs = sys.argv[2], int(sys.argv[3])
        off, dt, shape = payload_layout(path)
        count = int(np.prod(shape))
        timed(runs, lambda: np.fromfile(path, dtype=dt, count=count, offset=off).reshape(shape))
    elif mode == "tenbin-read":
        path, runs = sys.argv[2], int(sys.argv[3])

        def read():
            with open(path, "rb") as f:
                return tenbin_decode(f.read())
        timed(runs, read)
    elif mode in ("tofile", "tenbin-write"):
        path, out, runs = sys.argv[2], sys.argv[3], int(sys.argv[4])
        off, dt, shape = payload_layout(path)
        a = np.fromfile(path, dtype=dt, count=int(np.prod(shape)), offset=off).reshape(shape)

        def rm():
            if os.path.exists(out):
                os.unlink(out)

        def write_ra():
            dims = tuple(reversed(a.shape))  # rawarray dims are column-major
            kind = {"i": 1, "u": 2, "f": 3}[a.dtype.kind]
            with open(out, "wb") as f:
                f.write(struct.pack("<8s5Q", b"rawarray", 0, kind, a.dtype.itemsize, a.nbytes, a.ndim))
                f.write(struct.pack("<%dQ" % a.ndim, *dims))
                f.flush()
                a.tofile(f)

        def write_ten():
            with open(out, "wb") as f:
                tenbin_write(f, [a])
        timed(runs, write_ra if mode == "tofile" else write_ten, rm)
        rm()
    elif mode == "npy-load":
        path, runs = sys.argv[2], int(sys.argv[3])
        timed(runs, lambda: np.load(path))
    elif mode == "npy-mmap":
        path, runs = sys.argv[2], int(sys.argv[3])
        timed(runs, lambda: np.load(path, mmap_mode="r"))
    elif mode == "st-json":
        path, runs = sys.argv[2], int(sys.argv[3])
        with open(path, "rb") as f:
            (n,) = struct.unpack("<Q", f.read(8))
            header = f.read(n)
        timed(runs, lambda: json.loads(header))
    elif mode == "convert-tenbin-ra":
        src, out = sys.argv[2], sys.argv[3]
        with open(src, "rb") as f:
            (a,) = tenbin_decode(f.read())
        kind = {"i": 1, "u": 2, "f": 3}[a.dtype.kind]
        with open(out, "wb") as f:
            # same logical array, stored column-major (no copy for 1-d)
            f.write(struct.pack("<8s5Q", b"rawarray", 0, kind, a.dtype.itemsize, a.nbytes, a.ndim))
            f.write(struct.pack("<%dQ" % a.ndim, *a.shape))
            f.flush()
            np.ascontiguousarray(a.T).tofile(f)
            f.flush()
            os.fsync(f.fileno())
    else:
        sys.exit("np_peer: unknown mode %s" % mode)


if __name__ == "__main__":
    main()
