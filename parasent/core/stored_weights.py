"""Storage types of model weights: float32, float16, or int8 with one scale per row.

A word-averaging model is its embedding table; storing it compactly is what makes a default
model small enough to ship inside the package. ``int8`` keeps, per row, ``round(127 * x /
max|x|)`` and the float32 scale ``max|x| / 127``: every entry is within half a step (0.4% of
the row's largest entry) of its float value, and a row's direction, all that cosine sees,
moves by less than that. Rows are dequantized when gathered (:class:`QuantizedTable`), so an
int8 table stays int8 in memory, memory-mapped from the file like any other.

Identical rows are stored once (*shared rows*): a table in which many tokens share a vector
(a compacted vocabulary maps each dropped word to the vector of its nearest kept word,
:mod:`parasent.core.compaction`) is written as its distinct rows plus ``NAME.row_index``, the
stored row of every token (int32), and read back as the whole table.

The name of the embedding tensor (:data:`EMBEDDING_KEY`) and the reading of a safetensors file
(:func:`read_weights`) are here too: the model's own directory (:mod:`parasent.core.model`) and
other libraries' (:mod:`parasent.core.model_formats`) share them, and the formats must not import
the model, which imports them.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from parasent.errors import ModelFormatError
from parasent.support.path_names import native_path

EMBEDDING_KEY = "embedding.weight"  # the token table of every model
DTYPES = ("float32", "float16", "int8")
SCALE_SUFFIX = ".row_scale"  # the int8 tensor NAME has its scales in NAME.row_scale
ROWS_SUFFIX = ".row_index"  # a table NAME stored as distinct rows: NAME.row_index, row of each token
# Shared rows are written only when they save at least this fraction of a table's rows and
# this many bytes, so an ordinary table (whose [PAD] and [UNK] rows may both be zero) keeps
# the layout older readers know, memory-mapped as it is stored.
SHARE_MIN_SAVING = 0.05
SHARE_MIN_BYTES = 1 << 20


class QuantizedTable:
    """An int8 ``(rows, dim)`` matrix with float32 per-row scales, indexed like an array:
    ``table[ids]`` gives float32 rows; ``np.asarray(table)`` the whole float32 matrix."""

    def __init__(self, values: np.ndarray, scales: np.ndarray, rows: np.ndarray | None = None) -> None:
        if values.ndim != 2 or values.dtype != np.int8 or scales.shape != (values.shape[0],):
            raise ModelFormatError(
                f"an int8 table needs (rows, dim) int8 values and (rows,) scales, got "
                f"{values.dtype} {tuple(values.shape)} and {tuple(scales.shape)}"
            )
        # Plain ndarray views of memory maps: a memmap's own __getitem__ costs more than the
        # small gathers of averaging themselves (still mapped, not copied).
        self.values = values.view(np.ndarray)
        self.scales = scales.view(np.ndarray)
        # shared rows: token i reads stored row rows[i] (None: row i)
        self.rows = None if rows is None else rows.view(np.ndarray)

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self), self.values.shape[1])

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(np.float32)

    def __len__(self) -> int:
        return len(self.rows) if self.rows is not None else self.values.shape[0]

    def __getitem__(self, index: Any) -> np.ndarray:
        if self.rows is not None:
            index = self.rows[index]
        # one ufunc pass: the int8 rows are widened inside the multiplication
        return np.multiply(self.values[index], self.scales[index][..., None], dtype=np.float32)

    @functools.cached_property
    def largest(self) -> float:
        """The largest magnitude of any entry (127 times the largest scale; NaN if a scale is)."""
        return 127.0 * float(np.max(np.abs(self.scales), initial=0.0))

    def sum_one(self, ids: np.ndarray) -> np.ndarray:
        """The (1, dim) float32 sum of the rows ``ids`` of one sentence: the plain sum of
        :meth:`sums` of the (1, length) block, without the steps of a block of many (the bits
        the batch path gives, :func:`parasent.core.inference.average_one`)."""
        stored = ids if self.rows is None else self.rows[ids]
        rows = self.values.take(stored[None, :], axis=0)  # the method: np.take's wrapper costs a call
        widened = np.multiply(rows, self.scales[stored][None, :, None], dtype=np.float32)
        return np.add.reduce(widened, axis=1, dtype=np.float32)

    def sums(self, index: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """``self[index].sum(axis=1, dtype=np.float32)`` for a (sentences, length) ``index``, the
        same bits, about 2.5x faster where :func:`einsum_sums_exactly`: ``einsum`` multiplies
        each row by its scale and adds position by position in one pass, instead of writing the
        scaled (sentences, length, dim) block and reading it back. Written into ``out`` if given."""
        if self.rows is not None:
            index = self.rows[index]
        rows = np.take(self.values, index, axis=0)  # take: half the time of values[index] for rows
        if rows.shape[-1] < 2 or not einsum_sums_exactly():
            widened = np.multiply(rows, self.scales[index][..., None], dtype=np.float32)
            return np.add.reduce(widened, axis=1, dtype=np.float32, out=out)
        # int8 rows widened inside einsum's buffered loop (exact: every int8 is a float32)
        return np.einsum("nl,nld->nd", self.scales[index], rows, dtype=np.float32, casting="unsafe", out=out)

    def resolved(self, ids: np.ndarray) -> tuple[QuantizedTable, np.ndarray]:
        """``(table, stored)`` with ``table[stored]`` equal to ``self[ids]``: the stored row of
        each id looked up once, for a batch summed in many blocks (:func:`parasent.core.inference.average_rows`)."""
        if self.rows is None:
            return self, ids
        return QuantizedTable(self.values, self.scales), self.rows[ids]

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        matrix = self[:]
        return matrix if dtype is None else matrix.astype(dtype)


@functools.cache
def einsum_sums_exactly() -> bool:
    """Whether this numpy's ``einsum`` sums scaled int8 rows as a product then an addition,
    position by position (x86 wheels), rather than with fused multiply-adds (one rounding
    instead of two: numpy built for aarch64, or with FMA3 in its baseline), which would give
    other bits than the plain sum and than one sentence alone (``average_one``). Checked once on
    a sample shaped like the sums' blocks; a 1-column table is summed the plain way too
    (``einsum`` then reorders its loops)."""
    rng = np.random.default_rng(0)
    rows = rng.integers(-127, 128, size=(16, 9, 32), dtype=np.int8)
    scales = (rng.random((16, 9)) / 127).astype(np.float32)
    fused = np.einsum("nl,nld->nd", scales, rows, dtype=np.float32, casting="unsafe")
    plain = np.multiply(rows, scales[..., None], dtype=np.float32).sum(axis=1, dtype=np.float32)
    return bool(np.array_equal(fused.view(np.uint32), plain.view(np.uint32)))


def with_own_rows(table: Any, ids: np.ndarray, rows: np.ndarray) -> Any:
    """``table`` where token ``ids[k]`` reads ``rows[k]`` and every other token its row as before.

    Fine-tuning a compacted model moves the rows of the words its data uses; a word that
    shared its row with others (:mod:`parasent.core.compaction`) gets a row of its own, so the
    words the data never showed keep their vectors. An int8 table stays int8: the new rows are
    quantized and appended, the shared-row index re-pointed (the stored rows are not copied
    out of their memory map but once, about the size of the file); a float table is copied
    with the rows replaced, in its own precision."""
    ids = np.asarray(ids, dtype=np.int64)
    if isinstance(table, QuantizedTable):
        values, scales = quantize_rows(rows)
        index = np.arange(len(table), dtype=np.int64) if table.rows is None else table.rows.astype(np.int64)
        index[ids] = table.values.shape[0] + np.arange(len(ids), dtype=np.int64)
        return QuantizedTable(
            np.concatenate([table.values, values]), np.concatenate([table.scales, scales]), index
        )
    out = np.array(table, copy=True)
    out[ids] = np.asarray(rows, dtype=out.dtype)
    return out


def share_rows(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """``(distinct rows, row index)`` with ``distinct[index] == matrix`` when storing the
    distinct rows saves at least :data:`SHARE_MIN_SAVING` of the rows and
    :data:`SHARE_MIN_BYTES`; else None."""
    matrix = np.ascontiguousarray(matrix)
    if matrix.ndim != 2 or len(matrix) == 0:
        return None
    keys = matrix.view(np.dtype((np.void, matrix.dtype.itemsize * matrix.shape[1]))).ravel()
    _, first, index = np.unique(keys, return_index=True, return_inverse=True)
    saved = len(matrix) - len(first)
    if saved < SHARE_MIN_SAVING * len(matrix) or saved * matrix[0].nbytes < SHARE_MIN_BYTES:
        return None
    order = np.argsort(first)  # distinct rows in order of first use: [PAD], [UNK] stay first
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return matrix[first[order]], rank[index.ravel()].astype(np.int32)


def quantize_rows(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(int8 values, float32 scales)`` with ``values * scales[:, None] ~= matrix``; an all-zero
    row gets scale 0 (and stays exactly zero)."""
    matrix = np.asarray(matrix, dtype=np.float32)
    peak = np.abs(matrix).max(axis=1)
    scales = (peak / 127.0).astype(np.float32)
    safe = np.where(scales > 0, scales, 1.0)
    values = np.clip(np.rint(matrix / safe[:, None]), -127, 127).astype(np.int8)
    return values, scales


