#!/usr/bin/env python3
"""Benchmark 13's inputs, written by the formats' own Python writers.

    sci_gen.py OUT_DIR BYTES

From fixed values (no randomness), each about BYTES of payload:
    image.fits      astropy.io.fits: a primary HDU of f32 [N, N]
                    (BITPIX -32, big-endian)
    volume.nii      nibabel: a NIfTI-1 single file, f32 [N, N, 4]
    stored.mat      scipy.io.savemat: one f64 matrix, uncompressed
    compressed.mat  the same with do_compression=True (MATLAB's -v7
                    default): one miCOMPRESSED element, zlib level 6, of
                    at most 63 MiB: spec/mat5.json refuses an element that
                    inflates past 64 MiB (FORMATS.md's mat5 section)
The values are smooth (i % 4096 scaled), so the compressed file is about
a tenth of the stored one, as real measurement data is.  A writer whose
package is missing is skipped with a line on stderr; each file is
written under a temporary name and renamed, so a run stopped halfway
leaves nothing half-written for the bench to time.
"""
import os
import sys

import numpy as np


def values(n, dtype):
    return ((np.arange(n, dtype=np.int64) % 4096) * 0.25).astype(dtype)


def write(path, fn):
    # the temporary name keeps the extension, by which nibabel picks a format
    tmp = os.path.join(os.path.dirname(path), ".tmp-" + os.path.basename(path))
    fn(tmp)
    os.replace(tmp, path)


def fits(out, nbytes):
    from astropy.io import fits as f
    side = int((nbytes // 4) ** 0.5)
    data = values(side * side, np.float32).reshape(side, side)
    write(os.path.join(out, "image.fits"), lambda p: f.PrimaryHDU(data).writeto(p, output_verify="exception"))


def nifti(out, nbytes):
    import nibabel as nib
    side = int((nbytes // 16) ** 0.5)
    data = values(side * side * 4, np.float32).reshape(side, side, 4)
    img = nib.Nifti1Image(data, np.eye(4))
    write(os.path.join(out, "volume.nii"), lambda p: nib.save(img, p))


def mat(out, nbytes):
    from scipy.io import savemat
    side = int((nbytes // 8) ** 0.5)
    data = values(side * side, np.float64).reshape(side, side)
    small_side = int((min(nbytes, 63 << 20) // 8) ** 0.5)
    small = values(small_side * small_side, np.float64).reshape(small_side, small_side)

    def saver(x, compress):
        def save(p):
            with open(p, "wb") as fh:
                savemat(fh, {"x": x}, do_compression=compress)
        return save
    write(os.path.join(out, "stored.mat"), saver(data, False))
    write(os.path.join(out, "compressed.mat"), saver(small, True))


def main():
    out, nbytes = sys.argv[1], int(sys.argv[2])
    os.makedirs(out, exist_ok=True)
    for fn in (fits, nifti, mat):
        try:
            fn(out, nbytes)
        except ImportError as e:
            print("bench 13: %s skipped: %s" % (fn.__name__, e), file=sys.stderr)


if __name__ == "__main__":
    main()
