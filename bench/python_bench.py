"""Benchmark 12 of make bench: the Python package afmt against the Python
peers, in one process (interpreter start-up and imports not counted).

Rows (tab-separated, bench/run.sh's row format: ID WHAT TOOL TOOL_S
TOOL_RANGE BASE BASE_S BASE_RANGE BYTES NOTE), one line each on stdout:
  12a  afmt.open + first tensor of a safetensors file vs safetensors.safe_open
       + get_tensor (framework="np"); validation included on afmt's side
  12b  the same, summing every tensor
  12c  a GGUF file: afmt.open + first tensor vs gguf.GGUFReader + tensors[0]
  12d  a .npy file: afmt.open + first element vs np.load(mmap_mode="r")
  12e  afmt.validate of 10,000 small files from Python vs afmt-validate -q
       -j 1 on the same files (one command, start-up included)
Sides alternate round after round after a warm-up round (BENCH-NOTES);
medians.  Inputs are made once into DATA (by numpy, safetensors and
gguf-py themselves, not by afmt) and checked with afmt.validate.
Usage: python_bench.py DATA MB RUNS AFMT_VALIDATE
"""
import os
import pathlib
import statistics
import subprocess
import sys
import time

import numpy as np

import afmt


def rounds(runs, *sides):
    """Median, min and max seconds of each side, alternating, after a warm-up."""
    samples = [[] for _ in sides]
    for r in range(runs + 1):
        for k, side in enumerate(sides):
            t0 = time.perf_counter()
            side()
            dt = time.perf_counter() - t0
            if r:
                samples[k].append(dt)
    return [(statistics.median(s), min(s), max(s)) for s in samples]


def row(rid, what, tool, base, t, b, nbytes, note):
    print("\t".join([rid, what, tool, f"{t[0]:.6f}", f"{t[1]:.6f}-{t[2]:.6f}", base, f"{b[0]:.6f}",
                     f"{b[1]:.6f}-{b[2]:.6f}", str(nbytes), note]), flush=True)


def tensors_of(mb):
    """mb MB of f32 in 16 tensors."""
    n = mb * (1 << 20) // 4 // 16
    return {f"layer.{i}.weight": np.full(n, i, dtype=np.float32) for i in range(16)}


def make_inputs(data, mb, say):
    data.mkdir(parents=True, exist_ok=True)
    st, gg, npy, small = data / "m.safetensors", data / "m.gguf", data / "m.npy", data / "small"
    if not st.exists():
        from safetensors.numpy import save_file
        save_file(tensors_of(mb), str(st))
    if not gg.exists():
        import gguf
        w = gguf.GGUFWriter(str(gg), "llama")
        for k, a in tensors_of(mb).items():
            w.add_tensor(k, a.reshape(-1, 1024))
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()
    if not npy.exists():
        np.save(npy, np.ones(mb * (1 << 20) // 4, dtype=np.float32))
    if not small.exists():
        tmp = data / "small.tmp"
        tmp.mkdir(exist_ok=True)
        for i in range(10000):
            np.save(tmp / f"{i:05d}.npy", np.arange(i % 32, dtype=np.int32))
        tmp.rename(small)
    for p in (st, gg, npy):
        assert afmt.validate(p).ok, p
        say(f"input {p} {p.stat().st_size} bytes")
    files = sorted(small.iterdir())
    assert len(files) == 10000 and all(afmt.validate(p).ok for p in files[:100])
    return st, gg, npy, files


def main():
    data, mb, runs, cli = pathlib.Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    say = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    st, gg, npy, files = make_inputs(data, mb, say)
    first = "layer.0.weight"

    def afmt_first(path, name):
        with afmt.open(path) as f:
            return float(f[name][0])

    def afmt_sum(path):
        with afmt.open(path) as f:
            return sum(float(f[k].sum()) for k in f)

    try:
        from safetensors import safe_open

        def st_first():
            with safe_open(str(st), framework="np") as f:
                return float(f.get_tensor(first)[0])

        def st_sum():
            with safe_open(str(st), framework="np") as f:
                return sum(float(f.get_tensor(k).sum()) for k in f.keys())

        assert afmt_first(st, first) == st_first() and afmt_sum(st) == st_sum()
        t, b = rounds(runs, lambda: afmt_first(st, first), st_first)
        row("12a", f"safetensors {mb} MB: open + first tensor", "afmt.open", "safe_open+get_tensor",
            t, b, st.stat().st_size, "afmt validates first; goal <= 1")
        t, b = rounds(runs, lambda: afmt_sum(st), st_sum)
        row("12b", f"safetensors {mb} MB: sum every tensor", "afmt.open", "safe_open+get_tensor",
            t, b, st.stat().st_size, "")
    except ImportError as e:
        say(f"12a/12b skipped: {e}")
    try:
        import gguf

        def gg_first():
            r = gguf.GGUFReader(str(gg))
            t0 = next(t for t in r.tensors if t.name == first)
            return float(np.asarray(t0.data).reshape(-1)[0])

        gfirst = lambda: float(afmt.open(gg)[first].reshape(-1)[0])  # noqa: E731
        assert gfirst() == gg_first()
        t, b = rounds(runs, gfirst, gg_first)
        row("12c", f"gguf {mb} MB: open + first tensor", "afmt.open", "gguf.GGUFReader", t, b,
            gg.stat().st_size, "goal <= 1")
    except ImportError as e:
        say(f"12c skipped: {e}")

    def np_first():
        return float(np.load(npy, mmap_mode="r")[0])

    t, b = rounds(runs, lambda: afmt_first(npy, "arr_0"), np_first)
    row("12d", f"npy {mb} MB: open + first element", "afmt.open", "np.load(mmap_mode=r)", t, b,
        npy.stat().st_size, "goal <= 1")

    names = [str(p) for p in files]

    def py_all():
        return all(afmt.validate(p).ok for p in names)

    def cli_all():
        return subprocess.run([cli, "-q", "-j", "1", *names], check=False).returncode == 0

    assert py_all() and cli_all()
    t, b = rounds(max(3, runs // 2), py_all, cli_all)
    row("12e", "10000 small .npy: validate each", "afmt.validate loop", "afmt-validate -q -j 1",
        t, b, sum(os.path.getsize(p) for p in names), "per-file goal <= 1.5")


if __name__ == "__main__":
    main()
