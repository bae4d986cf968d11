"""sentence-transformers' ``util`` helpers with its signatures and return shapes, so that
retrieval code written against ``sentence_transformers.util`` runs on parasent vectors with a
changed import and no torch: ``semantic_search`` (exact cosine top-k, in bounded memory:
:mod:`parasent.core.semantic_search`), ``cos_sim`` and ``normalize_embeddings``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from parasent.core.inference import cosine_matrix, normalize_rows
from parasent.core.output import as_matrix
from parasent.core.semantic_search import CORPUS_CHUNK, search


def cos_sim(a: Any, b: Any) -> np.ndarray:
    """The (len(a), len(b)) cosine matrix of two sets of vectors (0 for a zero vector, never NaN)."""
    return cosine_matrix(as_matrix(a), as_matrix(b))


def normalize_embeddings(embeddings: Any) -> np.ndarray:
    """Unit-length rows (a zero row stays zero)."""
    return normalize_rows(as_matrix(embeddings))


def semantic_search(
    query_embeddings: Any,
    corpus_embeddings: Any,
    query_chunk_size: int = 100,
    corpus_chunk_size: int = CORPUS_CHUNK,
    top_k: int = 10,
    score_function: Callable[..., Any] | None = None,
) -> list[list[dict[str, Any]]]:
    """Per query, the ``top_k`` corpus entries by cosine as ``[{"corpus_id": int, "score": float},
    ...]``, best first: sentence-transformers' ``util.semantic_search`` shape (a single query
    vector gives a list of one list). Queries and corpus may be numpy arrays, torch tensors or
    lists of vectors. ``query_chunk_size`` is accepted for compatibility (the query block is
    sized by memory here); ``score_function`` may only be a cosine (this ``cos_sim`` or
    sentence-transformers')."""
    if score_function is not None and getattr(score_function, "__name__", "") != "cos_sim":
        raise ValueError(
            f"parasent.util.semantic_search scores by cosine only, not {getattr(score_function, '__name__', score_function)!r}"
        )
    if query_chunk_size <= 0 or corpus_chunk_size <= 0:
        raise ValueError("query_chunk_size and corpus_chunk_size must be positive")
    return search(as_matrix(query_embeddings), corpus_embeddings, top_k, corpus_chunk_size=corpus_chunk_size)
