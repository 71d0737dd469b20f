#!/usr/bin/env python3
"""Benchmark 11's inputs: PyTorch checkpoints written by torch.save.

    torch_gen.py OUT_DIR BIG_BYTES

writes, from fixed seeds (torch.manual_seed), the state_dict() of a stack
of transformer-style blocks (nn.LayerNorm and nn.Linear, 12 tensors per
block: ln1, qkv, proj, ln2, fc1, fc2, each a weight and a bias):

    t300.pt   25 blocks of width 64: 300 tensors, 5.0 MB of payload.  What
              it measures is the per-tensor work (the pickle, the zip
              entries), not the bytes.
    big.pt    blocks of width 1024 (256 when BIG_BYTES is under 256 MiB,
              for BENCH_QUICK), as many as come nearest BIG_BYTES: for
              1 GiB, 21 blocks, 252 tensors, 1.06 GB of f32.

A state_dict() is what real checkpoints hold (an OrderedDict with its
_metadata, so the pickle has the BUILD torch writes).  Each file is
written under a temporary name and renamed, so that a run stopped halfway
leaves no partial checkpoint for the bench to time; torch.save names the
archive's folder after the file, so the temporary name keeps the final
stem.  Needs torch (build/venv).
"""
import os
import sys

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.ln1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.ln2 = nn.LayerNorm(width)
        self.fc1 = nn.Linear(width, 4 * width)
        self.fc2 = nn.Linear(4 * width, width)


class Stack(nn.Module):
    def __init__(self, width, blocks):
        super().__init__()
        self.blocks = nn.ModuleList(Block(width) for _ in range(blocks))


def block_bytes(width):
    # 12 d^2 weights, 9 d biases, 4 d for the two LayerNorms; f32
    return 4 * (12 * width * width + 13 * width)


def write(out_dir, stem, width, blocks, seed):
    torch.manual_seed(seed)
    with torch.no_grad():
        state = Stack(width, blocks).state_dict()
    tmp_dir = os.path.join(out_dir, ".tmp")
    os.makedirs(tmp_dir, exist_ok=True)
    tmp = os.path.join(tmp_dir, stem + ".pt")
    torch.save(state, tmp)
    os.replace(tmp, os.path.join(out_dir, stem + ".pt"))
    os.rmdir(tmp_dir)
    return len(state)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    out_dir, big_bytes = sys.argv[1], int(sys.argv[2])
    os.makedirs(out_dir, exist_ok=True)
    n = write(out_dir, "t300", 64, 25, seed=300)
    assert n == 300, n
    width = 1024 if big_bytes >= 256 << 20 else 256
    blocks = max(1, round(big_bytes / block_bytes(width)))
    write(out_dir, "big", width, blocks, seed=1024)


if __name__ == "__main__":
    main()
