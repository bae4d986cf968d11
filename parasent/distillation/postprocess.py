"""Linear post-processing of averaged sentence vectors, folded into the word vectors.

Removing the projection on the top principal components of sentence vectors (Arora et al.
2017, Algorithm 1, line 5: ``v_s <- v_s - u u^T v_s``) is linear, and the mean of
``P w_i`` is ``P`` times the mean of ``w_i``; so applying ``P = I - U^T U`` to every word
vector gives exactly the post-processed sentence vectors. The model stays a plain average:
numpy inference, save/load and sentence-transformers export need nothing new.
"""

from __future__ import annotations

import numpy as np


def principal_components(sentence_vectors: np.ndarray, count: int) -> np.ndarray:
    """The top ``count`` right singular vectors of the (uncentred) sentence matrix, ``(count, dim)``.

    Uncentred, as in Arora et al.: the common direction includes the mean of the vectors.
    """
    if count < 1:
        raise ValueError(f"count must be at least 1, got {count}")
    matrix = np.asarray(sentence_vectors, dtype=np.float64)
    matrix = matrix[np.linalg.norm(matrix, axis=1) > 0]
    if len(matrix) < count:
        raise ValueError(f"need at least {count} non-zero sentence vectors, got {len(matrix)}")
    _, _, vt = np.linalg.svd(matrix, full_matrices=False)
    return vt[:count].astype(np.float32)


def remove_components(table: np.ndarray, components: np.ndarray) -> np.ndarray:
    """``table @ (I - U^T U)``: every row without its projection on the components."""
    components = np.asarray(components, dtype=np.float32)
    return (table - (table @ components.T) @ components).astype(np.float32)


def all_but_the_top(vectors: np.ndarray, count: int) -> np.ndarray:
    """The vectors centred and without their top ``count`` principal components (Mu &
    Viswanath 2018, *All-but-the-Top: Simple and Effective Postprocessing for Word
    Representations*, Algorithm 1; their rule for ``count`` is about dim / 100).

    Used on the subword pieces the teacher text never showed: their rows are the teacher's
    embeddings of each piece alone, and the pieces of one script (Cyrillic, Greek, Hangul
    letters) share a large common direction, so two unrelated sentences spelt letter by
    letter would average to nearly the same vector."""
    matrix = np.asarray(vectors, dtype=np.float64)
    if count < 0 or len(matrix) <= count:
        raise ValueError(f"need more than {count} vectors to remove {count} components, got {len(matrix)}")
    centred = matrix - matrix.mean(axis=0)
    if count:
        _, _, vt = np.linalg.svd(centred, full_matrices=False)
        centred = centred - (centred @ vt[:count].T) @ vt[:count]
    return centred.astype(np.float32)
