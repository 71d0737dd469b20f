#!/usr/bin/env bash
# FITS against astropy.io.fits (build/venv): files astropy writes (every
# BITPIX, 1-d to 3-d, NAXIS = 0, a zero-length axis, IMAGE extensions
# named and not, BZERO/BSCALE of the four integer conventions and a scaled
# float, a BINTABLE among images) accepted by afmt with astropy's values
# and dtypes (afmt convert to .npz; afmt's column-major [NAXIS1, ...] is
# astropy's array transposed): the integer conventions as the unsigned
# (or i8) type astropy gives, a general BSCALE refused by npy, written as
# f64 values with --apply-scale, kept by FITS -> FITS; and afmt writes
# u16, u32, u64 and i8 through BZERO, read back by astropy.
# Prints PASS/FAIL/SKIP lines; exit 1 on a FAIL.
#   bash tests/fits/run_astropy.sh [BUILD]
BUILD=${1:-build}
PY=${PY:-$BUILD/venv/bin/python}
if ! [ -x "$PY" ] || ! "$PY" -c 'import astropy.io.fits, numpy' 2>/dev/null; then
    echo "SKIP astropy: no astropy.io.fits in $PY (the peer of tests/fits)"
    exit 0
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
AFMT=$BUILD/afmt VALIDATE=$BUILD/afmt-validate PYTHONPATH="$(dirname "$0")/../peers" "$PY" - "$TMP" <<'PYEOF'
import os, sys, warnings
import numpy as np
from astropy.io import fits
warnings.simplefilter("ignore")
tmp = sys.argv[1]
from peer_check import AFMT as afmt, VALIDATE as validate, report, run, finish


def afmt_arrays(path, lenient=False):
    """afmt's views of path, by name, through afmt convert to .npz."""
    npz = path + ".npz"
    rc, out = run(afmt, "convert", *(["--lenient"] if lenient else []), path, npz)
    if rc:
        raise RuntimeError("afmt convert: " + out)
    with np.load(npz) as z:
        return {k: z[k] for k in z.files}

def astropy_arrays(path):
    """astropy's data of each HDU with data, in order: the integer
    conventions applied (u16 for BZERO 32768 on BITPIX 16)."""
    out = []
    with fits.open(path) as hl:
        for i, h in enumerate(hl):
            if isinstance(h, (fits.PrimaryHDU, fits.ImageHDU)) and h.header.get("NAXIS", 0) > 0:
                name = str(h.header.get("EXTNAME", "")).rstrip() or ("primary" if i == 0 else "hdu%d" % i)
                data = h.data if h.data is not None else np.zeros([h.header["NAXIS%d" % k] for k in
                                                                   range(h.header["NAXIS"], 0, -1)], dtype="u1")
                out.append((name, np.array(data)))
    return out

def compare(name, path, lenient=False, logical=None):
    rc, out = run(validate, *(["--lenient"] if lenient else []), path)
    if rc:
        return report(name, "afmt-validate: " + out)
    try:
        ours = afmt_arrays(path, lenient)
    except RuntimeError as e:
        return report(name, str(e))
    theirs = astropy_arrays(path)
    if sorted(ours) != sorted(n for n, _ in theirs):
        return report(name, "afmt has arrays %s, astropy %s" % (sorted(ours), [n for n, _ in theirs]))
    for n, t in theirs:
        o = ours[n]
        if (o.dtype.newbyteorder("=") != t.dtype.newbyteorder("=") and t.size) or o.T.shape != t.shape:
            return report(name, "%s: astropy %s %s, afmt %s %s (transposed)" % (n, t.dtype, t.shape, o.dtype, o.T.shape))
        if not np.array_equal(o.T, t):
            return report(name, "%s: values differ" % n)
    if logical:
        rc, out = run(afmt, "info", path)
        if "logical_type" not in out or logical not in out.split("logical_type", 1)[1].split("\n", 1)[0]:
            return report(name, "afmt info does not report logical type %s: %s" % (logical, out))
    report(name, None)

