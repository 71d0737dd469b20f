#!/usr/bin/env python3
"""Text-header formats: .npy reading against numpy, safetensors header
validation against header size, as whole commands (`make bench`, benchmark 9,
times the same tasks in process); run:
  nice -n 19 /usr/bin/python3 bench/textfmt_bench.py [BUILD] [MiB]
Commands alternate round by round (afmt, numpy, numpy mmap, ...), one
untimed warm-up round, medians of 7 rounds; the page cache is warm.
np.load(mmap_mode='r') maps without reading, so it is the floor of a
reader that validates nothing; afmt-validate reads and checks the header
and payload (bool bytes) and maps the file.
"""
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden"))
from textfmt import st_file  # noqa: E402

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
MIB = int(sys.argv[2]) if len(sys.argv) > 2 else 256
V = os.path.join(BUILD, "afmt-validate")
T = tempfile.mkdtemp()
PY = sys.executable


def timed(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t


def bench(cmds, rounds=7):
    for c in cmds.values():
        timed(c)
    res = {k: [] for k in cmds}
    for _ in range(rounds):
        for k, c in cmds.items():
            res[k].append(timed(c))
    return {k: sorted(v)[len(v) // 2] for k, v in res.items()}


npy = os.path.join(T, "x.npy")
subprocess.run([PY, "-c", "import numpy as np, sys; np.save(sys.argv[1], np.arange(%d, dtype=np.float64))"
                % (MIB * 131072), npy], check=True)
m = bench({"afmt-validate": [V, npy]})
# numpy in process (its interpreter start is not counted): median of 7
inproc = subprocess.run([PY, "-c", """
import numpy as np, sys, time
def med(f):
    f(); t = []
    for _ in range(7):
        a = time.perf_counter(); f(); t.append(time.perf_counter() - a)
    return sorted(t)[3]
print(med(lambda: np.load(sys.argv[1])), med(lambda: np.load(sys.argv[1], mmap_mode='r')))
""", npy], stdout=subprocess.PIPE, check=True).stdout.split()
m["np.load"], m["np.load mmap"] = float(inproc[0]), float(inproc[1])
print(".npy f64, %d MiB (medians, s): %s" % (MIB, ", ".join("%s %.4f" % kv for kv in m.items())))
print("  afmt-validate (whole command) / np.load (in process) = %.2fx; / np.load(mmap_mode='r') = %.2fx"
      % (m["afmt-validate"] / m["np.load"], m["afmt-validate"] / m["np.load mmap"]))

for n in (10, 100, 1000, 4000):
    p = os.path.join(T, "h%d.safetensors" % n)
    with open(p, "wb") as f:
        f.write(st_file([("layer.%05d.weight" % i, "F32", (2, 2), b"\0" * 16) for i in range(n)]))
    hdr = int.from_bytes(open(p, "rb").read(8), "little")
    m = bench({"afmt-validate": [V, p], "true": ["/bin/true"]}, rounds=9)
    print("safetensors, %5d tensors, header %8d bytes: afmt-validate %.4f s (/bin/true %.4f s)"
          % (n, hdr, m["afmt-validate"], m["true"]))
