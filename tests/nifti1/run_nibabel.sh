#!/usr/bin/env bash
# NIfTI-1 against nibabel (build/venv): files afmt writes (afmt random,
# afmt convert from .npy) read back by nibabel with equal values and
# shape (column-major: dim[1] fastest), and files nibabel writes (several
# dtypes, both byte orders, extensions, scl_slope) accepted by afmt with
# the same stored values.  Prints PASS/FAIL/SKIP lines; exit 1 on a FAIL.
#   bash tests/nifti1/run_nibabel.sh [BUILD]
BUILD=${1:-build}
PY=${PY:-$BUILD/venv/bin/python}
if ! [ -x "$PY" ] || ! "$PY" -c 'import nibabel, numpy' 2>/dev/null; then
    echo "SKIP nibabel: no nibabel in $PY (make deps-test installs it)"
    exit 0
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
AFMT=$BUILD/afmt VALIDATE=$BUILD/afmt-validate PYTHONPATH="$(dirname "$0")/../peers" "$PY" - "$TMP" <<'PYEOF'
import os, struct, sys
import numpy as np
import nibabel as nib
tmp = sys.argv[1]
from peer_check import AFMT as afmt, VALIDATE as validate, report, run, finish


def afmt_values(path, name):
    """The array afmt reads from path, through afmt convert to .npy."""
    npy = os.path.join(tmp, name + ".afmt.npy")
    rc, out = run(afmt, "convert", path, npy)
    if rc:
        raise RuntimeError("afmt convert: " + out)
    return np.load(npy)

# 1. afmt writes, nibabel reads
for t in ["u8", "i8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64", "c64", "c128"]:
    name = "afmt-random-%s" % t
    path = os.path.join(tmp, name + ".nii")
    rc, out = run(afmt, "random", "[3][4][5]" + t, "--to", "nifti1", "-o", path)
    if rc:
        report(name, "afmt random: " + out); continue
    try:
        img = nib.load(path)
        theirs = np.asanyarray(img.dataobj)
        ours = afmt_values(path, name)
        why = None
        if theirs.shape != ours.shape or theirs.dtype != ours.dtype.newbyteorder("="):
            why = "nibabel reads %s %s, afmt %s %s" % (theirs.dtype, theirs.shape, ours.dtype, ours.shape)
        elif not np.array_equal(theirs, ours):
            why = "values differ"
        elif img.dataobj.offset != 352 or img.header.get_data_dtype() != ours.dtype.newbyteorder("="):
            why = "header: voxels at %s, dtype %s" % (img.dataobj.offset, img.header.get_data_dtype())
        report(name, why)
    except Exception as e:
        report(name, "nibabel: %s" % e)

for shape, order in (((7,), "C"), ((2, 3), "C"), ((2, 3, 4, 5), "F"), ((1, 1, 1, 1, 1, 1, 2), "C")):
    name = "afmt-convert-npy-%s-%s" % ("x".join(map(str, shape)), order)
    a = np.asarray(np.arange(np.prod(shape), dtype=np.float32).reshape(shape), order=order) * 0.5 - 3
    npy, nii = os.path.join(tmp, name + ".npy"), os.path.join(tmp, name + ".nii")
    np.save(npy, a)
    rc, out = run(afmt, "convert", npy, nii)
    if rc:
        report(name, "afmt convert: " + out); continue
    b = np.asanyarray(nib.load(nii).dataobj)
    report(name, None if b.shape == a.shape and np.array_equal(a, b) else "nibabel reads %s %s" % (b.shape, b.ravel()[:6]))

# 2. nibabel writes, afmt reads
rng = np.random.default_rng(33)
cases = []
for dt in ["uint8", "int8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32", "float64",
           "complex64", "complex128"]:
    for bo in "<>":
        cases.append(("nibabel-%s-%s" % (dt, "le" if bo == "<" else "be"), np.dtype(dt).newbyteorder(bo), None, False))
cases.append(("nibabel-extensions", np.dtype("<i2"), [(6, b"a comment"), (4, b"<afni>" * 5)], False))
cases.append(("nibabel-extensions-be", np.dtype(">f4"), [(6, b"big-endian comment")], False))
cases.append(("nibabel-scl-slope", np.dtype("<i2"), None, True))
for name, dt, exts, scaled in cases:
    a = (rng.integers(0, 100, (4, 3, 2)) if dt.kind != "c" else rng.integers(0, 9, (4, 3, 2)) * (1 + 2j)).astype(dt)
    hdr = nib.Nifti1Header()
    hdr.set_data_dtype(dt)
    if dt.byteorder == ">" or (dt.byteorder == "=" and sys.byteorder == "big"):
        hdr = hdr.as_byteswapped(">")
        hdr.set_data_dtype(dt)
    img = nib.Nifti1Image(a, np.eye(4), header=hdr)
    if exts:
        for code, content in exts:
            img.header.extensions.append(nib.nifti1.Nifti1Extension(code, content))
    if scaled:
        img.header.set_slope_inter(2.5, -1.0)
    path = os.path.join(tmp, name + ".nii")
    nib.save(img, path)
    back = nib.load(path)
    stored = np.asanyarray(back.dataobj.get_unscaled())
    rc, out = run(validate, path)
    if rc:
        report(name, "afmt-validate: " + out); continue
    try:
        ours = afmt_values(path, name)
    except RuntimeError as e:
        report(name, str(e)); continue
    why = None
    if ours.shape != stored.shape or not np.array_equal(ours, stored):
        why = "afmt reads %s %s, nibabel stored %s %s" % (ours.dtype, ours.shape, stored.dtype, stored.shape)
    elif (back.header.endianness == ">") != (open(path, "rb").read(4) == b"\0\0\x01\x5c"):
        why = "byte order"
    if not why and scaled:
        rc, info = run(afmt, "info", "--json", path)
        if '"scl_slope"' not in info or "2.5" not in info:
            why = "afmt info does not report scl_slope 2.5"
    report(name, why)
finish()
PYEOF
