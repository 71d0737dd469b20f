#!/usr/bin/env python3
"""Benchmark 11's peers: what torch does with a checkpoint, timed in process.

    torch_peer.py load FILE RUNS
        torch.load(FILE, weights_only=True, mmap=True): the pickle run by
        torch's weights-only unpickler, each storage a view of the mapped
        file (no payload byte is read).
    torch_peer.py convert FILE OUT RUNS
        the same load, then safetensors.torch.save_file(state, OUT) and an
        fsync of OUT (afmt convert commits its output durably, so the peer
        does too); OUT is deleted, untimed, before each round.
    torch_peer.py convert-once FILE OUT
        one such conversion, untimed (run.sh compares its output with
        afmt convert's before timing either).

Each mode runs RUNS rounds in this process after one untimed warm-up,
times each with time.perf_counter() and prints
"RESULT <median s> <min s> <max s>", as bench/np_peer.py does: neither
the interpreter's start-up nor `import torch` (about a second) is in the
numbers, only the work.  The state is dropped inside the timed span
(torch unmaps the file then), as a caller that converts and moves on
does.  Needs torch and safetensors (build/venv).
"""
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_timing import timed  # noqa: E402


def load(path):
    return torch.load(path, weights_only=True, mmap=True)


def convert(path, out):
    from safetensors.torch import save_file
    state = load(path)
    save_file(state, out)
    del state
    fd = os.open(out, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "load" and len(sys.argv) == 4:
        path, runs = sys.argv[2], int(sys.argv[3])

        def once():
            state = load(path)
            del state
        timed(runs, once)
    elif mode == "convert" and len(sys.argv) == 5:
        path, out, runs = sys.argv[2], sys.argv[3], int(sys.argv[4])

        def remove():
            if os.path.exists(out):
                os.unlink(out)
        timed(runs, lambda: convert(path, out), remove)
        remove()
    elif mode == "convert-once" and len(sys.argv) == 4:
        convert(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