def held_dtype(table: Any) -> str:
    """How a table is held: ``int8`` (a :class:`QuantizedTable`), ``float16`` or ``float32``."""
    if isinstance(table, QuantizedTable):
        return "int8"
    return "float16" if getattr(table, "dtype", None) == np.float16 else "float32"


def pack(weights: dict[str, Any], dtype: str) -> dict[str, np.ndarray]:
    """The tensors to write for ``dtype``: floating tensors converted (int8 quantizes the token
    table by row and stores the composition parameters, a small share of the bytes whose every
    value reaches every sentence, as float16); integer tensors unchanged. An int8
    table written as int8 is its own values, scales and shared rows, as they are (no float copy)."""
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    out: dict[str, np.ndarray] = {}
    for name, tensor in weights.items():
        if isinstance(tensor, QuantizedTable):
            out.update(_packed_table(name, tensor, dtype))
            continue
        array = np.asarray(tensor)
        shared = share_rows(array) if np.issubdtype(array.dtype, np.floating) else None
        if shared is not None:
            array, out[name + ROWS_SUFFIX] = shared
        if not np.issubdtype(array.dtype, np.floating):
            out[name] = np.ascontiguousarray(array)
        elif dtype == "int8" and name == EMBEDDING_KEY:
            out[name], out[name + SCALE_SUFFIX] = quantize_rows(array)
        elif dtype == "float32":
            out[name] = np.ascontiguousarray(array, dtype=np.float32)
        else:
            out[name] = np.ascontiguousarray(array, dtype=np.float16)
    return out


