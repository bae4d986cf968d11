"""Numpy-only sentence encoding for static (averaging) models: no torch on the serving path."""

from __future__ import annotations

import numpy as np

from parasent.text.tokenized import Tokenized

# Below this many tokens, gather the rows and sum them in numpy: a few sentences (``parasent
# similarity``) then never import scipy, whose import alone costs ~0.1 s of a cold start.
SMALL_BATCH_TOKENS = 2048


def average_rows(tokenized: Tokenized, table: np.ndarray) -> np.ndarray:
    """Row i is the mean of ``table`` rows of sentence i's ids; an empty sentence gives zeros.

    Implemented as one sparse (sentences x vocabulary) by dense product, so no
    (tokens x dim) matrix is ever materialised; small batches gather their few rows instead.
    """
    lengths = tokenized.lengths
    n = len(tokenized)
    if n == 0:
        return np.zeros((0, table.shape[1]), dtype=np.float32)
    if len(tokenized.ids) <= SMALL_BATCH_TOKENS:
        out = np.zeros((n, table.shape[1]), dtype=np.float32)
        nonempty = lengths > 0
        if nonempty.any():
            sums = np.add.reduceat(
                np.asarray(table[tokenized.ids], dtype=np.float32), tokenized.offsets[:-1][nonempty]
            )
            out[nonempty] = sums / lengths[nonempty, None]
        return out
    from scipy.sparse import csr_matrix

    weights = np.repeat(1.0 / np.maximum(lengths, 1), lengths).astype(table.dtype, copy=False)
    mixing = csr_matrix((weights, tokenized.ids, tokenized.offsets), shape=(n, table.shape[0]))
    return np.asarray(mixing @ table, dtype=np.float32)


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


def cosine_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(len(a), len(b)) cosines, float32; 0 where either vector is zero (never NaN)."""
    a = normalize_rows(np.asarray(a, dtype=np.float32))
    b = normalize_rows(np.asarray(b, dtype=np.float32))
    return a @ b.T
