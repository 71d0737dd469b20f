# Type hints of the afmt package (python/afmt/__init__.py; docs/PYTHON.md).
import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal, Optional, Union

import numpy as np

__version__: str

PathLike = Union[str, bytes, os.PathLike]
Source = Union[str, os.PathLike, bytes, bytearray, memoryview]

class Error:
    code: str
    field: str
    offset: Optional[int]
    message: str
    format: Optional[str]

class ArrayInfo:
    index: int
    name: str
    stored_name: str
    dtype: str
    type_name: str
    shape: tuple[int, ...]
    strides: Optional[tuple[int, ...]]
    order: Literal["row-major", "column-major"]
    offset: int
    nbytes: int
    member: Optional[str]
    block: int
    encoding: str
    @property
    def quantized(self) -> bool: ...

class Result:
    ok: bool
    format: Optional[str]
    arrays: list[ArrayInfo]
    error: Optional[Error]
    warnings: list[Error]
    warnings_seen: int
    metadata_text: Optional[str]
    kv: dict[str, Any]
    kv_types: dict[str, str]
    kv_offsets: dict[str, int]
    closest_match: Optional[str]
    @property
    def metadata(self) -> Optional[dict[str, Any]]: ...
    def __bool__(self) -> bool: ...

class InvalidFile(Exception):
    code: str
    field: str
    offset: Optional[int]
    message: str
    format: Optional[str]
    path: Optional[str]
    def __init__(self, code: str, field: str, offset: Optional[int], message: str,
                 format: Optional[str] = ..., path: Optional[str] = ...) -> None: ...

class FileChanged(InvalidFile): ...

class Refused(Exception):
    array: Optional[str]
    code: str
    field: str
    offset: Optional[int]
    message: str
    format: Optional[str]
    def __init__(self, array: Optional[str], code: str, field: str, offset: Optional[int],
                 message: str, format: Optional[str] = ...) -> None: ...

class FormatInfo:
    name: str
    extensions: tuple[str, ...]
    shared_extensions: tuple[str, ...]
    order: Literal["row-major", "column-major"]
    multi: bool
    json_metadata: bool
    kv_metadata: bool
    sidecar: Optional[str]

class Typed:
    afmt_type: str
    value: Any
    def __init__(self, afmt_type: str, value: Any) -> None: ...

class File(Mapping[str, np.ndarray]):
    def __init__(self, path: PathLike, format: Optional[str] = ..., lenient: bool = ...,
                 limits: Optional[dict[str, int]] = ..., copy: bool = ...) -> None: ...
    def __getitem__(self, name: str) -> np.ndarray: ...
    def __iter__(self) -> Iterator[str]: ...
    def __len__(self) -> int: ...
    def info(self, name: str) -> ArrayInfo: ...
    @property
    def result(self) -> Result: ...
    @property
    def format(self) -> str: ...
    @property
    def metadata(self) -> Optional[dict[str, Any]]: ...
    @property
    def kv(self) -> dict[str, Any]: ...
    @property
    def kv_types(self) -> dict[str, str]: ...
    @property
    def warnings(self) -> list[Error]: ...
    @property
    def copied(self) -> dict[str, str]: ...
    @property
    def path(self) -> str: ...
    @property
    def watched(self) -> bool: ...
    def check(self) -> None: ...
    def close(self) -> None: ...
    def __enter__(self) -> "File": ...
    def __exit__(self, *exc: Any) -> Literal[False]: ...

def validate(path_or_bytes: Source, format: Optional[str] = ..., lenient: bool = ...,
             limits: Optional[dict[str, int]] = ...) -> Result: ...
def open(path: PathLike, format: Optional[str] = ..., lenient: bool = ...,
         limits: Optional[dict[str, int]] = ..., copy: bool = ...) -> File: ...
def load(path: PathLike, format: Optional[str] = ..., lenient: bool = ...) -> dict[str, np.ndarray]: ...
def save(path: PathLike, arrays: Union[Mapping[str, Any], Sequence[Any]],
         format: Optional[str] = ..., metadata: Optional[Mapping[str, Any]] = ...) -> str: ...
def convert(src: PathLike, dst: PathLike, to: Optional[str] = ..., format: Optional[str] = ...,
            lenient: bool = ...) -> str: ...
def formats() -> list[FormatInfo]: ...
