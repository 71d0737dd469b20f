"""Every format through the API against independent readers and writers:
numpy (.npy, .npz), safetensors, gguf-py and torch; and afmt's own
writers of the other formats read back through afmt.open."""
import sys
import warnings

import numpy as np
import pytest

import afmt


def need(module):
    return pytest.importorskip(module, reason=f"{module} is not installed (make deps-test)")


DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]


def sample(dtype, shape=(3, 4)):
    a = (np.arange(int(np.prod(shape))) % 7 - 3).reshape(shape)
    if np.dtype(dtype).kind == "b":
        return (a > 0).astype(dtype)
    if np.dtype(dtype).kind == "u":
        a = np.abs(a)
    if np.dtype(dtype).kind == "c":
        return (a + 1j * a[::-1]).astype(dtype)
    return a.astype(dtype)


# ---------------------------------------------------------------- numpy
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_npy_written_by_numpy(tmp_path, dtype):
    a = sample(dtype)
    p = tmp_path / "a.npy"
    np.save(p, a)
    with afmt.open(p) as f:
        got = f["arr_0"] if "arr_0" in f else next(iter(f.values()))
        assert got.dtype == a.dtype and np.array_equal(got, a)
        assert f.copied == {}, f.copied  # numpy's own files are views
        assert not got.flags.writeable and isinstance(got.base, afmt._afmt.Mapped)


def test_npy_fortran_big_endian_and_back(tmp_path):
    a = np.asfortranarray(sample(np.float64, (2, 3, 4)))
    np.save(tmp_path / "f.npy", a)
    np.save(tmp_path / "b.npy", sample(np.int32).astype(">i4"))
    with afmt.open(tmp_path / "f.npy") as f, afmt.open(tmp_path / "b.npy") as b:
        (fa,), (ba,) = f.values(), b.values()
        assert np.array_equal(fa, a) and fa.flags.f_contiguous and f.copied == {}
        assert np.array_equal(ba, sample(np.int32)) and ba.dtype == np.dtype("=i4")
        assert "big-endian" in list(b.copied.values())[0]
    for dtype in DTYPES:
        afmt.save(tmp_path / "w.npy", [sample(dtype)])
        assert np.array_equal(np.load(tmp_path / "w.npy"), sample(dtype))


def test_npz_both_ways(tmp_path):
    arrays = {"x": sample(np.float32), "y": sample(np.int64, (5,)), "z": sample(np.bool_, (2, 2))}
    np.savez(tmp_path / "s.npz", **arrays)
    np.savez_compressed(tmp_path / "c.npz", **arrays)
    for name in ("s.npz", "c.npz"):
        got = afmt.load(tmp_path / name)
        assert set(got) == set(arrays) and all(np.array_equal(got[k], arrays[k]) for k in arrays)
        info = afmt.validate(tmp_path / name)
        assert info.ok and {a.member for a in info.arrays} == {k + ".npy" for k in arrays}
    with afmt.open(tmp_path / "c.npz") as f:
        assert set(f.copied) == set(arrays)  # deflated members are inflated copies
    afmt.save(tmp_path / "w.npz", arrays)
    with np.load(tmp_path / "w.npz") as z:
        assert all(np.array_equal(z[k], arrays[k]) for k in arrays)


# ---------------------------------------------------------------- safetensors
def test_safetensors_written_by_safetensors(tmp_path):
    st = need("safetensors.numpy")
    arrays = {f"t{np.dtype(d).name}": sample(d) for d in DTYPES if np.dtype(d).kind != "c"}
    st.save_file(arrays, str(tmp_path / "m.safetensors"), metadata={"format": "np", "k": "v"})
    with afmt.open(tmp_path / "m.safetensors") as f:
        assert f.metadata == {"format": "np", "k": "v"}
        assert f.copied == {}
        for k, a in arrays.items():
            assert f[k].dtype == a.dtype and np.array_equal(f[k], a), k


def test_safetensors_read_by_safetensors(tmp_path):
    need("safetensors")
    from safetensors import safe_open

    arrays = {"w": sample(np.float32, (4, 8)), "b": sample(np.float16, (8,)), "i": sample(np.int64, (2,))}
    afmt.save(tmp_path / "o.safetensors", arrays, metadata={"who": "afmt"})
    with safe_open(str(tmp_path / "o.safetensors"), framework="np") as f:
        assert f.metadata() == {"who": "afmt"}
        assert set(f.keys()) == set(arrays)
        for k in arrays:
            assert np.array_equal(f.get_tensor(k), arrays[k])


def test_safetensors_bf16_via_torch(tmp_path):
    torch = need("torch")
    from safetensors.torch import load_file, save_file

    t = torch.arange(12, dtype=torch.float32).reshape(3, 4).to(torch.bfloat16)
    save_file({"t": t}, str(tmp_path / "b.safetensors"))
    with afmt.open(tmp_path / "b.safetensors") as f:
        bits = f["t"]
        assert f.info("t").dtype == "bf16" and bits.dtype == np.uint16
        assert torch.equal(torch.from_numpy(bits.copy()).view(torch.bfloat16), t)
    afmt.save(tmp_path / "w.safetensors", {"t": t})
    assert torch.equal(load_file(str(tmp_path / "w.safetensors"))["t"], t)


