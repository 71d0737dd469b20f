"""afmt.load, afmt.save, afmt.convert and afmt.formats: whole files in and
out, through the library's writers (the CLI's, with its refusals)."""

import json
import os
import sys

from . import _afmt
from ._errors import Refused


class FormatInfo:
    """One format afmt knows: ``name``, ``extensions``, ``shared_extensions``
    (``.bin``: names an output, never detects an input), ``order`` its
    writer expects, ``multi`` (several arrays per file), ``json_metadata``
    (safetensors' ``__metadata__``), ``kv_metadata`` (GGUF's typed
    key-values), ``sidecar`` (DAPHNE's ``.meta``, or None)."""

    __slots__ = ("name", "extensions", "shared_extensions", "order", "multi",
                 "json_metadata", "kv_metadata", "sidecar")

    def __init__(self, t):
        (self.name, self.extensions, self.shared_extensions, self.order, self.multi,
         self.json_metadata, self.kv_metadata, self.sidecar) = t

    def __repr__(self):
        return f"FormatInfo({self.name!r}, extensions={self.extensions!r})"


def formats():
    """Every format of this build, in name order (a list of FormatInfo)."""
    return [FormatInfo(t) for t in _afmt.formats()]


def _format_info(name):
    for t in _afmt.formats():
        if t[0] == name:
            return FormatInfo(t)
    raise ValueError(f"no format {name!r}")


class Typed:
    """A GGUF metadata value with its stored type said: ``Typed("u32", 32)``,
    ``Typed("list[f32]", [1.0, 2.0])``.  Types: u8..u64, i8..i64, f32, f64,
    bool, str, list[T].  Untyped values: bool, int (i64), float (f64), str."""

    __slots__ = ("afmt_type", "value")

    def __init__(self, afmt_type, value):
        self.afmt_type = afmt_type
        self.value = value

    def __repr__(self):
        return f"Typed({self.afmt_type!r}, {self.value!r})"


_NUMPY_TO_AFMT = {
    ("b", 1): "bool", ("i", 1): "i8", ("i", 2): "i16", ("i", 4): "i32", ("i", 8): "i64",
    ("u", 1): "u8", ("u", 2): "u16", ("u", 4): "u32", ("u", 8): "u64",
    ("f", 2): "f16", ("f", 4): "f32", ("f", 8): "f64", ("c", 8): "c64", ("c", 16): "c128",
}


def _as_numpy(name, value):
    """(numpy array, afmt dtype name) of a numpy array, array-like or torch tensor."""
    import numpy as np

    dtype_name = None
    if hasattr(value, "detach") and hasattr(value, "numpy"):  # a torch tensor
        import torch

        value = value.detach().cpu()
        if value.dtype == torch.bfloat16:
            value, dtype_name = value.contiguous().view(torch.int16).numpy().view(np.uint16), "bf16"
        else:
            value = value.numpy()
    array = np.asarray(value)
    if dtype_name is None:
        dtype_name = _NUMPY_TO_AFMT.get((array.dtype.kind, array.dtype.itemsize))
        if dtype_name is None:
            raise Refused(name, "type", "dtype", None,
                          f"numpy dtype {array.dtype} has no afmt element type", None)
    if array.dtype.byteorder not in ("=", "|", "<" if sys.byteorder == "little" else ">"):
        array = array.astype(array.dtype.newbyteorder("="))
    return array, dtype_name


def save(path, arrays, format=None, metadata=None):
    """Write arrays to path as one file; the format from ``format=`` or path's extension.

    ``arrays``: a dict of name -> array (numpy arrays, anything
    numpy.asarray takes, torch tensors; bf16 tensors are kept bf16), or a
    list of arrays (unnamed: written as ``arr_0``, ``arr_1``... where the
    format names arrays).  ``metadata``: safetensors' ``__metadata__`` (a
    dict of str to str), or GGUF's key-values (a dict; ``afmt.Typed`` for a
    type of your choice).  The file is written under a temporary name and
    renamed into place: a refusal (``afmt.Refused``, naming the array and
    the reason) leaves no file.  Returns the format written.
    """
    target = _afmt.output_format(os.fspath(path), format)
    info = _format_info(target)
    items = arrays.items() if hasattr(arrays, "items") else (("", a) for a in arrays)
    entries = []
    import numpy as np

    for name, value in items:
        array, dtype_name = _as_numpy(name, value)
        array = np.asfortranarray(array) if info.order == "column-major" else np.ascontiguousarray(array)
        entries.append((name, array, dtype_name, tuple(array.shape), None))
    metadata_json = kv = None
    if metadata is not None:
        if info.json_metadata:
            metadata_json = json.dumps(metadata, separators=(",", ":"), ensure_ascii=False)
        elif info.kv_metadata:
            kv = dict(metadata)
        else:
            raise Refused(None, "usage", "metadata", None, f"{target} files keep no metadata", target)
    _afmt.write(path, target, entries, metadata_json, kv)
    return target


def load(path, format=None, lenient=False):
    """Validate path and return a dict of name -> numpy array, each a private copy.

    Raises afmt.InvalidFile (code, field, offset, message) when it is not
    valid.  Metadata: use afmt.open (``.metadata``, ``.kv``)."""
    from ._file import File

    with File(path, format=format, lenient=lenient, copy=True) as f:
        return {name: f[name] for name in f}


def convert(src, dst, to=None, format=None, lenient=False):
    """Convert src into dst as afmt convert does; returns dst's format.

    The output's format is ``to=`` or dst's extension (an extension that
    names another format is refused).  src is validated first
    (afmt.InvalidFile); every array is asked of the target before a byte
    is written (afmt.Refused naming the array: a type the target lacks, a
    rank it cannot hold...); metadata is kept where the target has it.
    The GIL is released for the whole conversion.  No element type is
    changed (no casts); a general scale (FITS BSCALE 0.5) is kept where
    the target can store it (FITS), else refused (afmt.Refused), as afmt
    convert refuses it without --apply-scale."""
    return _afmt.convert(src, dst, to, format, lenient)
