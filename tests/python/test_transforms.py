"""Views with a value transform (FITS BZERO, a MAT double class stored as
miUINT8): numpy gets the values, of the logical type, in a copy that
f.copied names; never the stored elements as if they were the values."""
import pathlib

import numpy as np

import afmt

REPO = pathlib.Path(__file__).resolve().parents[2]


def test_fits_bzero_u16_is_a_u16_copy():
    with afmt.open(REPO / "tests/fits/bzero_u16/input") as f:
        a = f["primary"]
        assert a.dtype == np.uint16 and list(a) == [32768, 32771, 32774]
        assert "stored as i16" in f.copied["primary"]


def test_mat_double_stored_as_uint8_is_f64():
    with afmt.open(REPO / "tests/mat5/double_as_uint8/input") as f:
        a = f["x"]
        assert a.dtype == np.float64 and a.ravel().tolist() == [1.0, 2.0, 3.0]
        assert "stored as u8" in f.copied["x"]
