"""Views with a value transform (FITS BZERO, a MAT double class stored as
miUINT8): numpy gets the values, of the logical type, in a copy that
f.copied names; never the stored elements as if they were the values."""
import pathlib

import numpy as np
import pytest

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


def test_convert_keeps_or_refuses_a_general_scale(tmp_path):
    src = REPO / "tests/fits/bscale_i16/input"
    with pytest.raises(afmt.Refused) as e:
        afmt.convert(src, tmp_path / "s.npy")
    assert e.value.code == "type" and "scale 0.5" in str(e.value)
    afmt.convert(src, tmp_path / "s.fits")
    with afmt.open(tmp_path / "s.fits") as f:
        assert f["primary"].tolist() == [10.0, 11.5, 13.0]