def _packed_table(name: str, table: QuantizedTable, dtype: str) -> dict[str, np.ndarray]:
    """The tensors of an int8 table at ``dtype``: its distinct rows (converted to floats, row by
    row, unless ``dtype`` is int8) and their row index when rows are shared."""
    out = {} if table.rows is None else {name + ROWS_SUFFIX: table.rows.astype(np.int32)}
    if dtype == "int8":
        out[name], out[name + SCALE_SUFFIX] = table.values, table.scales
    else:
        out[name] = np.asarray(QuantizedTable(table.values, table.scales), dtype=dtype)
    return out


def unpack(
    tensors: dict[str, np.ndarray], dtype: str, *, keep: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """Weights from the tensors of a file written with ``dtype``: an int8 tensor and its scales
    become a :class:`QuantizedTable` when its name is in ``keep`` (the embedding table of a
    static model, read row by row), else a float32 array; float16 tensors stay float16 (rows
    are converted when gathered)."""
    if dtype not in DTYPES:
        raise ModelFormatError(f"unknown weights dtype {dtype!r} (known: {', '.join(DTYPES)})")
    weights: dict[str, Any] = {}
    for name, tensor in tensors.items():
        if name.endswith((SCALE_SUFFIX, ROWS_SUFFIX)):
            continue
        scales, rows = tensors.get(name + SCALE_SUFFIX), _row_index(tensors, name)
        if scales is None:
            weights[name] = tensor if rows is None else tensor[rows]
            continue
        table = QuantizedTable(tensor, scales, rows)
        weights[name] = table if name in keep else np.asarray(table)
    return weights


def _row_index(tensors: dict[str, np.ndarray], name: str) -> np.ndarray | None:
    """The checked shared-row index of table ``name`` (None: rows are not shared)."""
    rows = tensors.get(name + ROWS_SUFFIX)
    if rows is None:
        return None
    stored = len(tensors[name])
    if rows.ndim != 1 or not np.issubdtype(rows.dtype, np.integer):
        raise ModelFormatError(
            f"{name}{ROWS_SUFFIX}: expected a 1-D integer index, got {rows.dtype} {rows.shape}"
        )
    if len(rows) and (int(rows.min()) < 0 or int(rows.max()) >= stored):
        raise ModelFormatError(f"{name}{ROWS_SUFFIX}: row numbers outside the {stored} stored rows")
    return rows.astype(np.int64)


def read_weights(path: str | Path) -> dict[str, np.ndarray]:
    """Tensors of a safetensors file, memory-mapped where possible (see :mod:`parasent.support.mmap_weights`)."""
    from parasent.errors import WeightsFormatError
    from parasent.support.mmap_weights import map_safetensors

    try:
        return map_safetensors(path)
    except WeightsFormatError:
        pass  # a layout the mapper does not cover (bfloat16, ...): let safetensors read it
    except OSError as exc:
        raise ModelFormatError(f"{path}: unreadable ({exc})") from exc
    from safetensors.numpy import load_file

    try:
        return load_file(native_path(path))
    except Exception as exc:  # safetensors raises its own error types
        raise ModelFormatError(f"{path}: unreadable ({exc})") from exc
