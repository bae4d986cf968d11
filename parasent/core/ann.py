"""Approximate nearest neighbours for large indexes, through usearch (``pip install
parasent[ann]``): an HNSW graph over the unit vectors, queried by cosine.

Exact search (:mod:`parasent.core.semantic_search`) scans the whole corpus per query batch; for
millions of sentences and many queries a graph answers in roughly logarithmic time at a small
loss of recall. The graph file is usearch's own binary format (no pickle).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from parasent.core.inference import normalize_rows
from parasent.core.output import as_matrix
from parasent.support.path_names import native_path

ANN_FILE = "ann.usearch"


def _index_class() -> Any:
    try:
        from usearch.index import Index
    except ImportError:
        from parasent.errors import MissingDependencyError

        raise MissingDependencyError(
            "approximate search needs usearch, which the core install lacks: install parasent[ann]"
        ) from None
    return Index


def require_usearch() -> None:
    """Fail now, before any work, when usearch is missing (an index build checks before encoding)."""
    _index_class()


def build_ann(
    chunks: Iterable[np.ndarray],
    dim: int,
    path: str | Path,
    *,
    total: int | None = None,
    progress: bool = False,
) -> Path:
    """Add the vectors of ``chunks`` (ids 0, 1, ... in order) to a cosine graph saved at ``path``;
    ``progress``: a bar over the ``total`` vectors (on a terminal only: building takes minutes
    for a million)."""
    from tqdm.auto import tqdm

    index = _index_class()(ndim=dim, metric="cos", dtype="f32")
    start = 0
    with tqdm(total=total, desc="ann graph", unit="vector", disable=None if progress else True) as bar:
        for chunk in chunks:
            chunk = np.ascontiguousarray(as_matrix(chunk))
            if len(chunk):
                index.add(np.arange(start, start + len(chunk), dtype=np.uint64), chunk)
            start += len(chunk)
            bar.update(len(chunk))
    index.save(native_path(path))
    return Path(path)


class AnnIndex:
    """A saved graph, memory-mapped (``view``) so that opening it reads almost nothing."""

    def __init__(self, path: str | Path) -> None:
        self.index = _index_class().restore(native_path(path), view=True)

    def search(self, queries: Any, top_k: int) -> list[list[dict[str, Any]]]:
        queries = np.ascontiguousarray(normalize_rows(as_matrix(queries)))
        matches = self.index.search(queries, top_k)
        keys = np.asarray(matches.keys).reshape(len(queries), -1)
        distances = np.asarray(matches.distances).reshape(len(queries), -1)
        counts = np.asarray(getattr(matches, "counts", [keys.shape[1]])).reshape(len(queries))
        # a zero vector (a text with no known token) has no direction: cosine 0, never NaN
        scores = np.nan_to_num(1.0 - distances, nan=0.0)
        return [
            [{"corpus_id": int(k), "score": float(s)} for k, s in zip(ks[:n], ss[:n], strict=True)]
            for ks, ss, n in zip(keys, scores, counts, strict=True)
        ]
