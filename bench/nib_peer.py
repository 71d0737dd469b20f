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
import os
import sys

import nibabel as nib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_timing import timed  # noqa: E402


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
