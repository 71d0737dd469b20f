"""What afmt.validate returns: a verdict, the arrays' descriptions, the
error and warnings; plain values made from the C half's tuples."""

import json


class Error:
    """One error or warning: ``code``, ``field``, ``offset`` (None: about
    no byte), ``message``, ``format``."""

    __slots__ = ("code", "field", "offset", "message", "format")

    def __init__(self, code, field, offset, message, format):
        self.code = code
        self.field = field
        self.offset = offset
        self.message = message
        self.format = format

    def __repr__(self):
        return (f"Error(code={self.code!r}, field={self.field!r}, offset={self.offset!r}, "
                f"message={self.message!r})")


class ArrayInfo:
    """One array as the file stores it.

    ``name``: the key it is found under (an unnamed array is ``"arr_I"``);
    ``stored_name``: the name as stored (may be empty); ``dtype``: afmt's
    element type (``"f32"``, ``"bf16"``, ``"opaque"``); ``type_name``: the
    format's name of it when opaque (``"Q4_0"``, ``"F8_E4M3"``), else
    ``dtype``; ``shape``: the logical shape; ``strides``: in elements for a
    strided view (torch), else None; ``order``: ``"row-major"`` or
    ``"column-major"``; ``offset``, ``nbytes``: where its bytes are in the
    file and how many; ``member``: the archive member it came from (npz),
    or None; ``block``: elements per quantized block (GGUF), 0 for none;
    ``encoding``: ``"plain"``, ``"bits"``, ``"lz4"``, ``"csr"``, ...
    """

    __slots__ = ("index", "name", "stored_name", "dtype", "type_name", "shape", "strides",
                 "order", "offset", "nbytes", "member", "block", "encoding")

    def __init__(self, t):
        (self.index, self.name, self.stored_name, self.dtype, self.type_name, self.shape,
         self.strides, self.order, self.offset, self.nbytes, self.member, self.block,
         self.encoding) = t

    @property
    def quantized(self):
        """True for GGUF's quantized blocks (handed out as raw bytes)."""
        return self.block != 0

    def __repr__(self):
        return (f"ArrayInfo(name={self.name!r}, dtype={self.type_name!r}, shape={self.shape!r}, "
                f"offset={self.offset}, nbytes={self.nbytes})")


class Result:
    """The verdict on one input.

    ``ok``: valid or not (also ``bool(result)``); ``format``: the format
    read (None when none was detected; ``closest_match`` then names the
    format that read furthest, whose error ``error`` is); ``arrays``: list of ArrayInfo
    (empty when invalid); ``error``: an Error when invalid, else None;
    ``warnings``: list of Error (lenient tolerances), at most 256 kept,
    ``warnings_seen`` counting them all; ``metadata``: the file's JSON
    metadata as a dict (safetensors' ``__metadata__``) or None; ``kv``: the
    typed key-values (GGUF metadata, torch plain values) as a dict, their
    stored types in ``kv_types``.
    """

    __slots__ = ("ok", "format", "arrays", "error", "warnings", "warnings_seen",
                 "metadata_text", "kv", "kv_types", "kv_offsets", "closest_match")

    def __init__(self, t):
        (ok, self.format, arrays, error, warnings, self.warnings_seen, self.metadata_text, kvs,
         self.closest_match) = t
        self.ok = ok
        self.arrays = [ArrayInfo(a) for a in arrays]
        self.error = Error(*error) if error is not None else None
        self.warnings = [Error(*w) for w in warnings]
        self.kv = {}
        self.kv_types = {}
        self.kv_offsets = {}
        for key, value, typ, offset in kvs:
            self.kv[key] = value
            self.kv_types[key] = typ
            self.kv_offsets[key] = offset

    @property
    def metadata(self):
        """The file's metadata object (validated JSON), or None."""
        return json.loads(self.metadata_text) if self.metadata_text is not None else None

    def __bool__(self):
        return bool(self.ok)

    def __repr__(self):
        if self.ok:
            return f"Result(ok=True, format={self.format!r}, arrays={len(self.arrays)})"
        return f"Result(ok=False, format={self.format!r}, error={self.error!r})"
