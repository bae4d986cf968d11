"""Numpy-only sentence encoding for static (averaging) models: no torch on the serving path."""

from __future__ import annotations

import numpy as np

from parasent.text.tokenized import Tokenized


def average_rows(tokenized: Tokenized, table: np.ndarray) -> np.ndarray:
    """Row i is the mean of ``table`` rows of sentence i's ids; an empty sentence gives zeros.

    ``table`` is anything indexable by an id array that has a ``shape``: a float32 or float16
    array, a memory map of one, or a :class:`parasent.quantization.QuantizedTable`. Numpy
    alone, so the core install needs no scipy: sentences are grouped by length, and for each
    length L the sum is L gathers of one row per sentence added into an accumulator, so no
    (tokens x dim) matrix is ever materialised and no padding is summed (within 1.5x of a
    sparse matrix product on 20,000 sentences; a few sentences touch only their own rows).
    """
    lengths = tokenized.lengths
    out = np.zeros((len(tokenized), table.shape[1]), dtype=np.float32)
    order = np.argsort(lengths, kind="stable")
    sorted_lengths = lengths[order]
    bounds = np.flatnonzero(np.r_[True, sorted_lengths[1:] != sorted_lengths[:-1], True])
    for begin, end in zip(bounds[:-1], bounds[1:], strict=True):
        length = int(sorted_lengths[begin])
        if length == 0:
            continue
        members = order[begin:end]
        starts = tokenized.offsets[members]
        total = np.array(table[tokenized.ids[starts]], dtype=np.float32)
        for position in range(1, length):
            total += table[tokenized.ids[starts + position]]
        total /= length
        out[members] = total
    return out


def normalize_rows(matrix: np.ndarray) -> np.ndarray:
    """Unit-length rows; zero rows stay zero (never NaN)."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


def cosine_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine of a[i] and b[i] in float64; 0 where either vector is zero (never NaN).

    Float64 keeps identical sentences at exactly 1.0, so rank ties (Spearman) do not depend
    on float32 rounding.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return np.einsum("ij,ij->i", normalize_rows(a), normalize_rows(b))
