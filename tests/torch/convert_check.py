#!/usr/bin/env python3
"""convert_check.py BUILD CORPUS_DIR: every checkpoint torch wrote that
afmt accepts (CORPUS_DIR/expected.tsv says ok) converted by afmt to
safetensors and to npz, then read by their own readers: each tensor of
torch.load(weights_only=True), by its key path (nested dicts and lists
joined with "."; a bare tensor: arr_0), made contiguous, must equal what
safetensors' load_file and numpy's np.load read under that name, bit for
bit (NaN payloads too); and the output must pass afmt-validate.  A
checkpoint with a type the target lacks (complex in safetensors, bf16 in
npy) must be refused naming the type, with nothing written.  Tied tensors and
views of one storage (slices, transposes, expand) each arrive as their
own copy.  One PASS/FAIL line per file and target.
"""

import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import torch
from safetensors.torch import load_file


def tensors(obj, prefix=""):
    """(key path, tensor) for every tensor in a loaded checkpoint."""
    if isinstance(obj, torch.Tensor):
        yield prefix, obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from tensors(v, "%s.%s" % (prefix, k) if prefix else str(k))
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            yield from tensors(v, "%s.%d" % (prefix, i) if prefix else str(i))


def same_bits(a, b):
    a, b = a.contiguous(), b.contiguous()
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if not a.numel():
        return True
    return a.reshape(-1).view(torch.uint8).equal(b.reshape(-1).view(torch.uint8))


def as_torch(array):
    # not ascontiguousarray: it makes a 0-d array 1-d
    return torch.from_numpy(np.array(array, order="C", copy=True))


# what each target cannot hold (afmt's type names): a checkpoint with one
# such tensor must be refused by name, and nothing written
CANNOT = {"safetensors": {"c64": torch.complex64, "c128": torch.complex128},
          "npz": {"bf16": torch.bfloat16}}


def refused_rightly(target, want, stderr, out):
    """None when afmt refused naming a type the target lacks that the
    checkpoint has, and wrote nothing; else why not."""
    held = {t for t, dt in CANNOT[target].items() if any(v.dtype == dt for v in want.values())}
    named = [t for t in held if "cannot hold elements of type %s" % t in stderr]
    if not named:
        return "afmt convert failed: %s" % stderr[-300:]
    if os.path.exists(out):
        return "refused (%s), yet %s was written" % (named[0], out)
    return None


def check(build, path, target, out):
    name = os.path.basename(path)
    want = {k or "arr_0": v for k, v in tensors(torch.load(path, weights_only=True))}
    done = subprocess.run([os.path.join(build, "afmt"), "convert", path, out], capture_output=True)
    if done.returncode != 0:
        return refused_rightly(target, want, done.stderr.decode(), out)
    valid = subprocess.run([os.path.join(build, "afmt-validate"), "-q", out], capture_output=True)
    if valid.returncode != 0:
        return "afmt-validate refuses the output: %s" % valid.stdout.decode()[-300:]
    # a name the target cannot hold is shortened, and stderr says so
    # (afmt convert --help: --keep-names refuses instead)
    for old, new in re.findall(r'name "(.+?)" shortened to "(.+?)": ', done.stderr.decode()):
        if old in want:
            want[new] = want.pop(old)
    if target == "safetensors":
        got = load_file(out)
    else:
        with np.load(out) as z:
            got = {k: as_torch(z[k]) for k in z.files}
    wrong = [k for k in want if k not in got or not same_bits(want[k], got[k])]
    if wrong or set(got) - set(want):
        return "%s: %d of %d tensors differ or are missing (%s), %d extra" % (
            name, len(wrong), len(want), ", ".join(wrong[:3]), len(set(got) - set(want)))
    return None


def main():
    build, corpus = sys.argv[1], sys.argv[2]
    failed = 0
    expected = {}
    for line in open(os.path.join(corpus, "expected.tsv")):
        fields = line.rstrip("\n").split("\t")
        if len(fields) >= 2:
            expected[fields[0]] = fields[1]
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(expected):
            if expected[name] != "ok":
                continue
            for target in ("safetensors", "npz"):
                out = os.path.join(tmp, "%s.%s" % (os.path.splitext(name)[0], target))
                why = check(build, os.path.join(corpus, name), target, out)
                print("%s torch convert %s -> %s%s" % ("FAIL" if why else "PASS", name, target,
                                                     ": " + why if why else ""))
                failed |= why is not None
    return failed


if __name__ == "__main__":
    sys.exit(main())
