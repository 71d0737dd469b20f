"""afmt: validate array files before they are read, then read them zero-copy.

The five calls::

    afmt.validate(path_or_bytes)          # -> Result (never raises for a bad file)
    with afmt.open(path) as f:            # validated, mapped read-only
        w = f["weight"]                   # numpy view (or a copy, f.copied says why)
    afmt.load(path)                       # dict of copies
    afmt.save(path, {"w": w})             # format from the extension or format=
    afmt.convert("x.npy", "x.safetensors")

Every format rule is libafmt's (compiled into afmt._afmt); docs/PYTHON.md.
"""

from . import _afmt
from ._errors import FileChanged, InvalidFile, Refused
from ._file import File
from ._io import FormatInfo, Typed, convert, formats, load, save
from ._result import ArrayInfo, Error, Result

__version__ = _afmt.version
__all__ = ["validate", "open", "load", "save", "convert", "formats", "InvalidFile",
           "FileChanged", "Refused", "Result", "ArrayInfo", "Error", "File", "FormatInfo",
           "Typed", "__version__"]

_afmt._set_errors(InvalidFile, Refused, FileChanged)


def validate(path_or_bytes, format=None, lenient=False, limits=None):
    """Validate a file (a path) or bytes in memory; returns a Result.

    ``format``: a format's name to force (default: detected by magic, then
    extension, as afmt-validate does).  ``lenient``: also accept what the
    formats' reference readers tolerate, with warnings.  ``limits``: a dict
    of afmt_limits names (``max_rank``, ``max_header_bytes``,
    ``max_total_bytes``, ``max_items``, ``max_decoded_bytes``,
    ``max_depth``, ``max_held_bytes``, ``max_kept_bytes``) to ints.

    Never raises for an invalid or unreadable file: ``result.ok`` is False
    and ``result.error`` has ``code``, ``field``, ``offset`` and
    ``message``, the same as ``afmt-validate --json``.  The GIL is
    released while the library validates.
    """
    return Result(_afmt.validate(path_or_bytes, format, lenient, limits))


def open(path, format=None, lenient=False, limits=None, copy=False):  # noqa: A001 (afmt.open)
    """Validate path, map it read-only and return an afmt.File (a context manager).

    Raises afmt.InvalidFile when the file is not valid: nothing of an
    invalid file is mapped into arrays.  ``copy=True`` gives private copies
    of every array instead of views (safe against any later change of the
    file).  See afmt.File.
    """
    return File(path, format=format, lenient=lenient, limits=limits, copy=copy)
