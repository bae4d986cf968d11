"""Approximate nearest neighbours for large indexes, through usearch (``pip install
parasent[ann]``): an HNSW graph over the unit vectors, queried by cosine.

Exact search (:mod:`parasent.core.semantic_search`) scans the whole corpus per query batch; for
millions of sentences and many queries a graph answers in roughly logarithmic time at a small
loss of recall. The graph file is usearch's own binary format (no pickle).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from parasent.core.inference import normalize_rows
from parasent.core.output import as_matrix
from parasent.support.path_names import native_path

if TYPE_CHECKING:
    from parasent.corpus.neighbours import NeighbourLists

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
        keys, scores, counts = matched(self.index.search(queries, top_k), len(queries), top_k)
        return [
            [{"corpus_id": int(k), "score": float(s)} for k, s in zip(ks[:n], ss[:n], strict=True)]
            for ks, ss, n in zip(keys, scores, counts, strict=True)
        ]


# the graph of paraphrase mining and deduplication (--ann): int8 rows, each scaled by its own
# largest component (cosine ignores a vector's scale), hold a million 256-d vectors in 256 MB
# and build 2.3x faster than float16, at recall@10 0.98 and cosines within 0.003 on 50,000
# captions (usearch's own int8 cast, x127 for every vector, gave 0.94 and 0.016: the components
# of a unit 256-d vector are mostly below 0.05); a narrower construction search than usearch's
# default (128) builds it twice as fast, and each query searches MINE_EXPANSION candidates at least
MINE_DTYPE = "i8"
MINE_CONNECTIVITY = 16
MINE_EXPANSION_ADD = 64
MINE_EXPANSION = 64


def int8_rows(unit: np.ndarray) -> np.ndarray:
    """Each row scaled so its largest component is 127, rounded to int8 (a zero row stays zero):
    the same cosines, at the finest int8 grid each vector allows."""
    unit = as_matrix(unit)
    largest = np.abs(unit).max(axis=1, keepdims=True) if unit.size else np.ones((len(unit), 1), np.float32)
    scale = np.divide(127.0, largest, out=np.zeros_like(largest), where=largest > 0)
    return np.ascontiguousarray(np.rint(unit * scale), dtype=np.int8)


def mining_graph(dim: int, k: int = 1) -> Any:
    """An empty graph for :func:`int8_rows` vectors, searched for ``k`` neighbours at a time."""
    return _index_class()(
        ndim=dim,
        metric="cos",
        dtype=MINE_DTYPE,
        connectivity=MINE_CONNECTIVITY,
        expansion_add=MINE_EXPANSION_ADD,
        expansion_search=max(MINE_EXPANSION, 2 * k),
    )


def ann_neighbours(
    batches: Callable[[], Iterable[np.ndarray]],
    count: int,
    dim: int,
    k: int,
    threshold: float,
    progress: bool = False,
) -> NeighbourLists:
    """Approximate top-``k`` neighbour lists (by cosine, never itself) of ``count`` unit vectors
    at or above ``threshold``: ``batches()`` gives the vectors in order, once to build an HNSW
    graph of them and once more to query it (so a caller may encode them twice rather than
    hold them). Scores are the graph's (on its int8 rows: within about 0.003 of the cosine)."""
    from tqdm.auto import tqdm

    from parasent.corpus.neighbours import NeighbourLists

    k = min(k, max(count - 1, 1))  # a vector has count - 1 others: a larger k would only allocate
    index = mining_graph(dim, k + 1)
    disable = None if progress else True
    with tqdm(total=count, desc="ann graph", unit="vector", disable=disable) as bar:
        start = 0
        for chunk in batches():
            index.add(np.arange(start, start + len(chunk), dtype=np.uint64), int8_rows(chunk))
            start += len(chunk)
            bar.update(len(chunk))
    lists = NeighbourLists(count, k, threshold)
    with tqdm(total=count, desc="ann search", unit="vector", disable=disable) as bar:
        start = 0
        for chunk in batches():
            _take_matches(lists, start, index.search(int8_rows(chunk), k + 1), len(chunk))
            start += len(chunk)
            bar.update(len(chunk))
    return lists


def matched(matches: Any, rows: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(keys, cosines, counts) of a search of ``rows`` queries for ``k`` each, as (rows, k)
    arrays (usearch answers one query with ``Matches``, several with ``BatchMatches``); the
    slots past a query's count hold key -1 and cosine -inf."""
    keys = np.full((rows, k), -1, dtype=np.int64)
    scores = np.full((rows, k), -np.inf, dtype=np.float32)
    if rows == 0:
        return keys, scores, np.zeros(0, dtype=np.int64)
    if hasattr(matches, "counts"):
        counts = np.asarray(matches.counts, dtype=np.int64).reshape(rows)
        found = np.asarray(matches.keys).reshape(rows, -1)[:, :k].astype(np.int64)
        distances = np.asarray(matches.distances, dtype=np.float32).reshape(rows, -1)[:, :k]
    else:
        counts = np.array([len(matches.keys)], dtype=np.int64)
        found = np.asarray(matches.keys, dtype=np.int64).reshape(1, -1)[:, :k]
        distances = np.asarray(matches.distances, dtype=np.float32).reshape(1, -1)[:, :k]
    valid = np.arange(found.shape[1]) < counts[:, None]
    keys[:, : found.shape[1]][valid] = found[valid]
    # a zero vector (a text with no known token) has no direction: cosine 0, never NaN
    scores[:, : found.shape[1]][valid] = np.nan_to_num(1.0 - distances[valid], nan=0.0)
    return keys, scores, np.minimum(counts, k)


def _take_matches(lists: NeighbourLists, start: int, matches: Any, rows: int) -> None:
    """Write one batch's matches (``k + 1`` each: the row itself is usually among them) into
    rows ``start..`` of ``lists``, the row itself left out, the threshold applied."""
    keys, scores, _ = matched(matches, rows, lists.k + 1)
    own = np.arange(start, start + rows)
    usable = (keys >= 0) & (keys != own[:, None]) & (scores >= lists.threshold)
    rank = np.cumsum(usable, axis=1) - 1
    usable &= rank < lists.k
    r, c = np.nonzero(usable)
    lists.scores[own[r], rank[r, c]] = scores[r, c]
    lists.ids[own[r], rank[r, c]] = keys[r, c]