rng = np.random.default_rng(7)
shapes = [(7,), (3, 5), (2, 3, 4)]
for dt in ["u1", "i2", "i4", "i8", "f4", "f8"]:
    for shape in shapes:
        name = "astropy-%s-%s" % (dt, "x".join(map(str, shape)))
        a = (rng.random(shape) * 100 - (0 if dt == "u1" else 50)).astype(dt)
        path = os.path.join(tmp, name + ".fits")
        fits.PrimaryHDU(a).writeto(path)
        compare(name, path)

path = os.path.join(tmp, "naxis0.fits")
fits.PrimaryHDU().writeto(path)
compare("astropy-naxis0", path)

path = os.path.join(tmp, "zero-axis.fits")
fits.HDUList([fits.PrimaryHDU(), fits.ImageHDU(np.zeros((0, 3), dtype="f4"), name="EMPTY")]).writeto(path)
compare("astropy-zero-length-axis", path)

path = os.path.join(tmp, "extensions.fits")
fits.HDUList([fits.PrimaryHDU(np.arange(6, dtype="i2").reshape(2, 3)),
              fits.ImageHDU(np.linspace(0, 1, 12, dtype="f8").reshape(3, 4), name="SCI"),
              fits.ImageHDU(np.arange(5, dtype="i4"))]).writeto(path)
compare("astropy-extensions", path)

for dt, logical in [("u2", "u16"), ("u4", "u32"), ("u8", "u64"), ("i1", "i8")]:
    name = "astropy-bzero-%s" % logical
    path = os.path.join(tmp, name + ".fits")
    info = np.iinfo(dt)
    a = np.array([info.min, 0 if info.min < 0 else 1, info.max, 7], dtype=dt)
    fits.PrimaryHDU(a).writeto(path)
    compare(name, path, logical=logical)

path = os.path.join(tmp, "bscale.fits")
h = fits.PrimaryHDU(np.arange(8, dtype="f4") * 0.5)
h.scale("int16", bscale=0.5, bzero=10)
h.writeto(path)
with fits.open(path, do_not_scale_image_data=True) as hl:
    stored = np.array(hl[0].data)
    want = hl[0].header["BZERO"] + hl[0].header["BSCALE"] * stored.astype("f8")
rc, out = run(afmt, "convert", path, os.path.join(tmp, "bscale.npy"))
report("astropy-bscale-refused-by-npy", None if rc and "cannot keep the scale" in out and "i16" in out
       else "afmt convert: rc %d %s" % (rc, out))
rc, out = run(afmt, "convert", "--apply-scale", path, os.path.join(tmp, "bscale.npy"))
why = "afmt convert --apply-scale: " + out if rc else None
if not why:
    got = np.load(os.path.join(tmp, "bscale.npy"))
    why = None if got.dtype == np.float64 and np.array_equal(got, want) else "values %s, want %s" % (got, want)
report("astropy-bscale-apply-scale-f64", why)
kept = os.path.join(tmp, "bscale-kept.fits")
rc, out = run(afmt, "convert", path, kept)
why = "afmt convert: " + out if rc else None
if not why:
    with fits.open(kept, do_not_scale_image_data=True) as hl:
        hd = hl[0].header
        why = None if (hd["BITPIX"], hd["BSCALE"], hd["BZERO"]) == (16, 0.5, 10) and np.array_equal(hl[0].data, stored) \
            else "kept: BITPIX %s BSCALE %s BZERO %s %s" % (hd["BITPIX"], hd.get("BSCALE"), hd.get("BZERO"), hl[0].data)
    with fits.open(kept) as hl:
        why = why or (None if np.array_equal(hl[0].data.astype("f8"), want) else "astropy's scaled values differ")
report("astropy-bscale-kept-fits-to-fits", why)

path = os.path.join(tmp, "bintable.fits")
fits.HDUList([fits.PrimaryHDU(), fits.BinTableHDU.from_columns([fits.Column(name="x", format="J", array=np.arange(9))]),
              fits.ImageHDU(np.arange(4, dtype="f4"), name="AFTER")]).writeto(path)
rc, out = run(validate, path)
report("astropy-bintable-strict-refused", None if rc and "BINTABLE" in out else "strict: " + out)
compare("astropy-bintable-lenient-skipped", path, lenient=True)

