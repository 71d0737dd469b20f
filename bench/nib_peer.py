#!/usr/bin/env python3
"""Benchmark 13's NIfTI peer: nibabel, timed in process.

    nib_peer.py open FILE RUNS   nibabel.load(FILE) and its header's shape
                                 and type (the data is not read)
    nib_peer.py read FILE RUNS   nibabel.load(FILE).get_fdata(): every
                                 voxel read and scaled to float64, as
                                 nibabel's users read a volume

Each mode runs RUNS rounds in this process after one untimed warm-up and
prints "RESULT <median s> <min s> <max s>", as bench/torch_peer.py does:
neither the interpreter's start-up nor the imports are in the numbers.
Needs nibabel (build/venv).
"""
import sys
import time

import nibabel as nib


def timed(runs, fn):
    samples = []
    for r in range(runs + 1):
        t0 = time.perf_counter()
        fn()
        t1 = time.perf_counter()
        if r:
            samples.append(t1 - t0)
    samples.sort()
    m = len(samples)
    med = samples[m // 2] if m % 2 else (samples[m // 2 - 1] + samples[m // 2]) / 2
    print("RESULT %.9f %.9f %.9f" % (med, samples[0], samples[-1]))


def main():
    mode, path, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if mode == "open":
        def header():
            img = nib.load(path)
            return img.header.get_data_shape(), img.get_data_dtype()
        timed(runs, header)
    elif mode == "read":
        timed(runs, lambda: nib.load(path).get_fdata())
    else:
        sys.exit("usage: nib_peer.py open|read FILE RUNS")


if __name__ == "__main__":
    main()
