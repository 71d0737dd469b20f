#!/usr/bin/env bash
# MAT-files against scipy.io (build/venv): files scipy.io.savemat writes
# (every numeric dtype, complex, logical, char, cell, struct, sparse
# (one of a single value, whose ir is a small element, and one without columns),
# empty; do_compression True and False; oned_as row and column) are
# accepted by afmt (the generated validator and the interpreter, strict)
# with the arrays scipy.io.loadmat reads: the same names (nested ones
# empty), dims (column-major, as stored) and values, compared through
# `afmt dump --list`; golden files whose class is wider than the stored
# type are read as the class's type (loadmat(mat_dtype=True)'s, through
# afmt convert to .npz).  Complex arrays are two views (real, imaginary),
# sparse ones their stored values (one per ir entry), char ones their
# stored code units.  Prints PASS/FAIL/SKIP lines; exit 1 on a FAIL.
#   bash tests/mat5/run_scipy.sh [BUILD]
BUILD=${1:-build}
PY=${PY:-$BUILD/venv/bin/python}
if ! [ -x "$PY" ] || ! "$PY" -c 'import scipy.io, numpy' 2>/dev/null; then
    echo "SKIP scipy: no scipy in $PY (make deps-test installs it)"
    exit 0
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
AFMT=$BUILD/afmt VALIDATE=$BUILD/afmt-validate PYTHONPATH="$(dirname "$0")/../peers" "$PY" - "$TMP" <<'PYEOF'
import os, sys
import numpy as np
import scipy.io as sio
import scipy.sparse as sp
tmp = sys.argv[1]
from peer_check import AFMT as afmt, VALIDATE as validate, report, run, finish


def afmt_arrays(path):
    """(name, shape, values as floats) of each view, from afmt dump --list."""
    rc, out = run(afmt, "dump", "--list", path)
    if rc:
        raise RuntimeError("afmt dump: " + out)
    arrays = []
    for line in out.splitlines():
        if line.startswith("# ["):
            parts = line.split(" ")
            name = parts[2] if len(parts) == 5 else ""
            typ = parts[-2]
            shape = [int(x) for x in typ[typ.index("[") + 1:-1].split(",") if x]
            arrays.append((name, shape, []))
        else:
            arrays[-1][2].append(1.0 if line == "true" else 0.0 if line == "false" else float(line))
    return arrays

def expect(name, v):
    """The views afmt gives of scipy's value v (loadmat's reading)."""
    if sp.issparse(v):
        v = v.tocsc()
        out = [(name, [v.nnz], list(np.real(v.data).astype(float)))]
        if np.iscomplexobj(v.data):
            out.append((name, [v.nnz], list(np.imag(v.data).astype(float))))
        return out
    if v.dtype == object:
        return [a for x in v.ravel(order="F") for a in expect("", x)]
    if v.dtype.names:
        return [a for e in v.ravel(order="F") for f in v.dtype.names for a in expect("", e[f])]
    if v.dtype.kind == "U":
        units = "".join(v.ravel(order="F")).encode("utf-8")
        if len(units) == v.size:
            return [(name, list(v.shape), list(np.array(list(units), dtype=float).reshape(v.shape, order="F").ravel()))]
        return [(name, [len(units)], [float(b) for b in units])]
    flat = v.ravel(order="C")
    out = [(name, list(v.shape), list(np.real(flat).astype(float)))]
    if np.iscomplexobj(v):
        out.append((name, list(v.shape), list(np.imag(flat).astype(float))))
    return out

cell = np.empty((2, 1), dtype=object)
cell[0, 0] = np.array([[1.5, 2.5]])
cell[1, 0] = "txt"
values = {
    "i8": np.array([[-1, 2, 3]], dtype=np.int8), "u8": np.arange(6, dtype=np.uint8).reshape(2, 3),
    "i16": np.array([-300, 7], dtype=np.int16), "u16": np.array([65535], dtype=np.uint16),
    "i32": np.arange(12, dtype=np.int32).reshape(3, 4), "u32": np.array([1, 2**32 - 1], dtype=np.uint32),
    "i64": np.array([-2**40, 5], dtype=np.int64), "u64": np.array([2**40], dtype=np.uint64),
    "f32": np.array([[1.5, -2.25]], dtype=np.float32), "f64": np.arange(6.0).reshape(2, 3) / 4,
    "c64": np.array([1 + 2j, -3j], dtype=np.complex64), "c128": np.array([[1 + 2j], [3 - 4j]]),
    "logic": np.array([True, False, True]), "text": "hello", "utf": "h\u00e9llo \u20ac",
    "cel": cell, "st": {"x": 1.0, "yy": np.array([1, 2], dtype=np.int16), "s": "ab"},
    "sps": sp.csc_matrix(np.array([[0, 1.5, 0], [2, 0, 3]])),
    "spc": sp.csc_matrix(np.array([[0, 1 + 1j], [2, 0]])), "empty": np.zeros((0, 3)),
    "sp1": sp.csc_matrix(np.array([[0, 2.0]])), "sp0": sp.csc_matrix((3, 0)),
    "scalar": 7.0, "cube": np.arange(24.0).reshape(2, 3, 4),
}
for comp in (False, True):
    for oned in ("row", "column"):
        for key, val in values.items():
            name = "%s-%s-%s" % (key, "z" if comp else "plain", oned)
            path = os.path.join(tmp, name + ".mat")
            sio.savemat(path, {key: val}, do_compression=comp, oned_as=oned)
            why = None
            for cmd in ([validate, path], [validate, "--spec", "spec/mat5.json", path]):
                rc, out = run(*cmd)
                if rc:
                    why = "%s: %s" % (" ".join(cmd[1:-1]) or "afmt-validate", out)
            if not why:
                want = expect(key, sio.loadmat(path, chars_as_strings=False)[key])
                try:
                    got = afmt_arrays(path)
                except RuntimeError as e:
                    got, why = None, str(e)
                if got is not None and [(n, s) for n, s, _ in got] != [(n, s) for n, s, _ in want]:
                    why = "views %s, scipy reads %s" % ([(n, s) for n, s, _ in got], [(n, s) for n, s, _ in want])
                elif got is not None and any(not np.array_equal(np.array(g[2]), np.array(w[2])) for g, w in zip(got, want)):
                    why = "values differ"
            report("scipy " + name, why)

# A class wider than its stored type (MATLAB stores a double array of
# small integers as miUINT8): afmt's view has the class's type, as
# MATLAB's and loadmat(mat_dtype=True)'s arrays do, with their values
# (scipy's default gives the stored type); either byte order.
def golden(case):
    return os.path.join("tests", "mat5", case, "input")

for case in ["double_as_uint8", "le_double_2x3", "be_double_2x3", "int8_small_data", "logical"]:
    path, why = golden(case), None
    npz = os.path.join(tmp, case + ".npz")
    rc, out = run(afmt, "convert", path, npz)
    if rc:
        why = "afmt convert: " + out
    else:
        theirs = {k: v for k, v in sio.loadmat(path, mat_dtype=True).items() if not k.startswith("__")}
        with np.load(npz) as z:
            ours = {k: z[k] for k in z.files}
        for k, v in theirs.items():
            o = ours.get(k)
            if o is None or o.dtype != v.dtype.newbyteorder("=") or o.shape != v.shape or not np.array_equal(o, v):
                why = "%s: afmt %s, scipy %s %s" % (k, None if o is None else (o.dtype, o.shape), v.dtype, v.shape)
    report("scipy logical type " + case, why)
finish()
PYEOF