# afmt writes, astropy reads: a primary HDU from a .npy (afmt's shape
# [3, 5] is NAXIS1 = 3, NAXIS2 = 5: astropy reads the array transposed,
# shape (5, 3), as it reads every file), IMAGE
# extensions from an .npz's further members (EXTNAME their names).
for dt in ["u1", "i2", "i4", "i8", "f4", "f8"]:
    for shape in [(7,), (3, 5), (2, 3, 4), (0, 3)]:
        name = "afmt-writes-%s-%s" % (dt, "x".join(map(str, shape)))
        a = (rng.random(shape) * 100).astype(dt)
        npy, out = os.path.join(tmp, name + ".npy"), os.path.join(tmp, name + ".fits")
        np.save(npy, a)
        rc, msg = run(afmt, "convert", npy, out)
        if rc:
            report(name, "afmt convert: " + msg); continue
        rc, msg = run(validate, out)
        if rc:
            report(name, "afmt-validate: " + msg); continue
        try:
            with fits.open(out) as hl:
                hl.verify("exception")
                d = hl[0].data
                why = None
                if a.size == 0:
                    why = None if d is None or d.size == 0 else "astropy reads data %s" % (d.shape,)
                    if not why and [hl[0].header["NAXIS%d" % (k + 1)] for k in range(a.ndim)] != list(a.shape):
                        why = "NAXISn are not %s" % (a.shape,)
                elif d.dtype.newbyteorder("=") != a.dtype.newbyteorder("=") or d.shape != a.T.shape:
                    why = "astropy reads %s %s, written %s %s (transposed)" % (d.dtype, d.shape, a.dtype, a.T.shape)
                elif not np.array_equal(d, a.T):
                    why = "values differ"
        except Exception as e:
            why = "astropy: %r" % e
        report(name, why)

name = "afmt-writes-extensions"
npz, out = os.path.join(tmp, name + ".npz"), os.path.join(tmp, name + ".fits")
arrs = {"first": np.arange(6, dtype="f8").reshape(2, 3), "SCI": np.arange(4, dtype="i2"), "ERR": np.ones((2, 2), "f4")}
np.savez(npz, **arrs)
rc, msg = run(afmt, "convert", npz, out)
why = "afmt convert: " + msg if rc else None
if not why:
    rc, msg = run(validate, out)
    why = "afmt-validate: " + msg if rc else None
if not why:
    with fits.open(out) as hl:
        hl.verify("exception")
        got = [(h.name, h.data) for h in hl]
        if len(got) != 3 or got[1][0] != "SCI" or got[2][0] != "ERR":
            why = "astropy reads HDUs %s" % [g[0] for g in got]
        elif not (np.array_equal(got[0][1], arrs["first"].T) and np.array_equal(got[1][1], arrs["SCI"]) and
                  np.array_equal(got[2][1], arrs["ERR"].T)):
            why = "values differ"
report(name, why)

# the integer conventions written: u16 as BITPIX 16 and BZERO 32768, ...
for dt, bitpix, zero in [("u2", 16, 32768), ("u4", 32, 2147483648), ("u8", 64, 9223372036854775808), ("i1", 8, -128)]:
    name = "afmt-writes-%s" % dt
    npy, out = os.path.join(tmp, name + ".npy"), os.path.join(tmp, name + ".fits")
    info = np.iinfo(dt)
    a = np.array([info.min, 1, info.max, 7], dtype=dt)
    np.save(npy, a)
    rc, msg = run(afmt, "convert", npy, out)
    why = "afmt convert: " + msg if rc else None
    if not why:
        with fits.open(out, do_not_scale_image_data=True) as hl:
            hl.verify("exception")
            h = hl[0].header.copy()
        with fits.open(out) as hl:
            d = np.array(hl[0].data)
            if (h["BITPIX"], h.get("BZERO")) != (bitpix, zero):
                why = "BITPIX %s BZERO %s" % (h["BITPIX"], h["BZERO"])
            elif d.dtype.newbyteorder("=") != a.dtype or not np.array_equal(d, a):
                why = "astropy reads %s %s" % (d.dtype, d)
    report(name, why)

finish()
PYEOF
