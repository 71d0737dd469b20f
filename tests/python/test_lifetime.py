"""Views outlive nothing they point into; files cut short under a view or
a read give afmt.FileChanged, never SIGBUS; refusals name the array."""
import gc
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import afmt


def big_npy(path, n=1 << 20):
    a = np.arange(n, dtype=np.float32)
    np.save(path, a)
    return a


def test_views_keep_the_mapping_alive(tmp_path):
    a = big_npy(tmp_path / "a.npy")
    f = afmt.open(tmp_path / "a.npy")
    view = f["arr_0"]
    f.close()
    del f
    gc.collect()
    assert np.array_equal(view, a)  # still mapped: the view's base holds it
    base = view.base
    assert isinstance(base, afmt._afmt.Mapped)
    slice_of = view[10:20]
    del view, base
    gc.collect()
    assert np.array_equal(slice_of, a[10:20])


def test_no_new_arrays_after_close(tmp_path):
    big_npy(tmp_path / "a.npy", 16)
    with afmt.open(tmp_path / "a.npy") as f:
        pass
    with pytest.raises(ValueError):
        f["arr_0"]


def test_invalid_file_raises_with_fields(repo):
    with pytest.raises(afmt.InvalidFile) as e:
        afmt.open(repo / "examples" / "invalid" / "short_payload.npy")
    assert (e.value.code, e.value.field, e.value.offset) == ("truncated", "data", 128)
    assert "short_payload.npy" in str(e.value) and e.value.format == "npy"
    with pytest.raises(afmt.InvalidFile):
        afmt.load(repo / "examples" / "invalid" / "overlap.safetensors")


def test_refusals_name_the_array(tmp_path, repo):
    with pytest.raises(afmt.Refused) as e:
        afmt.save(tmp_path / "x.inebin", {"x": np.zeros(3, np.float32)}, format="inebin")
    assert e.value.array == "x" and e.value.code == "type"
    with pytest.raises(afmt.Refused) as e:
        afmt.convert(repo / "corpus" / "gguf" / "quantized.gguf", tmp_path / "q.safetensors")
    assert e.value.array == "blk.0.attn_q.weight" and "Q4_0" in e.value.message
    assert not (tmp_path / "q.safetensors").exists()
    with pytest.raises(ValueError, match="extension"):
        afmt.convert(repo / "corpus" / "gguf" / "quantized.gguf", tmp_path / "q.safetensors", to="npy")
    with pytest.raises(afmt.Refused, match="metadata"):
        afmt.save(tmp_path / "m.npy", [np.zeros(2)], metadata={"a": "b"})


CUT_UNDER_VIEW = textwrap.dedent("""
    import os, sys, numpy as np, afmt
    path = sys.argv[1]
    np.save(path, np.ones(1 << 22, dtype=np.float32))  # 16 MiB
    f = afmt.open(path)
    view = f["arr_0"]
    assert view[0] == 1.0
    os.truncate(path, 4096)
    total = float(view.sum())  # past the cut: zero pages, not SIGBUS
    try:
        f.check()
    except afmt.FileChanged as e:
        print("changed", e.code, e.offset is not None, total < (1 << 22))
    try:
        f2 = afmt.open(path)
    except afmt.InvalidFile as e:
        print("reopen", e.code)
""")


def test_cut_under_a_view_is_an_exception_not_sigbus(tmp_path):
    out = subprocess.run([sys.executable, "-c", CUT_UNDER_VIEW, str(tmp_path / "c.npy")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-500:]
    assert "changed io True True" in out.stdout and "reopen truncated" in out.stdout


def test_cut_before_a_copy_is_file_changed(tmp_path):
    path = tmp_path / "c.npy"
    big_npy(path)
    f = afmt.open(path, copy=True)
    os.truncate(path, 4096)
    with pytest.raises(afmt.FileChanged):
        f["arr_0"]


def test_threads_validate_at_once(repo):
    """The GIL is released while validating: threads run side by side and agree."""
    paths = sorted((repo / "corpus").rglob("*.safetensors")) + sorted((repo / "corpus").rglob("*.gguf"))
    want = [afmt.validate(p).ok for p in paths]
    got = {}

    def work(k):
        got[k] = [afmt.validate(p).ok for p in paths]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(v == want for v in got.values())


def test_validate_bytes_and_pathlike(repo):
    p = repo / "corpus" / "safetensors" / "two_tensors_metadata.safetensors"
    assert afmt.validate(p).ok and afmt.validate(str(p)).ok
    assert afmt.validate(p.read_bytes()).ok and afmt.validate(bytearray(p.read_bytes())).ok
    assert afmt.validate(memoryview(p.read_bytes())).format == "safetensors"
