"""Model weights as read-only numpy memory maps of a safetensors file.

A distilled model's embedding table is ~100-200 MB; copying it into memory would take most of
the cold-start budget of ``parasent similarity`` (0.5 s), while a sentence touches a few rows.
The safetensors layout is simple and fixed (an 8-byte little-endian header length, a JSON
header giving each tensor's dtype, shape and byte range, then the raw little-endian data), so
each tensor is mapped in place: loading costs the header, and only the pages of the rows a
text uses are ever read. Files are written with the ``safetensors`` library, except those whose
bytes must repeat from one build to the next (:func:`save_sorted`).
"""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path

import numpy as np

from parasent.errors import WeightsFormatError

_DTYPES = {
    "F64": "<f8",
    "F32": "<f4",
    "F16": "<f2",
    "I64": "<i8",
    "U64": "<u8",
    "I32": "<i4",
    "I16": "<i2",
    "I8": "i1",
    "U8": "u1",
    "BOOL": "?",
}

# A header is JSON of a few hundred bytes per tensor: far below this.
MAX_HEADER_BYTES = 100_000_000


def read_header(path: str | Path, max_bytes: int = MAX_HEADER_BYTES) -> tuple[dict, int]:
    """The JSON header of safetensors file ``path`` (the tensors' entries and ``__metadata__``)
    and the offset its data starts at; a header longer than ``max_bytes`` or the file is
    refused before it is read (a reader that wants only the metadata bounds it lower)."""
    size = Path(path).stat().st_size
    with open(path, "rb") as handle:
        prefix = handle.read(8)
        if len(prefix) != 8:
            raise WeightsFormatError("file shorter than a safetensors header")
        (header_size,) = struct.unpack("<Q", prefix)
        if header_size > min(size - 8, max_bytes):
            raise WeightsFormatError(f"header length {header_size} exceeds the file")
        try:
            header = json.loads(handle.read(header_size))
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
            raise WeightsFormatError(f"unreadable header ({type(exc).__name__})") from None
    if not isinstance(header, dict):
        raise WeightsFormatError("header is not a JSON object")
    return header, 8 + header_size


def map_safetensors(path: str | Path) -> dict[str, np.ndarray]:
    """Every tensor of ``path`` as a read-only array backed by the file (no copy): plain
    ndarrays whose base is an ``np.memmap``."""
    path = Path(path)
    size = path.stat().st_size
    header, start = read_header(path)
    tensors: dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        try:
            dtype = np.dtype(_DTYPES[info["dtype"]])
            shape = _integers(info["shape"])
            begin, end = _integers(info["data_offsets"])
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            raise WeightsFormatError(f"tensor {name!r}: unsupported entry {str(info)[:200]}") from exc
        if any(d < 0 for d in shape):
            raise WeightsFormatError(f"tensor {name!r}: negative dimension in shape {shape}")
        count = math.prod(shape)  # Python integers: a product of huge dimensions must not wrap around
        if end - begin != count * dtype.itemsize or start + end > size or begin < 0:
            raise WeightsFormatError(f"tensor {name!r}: byte range {begin}-{end} does not fit its shape")
        if count == 0:
            tensors[name] = np.zeros(shape, dtype=dtype)
            continue
        mapped = np.memmap(path, dtype=dtype, mode="r", offset=start + begin, shape=shape)
        # A plain ndarray view (its base keeps the map alive): np.memmap's own __getitem__
        # costs more than a small gather, and averaging gathers many small blocks.
        tensors[name] = mapped.view(np.ndarray)
    return tensors


def _integers(values: object) -> tuple[int, ...]:
    """A header's list of sizes: JSON integers only (``int()`` would take ``5.7`` or ``"5"`` as a
    size, which no writer stores: the file is not what it claims)."""
    if not isinstance(values, list) or not all(type(value) is int for value in values):
        raise TypeError(f"sizes must be a list of integers, got {str(values)[:60]}")
    return tuple(values)


def safetensors_header(header: dict[str, object]) -> bytes:
    """The bytes before a safetensors file's data: the 8-byte length, then the JSON ``header``
    (``__metadata__`` and each tensor's dtype, shape and byte range) padded to 8 bytes, so the
    data that follows is aligned."""
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text


def save_sorted(tensors: dict[str, np.ndarray], path: str | Path, metadata: dict[str, str]) -> None:
    """A safetensors file whose bytes depend on its contents alone: the ``safetensors`` library
    writes ``metadata`` in its hash map's order, which changes from one process to the next,
    so a rebuilt model would differ byte for byte. Metadata keys are sorted; tensors are laid
    out widest dtype first, then by name, so every tensor of a mapped file is aligned (the
    library orders dtypes of one width otherwise: the bytes are not its bytes), and read back
    by the library and by :func:`map_safetensors` alike. Written beside and renamed
    (:func:`parasent.support.staging.atomic_file`): the arrays saved may be mapped from the
    file being replaced."""
    from parasent.support.staging import atomic_file

    codes = {np.dtype(v): k for k, v in _DTYPES.items()}
    arrays = {name: np.asarray(array) for name, array in tensors.items()}
    for name, array in arrays.items():
        if array.dtype.newbyteorder("<") not in codes:
            raise WeightsFormatError(f"tensor {name!r}: dtype {array.dtype} has no safetensors code here")
    header: dict[str, object] = {"__metadata__": dict(sorted(metadata.items()))}
    offset = 0
    for name in sorted(arrays, key=lambda n: (-arrays[n].dtype.itemsize, n)):
        array = arrays[name]
        header[name] = {
            "dtype": codes[array.dtype.newbyteorder("<")],
            "shape": list(array.shape),
            "data_offsets": [offset, offset + array.nbytes],
        }
        offset += array.nbytes
    with atomic_file(path, "wb") as handle:
        handle.write(safetensors_header(header))
        for name in header:
            if name != "__metadata__":
                little = np.ascontiguousarray(arrays[name], dtype=arrays[name].dtype.newbyteorder("<"))
                handle.write(little.reshape(-1).view(np.uint8).data)  # no copy of the bytes
