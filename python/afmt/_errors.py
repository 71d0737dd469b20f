"""afmt's exceptions: an invalid file, a refused write, a file that changed."""


class InvalidFile(Exception):
    """The file is not valid (or could not be read), as afmt-validate says.

    Attributes are those of the library's ``afmt_error``: ``code`` (a
    stable name: ``"truncated"``, ``"magic"``, ``"io"``, ...), ``field``
    (the field's path, ``"header.shape"``; may be empty), ``offset`` (the
    byte offset it is at, or None when it is about no byte of the file),
    ``message`` (with the true numbers), ``format`` (the format it was
    read as, or None) and ``path`` (the file, or None for bytes).
    """

    def __init__(self, code, field, offset, message, format=None, path=None):
        super().__init__(code, field, offset, message, format, path)
        self.code = code
        self.field = field
        self.offset = offset
        self.message = message
        self.format = format
        self.path = path

    def __str__(self):
        where = self.field or ""
        if self.offset is not None:
            where = f"{where} at offset {self.offset}" if where else f"offset {self.offset}"
        text = f"{where}: {self.message}" if where else self.message
        return f"{self.path}: {text}" if self.path else text


class FileChanged(InvalidFile):
    """The file was cut short or modified after it was opened.

    ``offset`` is the first byte found missing, when known.  Views of it
    may read bytes that were not validated (zeros past a cut).
    """


class Refused(Exception):
    """A writer or converter refused: ``array`` names the array (None when
    the refusal is about the file as a whole), the other attributes are
    the library's error (``code``: ``"type"``, ``"constraint"``, ...)."""

    def __init__(self, array, code, field, offset, message, format=None):
        super().__init__(array, code, field, offset, message, format)
        self.array = array
        self.code = code
        self.field = field
        self.offset = offset
        self.message = message
        self.format = format

    def __str__(self):
        who = f"array {self.array!r}: " if self.array else ""
        where = f"{self.field}: " if self.field else ""
        return f"{who}{where}{self.message} ({self.code})"
