"""Exact top-k cosine search over a corpus of any size, in bounded memory.

The corpus is read chunk after chunk (an array, a memory-mapped file, or vectors streamed from
an encoder); each chunk is scored against a block of queries and merged into a running top-k
per query, so at most ``query_block x corpus_chunk`` scores exist at a time: a million-sentence
corpus never needs a queries x corpus matrix. Results have sentence-transformers'
``semantic_search`` shape: per query, a list of ``{"corpus_id", "score"}`` best first.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from parasent.core.inference import normalize_rows
from parasent.core.output import as_matrix

# scores held at once while merging: query block x corpus chunk (16M float32 = 64 MB)
MAX_SCORES = 1 << 24
# Corpus rows scored against a query block at once. sentence-transformers' default is 500,000;
# the results are the same whatever the chunk (the top-k merge is exact), only memory differs:
# 65,536 rows keep a block of scores within MAX_SCORES for 256 queries, where 500,000 would hold
# 512 MB of scores for the same block.
CORPUS_CHUNK = 65536


class TopK:
    """The best ``k`` (score, corpus id) per query over chunks seen so far."""

    def __init__(self, queries: np.ndarray, k: int, *, unit_corpus: bool = False) -> None:
        """``unit_corpus``: the corpus rows are unit-length already (normalised once, when an
        index was built or loaded), so no chunk is normalised again on every query."""
        if k <= 0:
            raise ValueError(f"top_k must be positive, got {k}")
        self.unit_corpus = unit_corpus
        self.queries = normalize_rows(as_matrix(queries, finite=True))
        self.k = k
        n = len(self.queries)
        self.scores = np.full((n, 0), -np.inf, dtype=np.float32)
        self.ids = np.zeros((n, 0), dtype=np.int64)
        self.seen = 0

    def add(self, chunk: np.ndarray) -> None:
        """Score the next ``chunk`` of corpus vectors (rows ``seen .. seen+len(chunk)``)."""
        chunk = as_matrix(chunk) if self.unit_corpus else normalize_rows(as_matrix(chunk, finite=True))
        if len(chunk) == 0:
            return
        if self.queries.shape[1] != chunk.shape[1]:
            raise ValueError(f"query vectors have {self.queries.shape[1]} dims, corpus {chunk.shape[1]}")
        block = max(1, MAX_SCORES // len(chunk))
        merged_scores, merged_ids = [], []
        for start in range(0, len(self.queries), block):
            scores = self.queries[start : start + block] @ chunk.T
            ids = np.broadcast_to(np.arange(self.seen, self.seen + len(chunk)), scores.shape)
            scores = np.concatenate([self.scores[start : start + block], scores], axis=1)
            ids = np.concatenate([self.ids[start : start + block], ids], axis=1)
            if scores.shape[1] > self.k:
                keep = np.argpartition(-scores, self.k - 1, axis=1)[:, : self.k]
                scores = np.take_along_axis(scores, keep, axis=1)
                ids = np.take_along_axis(ids, keep, axis=1)
            merged_scores.append(scores)
            merged_ids.append(ids)
        self.scores = np.concatenate(merged_scores) if merged_scores else self.scores
        self.ids = np.concatenate(merged_ids) if merged_ids else self.ids
        self.seen += len(chunk)

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        """(scores, ids), each (queries, min(k, corpus)), best first (ties: lower id first)."""
        order = np.lexsort((self.ids, -self.scores), axis=1) if self.scores.size else self.ids
        return np.take_along_axis(self.scores, order, axis=1), np.take_along_axis(self.ids, order, axis=1)

    def hits(self) -> list[list[dict[str, Any]]]:
        scores, ids = self.result()
        return [
            [{"corpus_id": int(i), "score": float(s)} for s, i in zip(row_s, row_i, strict=True)]
            for row_s, row_i in zip(scores, ids, strict=True)
        ]


def chunks_of(vectors: Any, size: int = CORPUS_CHUNK) -> Iterator[np.ndarray]:
    """Slices of an array-like (a memory map stays a memory map until a slice is read)."""
    for start in range(0, len(vectors), size):
        yield vectors[start : start + size]


def search(
    query_vectors: Any,
    corpus_vectors: Any,
    top_k: int = 10,
    *,
    corpus_chunk_size: int = CORPUS_CHUNK,
    unit_corpus: bool = False,
) -> list[list[dict[str, Any]]]:
    """Cosine top-k of each query among ``corpus_vectors`` (an array, tensor, memory map, or an
    iterable of (n, dim) chunks): per query, ``[{"corpus_id": i, "score": s}, ...]`` best first.
    ``unit_corpus``: the corpus rows are unit-length already (an index's), and are not normalised again."""
    top = TopK(query_vectors, top_k, unit_corpus=unit_corpus)
    if hasattr(corpus_vectors, "shape"):  # an array, a memory map or a tensor
        chunks: Iterable[Any] = chunks_of(corpus_vectors, corpus_chunk_size)
    elif isinstance(corpus_vectors, (list, tuple)):
        chunks = chunks_of(as_matrix(corpus_vectors), corpus_chunk_size)
    else:  # an iterable of chunks, read once
        chunks = corpus_vectors
    for chunk in chunks:
        top.add(chunk)
    return top.hits()