# ---------------------------------------------------------------- gguf
def test_gguf_written_by_gguf_py(tmp_path):
    gguf = need("gguf")
    p = tmp_path / "m.gguf"
    w = gguf.GGUFWriter(str(p), "llama")
    w.add_uint32("llama.block_count", 2)
    w.add_string("general.name", "tiny")
    w.add_array("tokenizer.ggml.tokens", ["a", "b", "c"])
    tensors = {"tok.weight": sample(np.float32, (4, 8)), "out.weight": sample(np.float16, (2, 32))}
    for k, a in tensors.items():
        w.add_tensor(k, a)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    reader = gguf.GGUFReader(str(p))
    with afmt.open(p) as f:
        assert f.kv["llama.block_count"] == 2 and f.kv_types["llama.block_count"] == "u32"
        assert f.kv["general.name"] == "tiny"
        assert f.kv["tokenizer.ggml.tokens"] == ["a", "b", "c"]
        for t in reader.tensors:
            assert np.array_equal(f[t.name], np.asarray(t.data)), t.name
            assert np.array_equal(f[t.name], tensors[t.name])


def test_gguf_quantized_blocks_are_gguf_py_bytes(repo):
    gguf = need("gguf")
    path = repo / "corpus" / "gguf" / "quantized.gguf"
    reader = gguf.GGUFReader(str(path))
    with afmt.open(path) as f:
        for t in reader.tensors:
            info = f.info(t.name)
            assert info.quantized and info.type_name == t.tensor_type.name
            assert f[t.name].dtype == np.uint8 and f[t.name].tobytes() == np.asarray(t.data).tobytes()


def test_gguf_read_by_gguf_py(tmp_path):
    gguf = need("gguf")
    arrays = {"a": sample(np.float32, (3, 32)), "b": sample(np.float16, (64,))}
    kv = {"general.architecture": "llama", "llama.context_length": afmt.Typed("u32", 128),
          "x.list": afmt.Typed("list[f32]", [1.0, 2.5])}
    afmt.save(tmp_path / "o.gguf", arrays, metadata=kv)
    reader = gguf.GGUFReader(str(tmp_path / "o.gguf"))
    got = {t.name: np.asarray(t.data) for t in reader.tensors}
    assert all(np.array_equal(got[k], arrays[k]) for k in arrays)
    field = reader.fields["llama.context_length"]
    assert int(field.parts[field.data[0]][0]) == 128
    afmt.convert(tmp_path / "o.gguf", tmp_path / "c.gguf")
    with afmt.open(tmp_path / "c.gguf") as f:
        assert f.kv_types["llama.context_length"] == "u32" and f.kv["x.list"] == [1.0, 2.5]


# ---------------------------------------------------------------- torch
def test_torch_checkpoints_strided_views(tmp_path):
    torch = need("torch")
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    state = {"w": base, "t": base.t(), "s": base[1:3, ::2], "e": torch.ones(3, 1).expand(3, 5),
             "i": torch.arange(5, dtype=torch.int64), "h": torch.ones(2, 2, dtype=torch.float16)}
    torch.save(state, tmp_path / "m.pt")
    with afmt.open(tmp_path / "m.pt") as f:
        assert set(f) == set(state)
        for k, t in state.items():
            assert np.array_equal(f[k], t.numpy(), equal_nan=True), k
            assert f.info(k).strides == tuple(t.stride()), k
        assert f.copied == {}
        # the views share the file's storage: torch sees the same strides
        assert torch.from_numpy(f["t"]).stride() == base.t().stride()


def test_torch_read_by_torch(tmp_path):
    torch = need("torch")
    arrays = {"w": sample(np.float32), "b": sample(np.int16, (7,)), "c": sample(np.complex64, (2,))}
    afmt.save(tmp_path / "o.pt", arrays)
    got = torch.load(tmp_path / "o.pt", weights_only=True)
    assert all(np.array_equal(got[k].numpy(), arrays[k]) for k in arrays)


def test_torch_from_numpy_and_dlpack(repo):
    torch = need("torch")
    with afmt.open(repo / "corpus" / "torch" / "all_dtypes.pt") as f:
        w = f["f32"]
        with warnings.catch_warnings():
            # torch says (once) that the array is read-only, as it is
            warnings.simplefilter("ignore", UserWarning)
            t = torch.from_numpy(w)
        assert t.data_ptr() == w.ctypes.data  # no copy
        assert np.array_equal(t.numpy(), w, equal_nan=True)
        try:
            d = np.from_dlpack(w)
        except (BufferError, TypeError) as e:
            pytest.skip(f"numpy {np.__version__} exports no read-only array by DLPack: {e}")
        assert np.array_equal(d, w, equal_nan=True)


# ---------------------------------------------------------------- the rest
@pytest.mark.parametrize("fmt", ["rawarray", "futhark", "tenbin", "inebin", "daphne", "safetensors",
                                 "npy", "npz", "torch", "gguf", "webdataset"])
def test_every_writer_read_back(tmp_path, fmt):
    info = {f.name: f for f in afmt.formats()}[fmt]
    exts = info.extensions + info.shared_extensions
    ext = exts[0] if exts else ""  # none: format= names it
    a = sample(np.float32, (3, 4))
    path = tmp_path / ("x" + ext)
    try:
        afmt.save(path, {"x": a}, format=fmt)
    except afmt.Refused as e:
        pytest.skip(f"{fmt} refuses a named f32 [3,4]: {e}")
    r = afmt.validate(path)
    assert r.ok and r.format == fmt, r.error
    got = afmt.load(path)
    assert len(got) == 1 and np.array_equal(next(iter(got.values())), a)
    assert sys.getrefcount(got) >= 1
