"""afmt.open: a validated file mapped read-only, as a mapping of array
name to numpy array (views where they can be, copies where not)."""

from collections.abc import Mapping

import numpy as np

from . import _afmt
from ._result import Result


class File(Mapping):
    """A file afmt validated, mapped read-only; ``file[name]`` is a numpy array.

    Made by ``afmt.open``; use it as a context manager.  Each array is a
    read-only view of the mapping when the stored bytes are already what
    numpy needs (plain, host byte order, aligned: safetensors, .npy, GGUF,
    torch's strided storages), else a private copy decoded by the library
    (big-endian, unaligned, bit-packed, compressed, sparse);
    ``copied[name]`` says why for each copy (``copy=True`` copies all).
    GGUF's quantized tensors are their raw blocks as a 1-d uint8 array
    (``info(name).type_name`` is ``"Q4_0"``, ``info(name).shape`` the
    logical shape); bf16 is handed out as its bits in uint16
    (``torch.from_numpy(a).view(torch.bfloat16)``); opaque elements of more
    than one byte get an innermost axis of their bytes.

    Arrays stay valid after ``close()`` and after the ``with`` block: the
    mapping is released when the last array of it is freed.  If the file is
    cut short while mapped, a view reading past the cut reads zeros
    instead of killing the process with SIGBUS, and ``check()``, the next
    ``file[name]`` or leaving the ``with`` block raise ``afmt.FileChanged``
    (docs/PYTHON.md says exactly what is guaranteed).
    """

    def __init__(self, path, format=None, lenient=False, limits=None, copy=False):
        self._mapped = _afmt.open_mapped(path, format, lenient, limits)
        self._result = Result(self._mapped.result())
        self._index = {}
        for info in self._result.arrays:
            self._index.setdefault(info.name, info)
        self._arrays = {}
        self._copied = {}
        self._copy_all = copy
        self._closed = False
        self._path = self._mapped.path
        self._watched = self._mapped.watched

    # ---- the mapping
    def __getitem__(self, name):
        got = self._arrays.get(name)
        if got is not None:
            return got
        if self._closed:
            raise ValueError("the file is closed (arrays taken before stay valid)")
        info = self._index[name]
        typestr, shape, strides, offset, reason = self._mapped.plan(info.index)
        if offset >= 0 and not self._copy_all:
            array = np.ndarray(shape, dtype=typestr, buffer=self._mapped, offset=offset,
                               strides=strides)
        else:
            array = np.empty(shape, dtype=typestr)
            self._mapped.read_into(info.index, array)
            self._copied[name] = reason if reason is not None else "copy=True"
        self._arrays[name] = array
        return array

    def __iter__(self):
        return iter(self._index)

    def __len__(self):
        return len(self._index)

    def __contains__(self, name):
        return name in self._index

    # ---- what else the file says
    def info(self, name):
        """The ArrayInfo of an array: type name, logical shape, offset..."""
        return self._index[name]

    @property
    def result(self):
        """The validation's Result (as afmt.validate gives it)."""
        return self._result

    @property
    def format(self):
        """The format's name."""
        return self._result.format

    @property
    def metadata(self):
        """safetensors' ``__metadata__`` as a dict, or None."""
        return self._result.metadata

    @property
    def kv(self):
        """GGUF's key-values / torch's plain values as a dict (``kv_types``: their types)."""
        return self._result.kv

    @property
    def kv_types(self):
        return self._result.kv_types

    @property
    def warnings(self):
        return self._result.warnings

    @property
    def copied(self):
        """name -> why, for every array that is (or would be) a copy, not a view."""
        out = {}
        for name, info in self._index.items():
            if name in self._copied:
                out[name] = self._copied[name]
            elif self._copy_all:
                out[name] = "copy=True"
            elif not self._closed:
                reason = self._mapped.plan(info.index)[4]
                if reason is not None:
                    out[name] = reason
        return out

    @property
    def path(self):
        return self._path

    @property
    def watched(self):
        """True when a cut under a view is caught (always, but past 1024 files open at once)."""
        return self._watched

    # ---- life
    def check(self):
        """Raise afmt.FileChanged if the file was cut or modified since it was opened.

        After close() there is nothing left to look at: it does nothing."""
        if not self._closed:
            self._mapped.check()

    def close(self):
        """No new arrays; the ones taken stay valid (the mapping goes with the last)."""
        if not self._closed:
            self._closed = True
            self._mapped.close()
            # the arrays handed out hold the mapping (their base); this
            # object no longer does, so it goes with the last of them
            self._mapped = None
            self._arrays = {}

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is None:
                self.check()
        finally:
            self.close()
        return False

    def __repr__(self):
        state = "closed" if self._closed else "open"
        return f"<afmt.File {self.path!r} {self.format} {len(self)} arrays, {state}>"
