"""Exact top-k neighbour lists of every vector of a set among the others, by blocks of a
matrix product, in bounded memory (never the n x n matrix).

Paraphrase mining asks, for every sentence, for its ``k`` most similar other sentences: the
whole cosine matrix, of which only the ``n x k`` best entries are kept. The matrix is symmetric,
so it is computed once per unordered block: a block of rows I against the columns J after
them (``V_I V_J^T``) serves the rows of I (their neighbours in J) and, read by columns, the
rows of J (their neighbours in I): half the products of a full scan. A block of ``MAX_BLOCK``
scores (32 MB) exists at a time.

Most entries of a block cannot enter any list: each row's list has a floor (the threshold, or
its k-th score once it holds k). The maxima of each row's segments of 256 entries are taken
in one pass over the block (a fraction of a nanosecond an entry), and only the segments that
reach the row's floor are read again, their entries at or above it merged. The rows are first
put in an order where similar rows are near (:func:`locality_order`: a few rounds of k-means,
a cluster a block) and the diagonal blocks run first, so each row meets most of its neighbours
at once and its floor is near its final k-th score from the start: on 50,000 captions, 4-6% of
the segments of the later blocks are read again.

Lists are exact: ties are broken by the lower id (the order of a brute-force sort by score,
then id), so blocks, shards (:meth:`NeighbourLists.merge`) and a full scan give one answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from parasent.core.inference import normalize_rows
from parasent.core.output import as_matrix

# scores of one block (rows x columns), 8M float32 = 32 MB, and rows per block: on 50,000 vectors
# 2,048 x 4,096 scanned 1.2x faster than 1,024 x 4,096 (fewer, larger matrix products)
MAX_BLOCK = 1 << 23
ROW_BLOCK = 2048
# entries of a list row whose maximum is taken together: only segments that reach the floor are read again
SEGMENT = 256


@dataclass(frozen=True)
class Block:
    """Rows ``rows[0]..rows[1]`` against columns ``cols[0]..cols[1]`` (a diagonal block when equal)."""

    rows: tuple[int, int]
    cols: tuple[int, int]

    @property
    def size(self) -> int:
        return (self.rows[1] - self.rows[0]) * (self.cols[1] - self.cols[0])


def block_plan(n: int, row_block: int = ROW_BLOCK, max_block: int = MAX_BLOCK) -> list[Block]:
    """The blocks that cover each unordered pair of ``n`` vectors once: every diagonal block
    first (each row meets its neighbours in its own block, raising its floor), then each row
    block against the columns after it, in chunks of ``max_block // row_block`` columns."""
    row_block = max(1, min(row_block, n))
    cols = max(1, max_block // row_block)
    starts = range(0, n, row_block)
    plan = [Block((a, min(a + row_block, n)), (a, min(a + row_block, n))) for a in starts]
    for a in starts:
        b = min(a + row_block, n)
        plan += [Block((a, b), (c, min(c + cols, n))) for c in range(b, n, cols)]
    return plan


class NeighbourLists:
    """Per row, its best ``k`` (score, id) so far, best first: ``scores`` (n, k) float32 with
    -inf and ``ids`` (n, k) int64 with -1 where a row holds fewer. Only entries at or above
    ``threshold`` are kept."""

    def __init__(self, n: int, k: int, threshold: float = -np.inf) -> None:
        if k <= 0:
            raise ValueError(f"top_k must be positive, got {k}")
        k = min(k, max(n - 1, 1))  # a row has n - 1 others: a larger k would only allocate
        self.k, self.threshold = k, float(threshold)
        self.scores = np.full((n, k), -np.inf, dtype=np.float32)
        self.ids = np.full((n, k), -1, dtype=np.int64)

    def __len__(self) -> int:
        return len(self.scores)

    def floor(self, start: int, stop: int) -> np.ndarray:
        """The least score a new neighbour of rows ``start..stop`` needs: the threshold, or the
        row's k-th score when it holds k (an equal score may still win on a lower id)."""
        return np.maximum(self.scores[start:stop, -1], np.float32(self.threshold))

    def add(self, rows: np.ndarray, ids: np.ndarray, scores: np.ndarray) -> None:
        """Merge candidates (row, id, score); each (row, id) is offered once."""
        keep = (scores >= self.threshold) & (scores > -np.inf)  # -inf: a row's own entry
        rows, ids, scores = rows[keep], ids[keep], scores[keep]
        if not len(rows):
            return
        order = np.lexsort((ids, -scores, rows))
        rows, ids, scores = rows[order], ids[order], scores[order]
        starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
        counts = np.diff(np.r_[starts, len(rows)])
        rank = np.arange(len(rows)) - np.repeat(starts, counts)
        best = rank < self.k  # at most k new ones a row can use
        group = np.repeat(np.arange(len(starts)), counts)[best]
        fresh_s = np.full((len(starts), self.k), -np.inf, dtype=np.float32)
        fresh_i = np.full((len(starts), self.k), -1, dtype=np.int64)
        fresh_s[group, rank[best]] = scores[best]
        fresh_i[group, rank[best]] = ids[best]
        self._merge_rows(rows[starts], fresh_s, fresh_i)

    def _merge_rows(self, rows: np.ndarray, scores: np.ndarray, ids: np.ndarray) -> None:
        both_s = np.concatenate([self.scores[rows], scores], axis=1)
        both_i = np.concatenate([self.ids[rows], ids], axis=1)
        # score descending, then id ascending; empty slots (-inf, -1) last
        order = np.lexsort((np.where(both_i < 0, np.iinfo(np.int64).max, both_i), -both_s), axis=1)[
            :, : self.k
        ]
        self.scores[rows] = np.take_along_axis(both_s, order, axis=1)
        self.ids[rows] = np.take_along_axis(both_i, order, axis=1)

    def merge(self, other: NeighbourLists) -> None:
        """Take in the lists of another share of the blocks (a shard): the union's best ``k``."""
        if other.scores.shape != self.scores.shape:
            raise ValueError(f"lists of shape {other.scores.shape} cannot merge into {self.scores.shape}")
        touched = np.flatnonzero(other.ids[:, 0] >= 0)
        self._merge_rows(touched, other.scores[touched], other.ids[touched])


def scan_block(
    vectors: np.ndarray,
    order: np.ndarray,
    block: Block,
    lists: NeighbourLists,
    out: np.ndarray,
    *,
    ordered: bool = False,
) -> None:
    """Score one block of unit ``vectors`` taken in ``order`` (into ``out``, reused) and offer
    its entries at or above each row's floor: rows of ``block.rows`` by row, rows of
    ``block.cols`` by column. List rows are positions in ``order``; ids are the vectors' own.
    ``ordered``: ``vectors`` are in ``order`` already (row p is vector ``order[p]``)."""
    (a, b), (c, d) = block.rows, block.cols
    left, right = (vectors[a:b], vectors[c:d]) if ordered else (vectors[order[a:b]], vectors[order[c:d]])
    scores = np.matmul(left, right.T, out=out[: b - a, : d - c])
    if a == c:
        np.fill_diagonal(scores, -np.inf)  # a vector is not its own neighbour
    found = [_offers(scores, lists, a, order[c:d], by_column=False)]
    if a != c:
        found.append(_offers(scores, lists, c, order[a:b], by_column=True))
    rows, ids, values = (np.concatenate(column) for column in zip(*found, strict=True))
    lists.add(rows, ids, values)


def _offers(
    scores: np.ndarray, lists: NeighbourLists, first_row: int, ids: np.ndarray, *, by_column: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row, id, score) of the entries of a block at or above each list row's floor; the list
    rows are the block's rows, or its columns (``by_column``, read in place: no transposed
    copy), from ``first_row``; ``ids``: the vectors of the other side.

    The maximum of every segment of :data:`SEGMENT` entries of a list row is taken in one pass;
    only the segments whose maximum reaches the row's floor are read again. A row whose list
    is not full yet (its floor is the threshold) and has many entries here is narrowed to its
    k largest (ties kept: the lower id may win) by a partition, which costs less than merging
    them all."""
    length = scores.shape[1] if by_column else scores.shape[0]
    floor = lists.floor(first_row, first_row + length)
    maxima = _segment_maxima(scores, by_column)
    reached = maxima >= floor[:, None]
    # a row whose list is not full and that reaches its floor in many segments (no threshold
    # yet: every entry does) is read whole and narrowed; every other row by its segments
    is_open = lists.scores[first_row : first_row + length, -1] == -np.inf
    is_open &= 4 * np.count_nonzero(reached, axis=1) > reached.shape[1]
    rows, others, values = _segment_entries(scores, floor, reached & ~is_open[:, None], by_column)
    open_rows = np.flatnonzero(is_open)
    if len(open_rows):
        more = _whole_rows(scores, floor, open_rows, lists.k, by_column)
        rows, others, values = (
            np.concatenate(pair) for pair in zip((rows, others, values), more, strict=True)
        )
    return first_row + rows, ids[others], values


def _segment_maxima(scores: np.ndarray, by_column: bool) -> np.ndarray:
    """(list rows, segments): the maximum of each run of SEGMENT entries of each list row.
    Along a block's rows ``reduceat`` (twice as fast as a reshaped ``max`` there); down its
    columns, a reshaped ``max`` over slabs of rows (``reduceat`` down columns is 20x slower)."""
    if not by_column:
        return np.maximum.reduceat(scores, np.arange(0, scores.shape[1], SEGMENT), axis=1)
    whole = len(scores) // SEGMENT * SEGMENT
    parts = [scores[:whole].reshape(whole // SEGMENT, SEGMENT, -1).max(axis=1)] if whole else []
    if whole < len(scores):
        parts.append(scores[whole:].max(axis=0, keepdims=True))
    return (np.concatenate(parts) if len(parts) > 1 else parts[0]).T


def _segment_entries(
    scores: np.ndarray, floor: np.ndarray, reached: np.ndarray, by_column: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(list row, other index, score) of the entries at or above the floor in the segments
    ``reached`` marks, each segment read as one run: a row's segment is contiguous; the
    segments of columns are read a slab of rows at a time (a row of the slab, then the next),
    not down each column."""
    found = []
    width = scores.shape[0] if by_column else scores.shape[1]
    for segment in np.flatnonzero(reached.any(axis=0)).tolist():
        rows = np.flatnonzero(reached[:, segment])
        low, high = segment * SEGMENT, min((segment + 1) * SEGMENT, width)
        if by_column:
            part = scores[low:high, rows]  # (segment, rows): along each block row
            r, c = np.nonzero(part >= floor[rows][None, :])
            found.append((rows[c], low + r, part[r, c]))
        else:
            part = scores[rows, low:high]
            r, c = np.nonzero(part >= floor[rows][:, None])
            found.append((rows[r], low + c, part[r, c]))
    if not found:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0, dtype=np.float32)
    return tuple(np.concatenate(column) for column in zip(*found, strict=True))


def _whole_rows(
    scores: np.ndarray, floor: np.ndarray, rows: np.ndarray, k: int, by_column: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(list row, other index, score) of the entries at or above the floor of the list rows
    ``rows`` (lists not full), each narrowed to its k largest when it has many."""
    every = len(rows) == (scores.shape[1] if by_column else scores.shape[0])
    lines = scores.T if by_column else scores
    part = lines if every and not by_column else lines[rows]  # every row of a block: no copy
    mask = part >= floor[rows, None]
    width = part.shape[1]
    if width > 2 * k:
        heavy = np.flatnonzero(np.count_nonzero(mask, axis=1) > max(2 * k, width // 16))
        if len(heavy):
            lines_of = part if len(heavy) == len(part) else part[heavy]
            kth = _kth_bound(lines_of, k)
            mask[heavy] = lines_of >= np.maximum(floor[rows[heavy]], kth)[:, None]
    r, c = np.nonzero(mask)
    return rows[r], c, part[r, c]


def _kth_bound(part: np.ndarray, k: int) -> np.ndarray:
    """Per row of ``part``, a score at or below its k-th largest: the k-th largest of the
    maxima of its runs of 16 entries (k of the row's entries reach it), a partition of a
    sixteenth of the entries; the k-th largest itself when the row has too few runs."""
    runs = part.shape[1] // 16
    if runs < 2 * k:
        return np.partition(part, part.shape[1] - k, axis=1)[:, part.shape[1] - k]
    maxima = part[:, : runs * 16].reshape(len(part), runs, 16).max(axis=2)
    return np.partition(maxima, runs - k, axis=1)[:, runs - k]


def unit_vectors(vectors: object) -> np.ndarray:
    """(n, dim) float32 unit rows, C-contiguous (a zero row stays zero: it scores 0)."""
    return np.ascontiguousarray(normalize_rows(as_matrix(vectors)), dtype=np.float32)


def locality_order(matrix: np.ndarray, row_block: int = ROW_BLOCK, iterations: int = 4) -> np.ndarray:
    """An order of the rows that puts similar rows in the same block: the clusters of a few
    rounds of spherical k-means, one centroid per block, seeded. A row then meets most of its
    neighbours in its own (diagonal) block, first, so its floor is near its final k-th score
    and most later blocks are skipped by their maxima; the result does not depend on it."""
    n = len(matrix)
    clusters = n // row_block
    if clusters < 2:
        return np.arange(n)
    rng = np.random.default_rng(0)
    centroids = matrix[rng.choice(n, clusters, replace=False)]
    assign = np.zeros(n, dtype=np.int64)
    for _ in range(iterations):
        for start in range(0, n, ROW_BLOCK * 16):
            assign[start : start + ROW_BLOCK * 16] = (
                matrix[start : start + ROW_BLOCK * 16] @ centroids.T
            ).argmax(1)
        sums = _cluster_sums(matrix, assign, clusters)
        empty = ~sums.any(axis=1)
        centroids = np.where(empty[:, None], centroids, normalize_rows(sums))
    return np.argsort(assign, kind="stable")


def _cluster_sums(matrix: np.ndarray, assign: np.ndarray, clusters: int) -> np.ndarray:
    """The sum of the rows of each cluster, a chunk of rows at a time (sorted by cluster, then
    summed by runs: ``np.add.at`` takes ten times as long)."""
    sums = np.zeros((clusters, matrix.shape[1]), dtype=np.float64)
    step = ROW_BLOCK * 64
    for start in range(0, len(matrix), step):
        part = assign[start : start + step]
        order = np.argsort(part, kind="stable")
        ordered = part[order]
        starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
        sums[ordered[starts]] += np.add.reduceat(matrix[start : start + step][order], starts, axis=0)
    return sums.astype(np.float32)


def exact_neighbours(
    vectors: object,
    k: int,
    *,
    threshold: float = -np.inf,
    blocks: Iterable[Block] | None = None,
    order: np.ndarray | None = None,
    progress: Callable[[int], object] | None = None,
    unit: bool = False,
    reorder: bool = False,
) -> NeighbourLists:
    """The exact top-``k`` neighbours (by cosine, never itself) of every row of ``vectors``,
    at or above ``threshold``, rows in input order. ``blocks``: a share of
    :func:`block_plan` over the rows in ``order`` (a shard, whose lists are merged with the
    others'; every shard takes the same ``order``), else all of them; ``order`` defaults to
    :func:`locality_order`; ``progress(n)`` is called with each block's size. ``unit``: the
    rows are unit-length already. ``reorder``: the rows of ``vectors`` (a float32 array the
    caller gives up) are put in ``order`` in place, so that no block gathers its rows."""
    matrix = np.ascontiguousarray(as_matrix(vectors), dtype=np.float32) if unit else unit_vectors(vectors)
    order = locality_order(matrix) if order is None else np.asarray(order, dtype=np.int64)
    if reorder:
        matrix[:] = matrix[order]
    lists = NeighbourLists(len(matrix), k, threshold)
    plan = block_plan(len(matrix)) if blocks is None else list(blocks)
    if plan:
        out = np.empty(max(block.size for block in plan), dtype=np.float32)
        for block in plan:
            rows, cols = block.rows[1] - block.rows[0], block.cols[1] - block.cols[0]
            scan_block(matrix, order, block, lists, out[: rows * cols].reshape(rows, cols), ordered=reorder)
            if progress is not None:
                progress(block.size)
    lists.scores[order], lists.ids[order] = lists.scores.copy(), lists.ids.copy()  # back to input order
    return lists


def shards(plan: list[Block], count: int) -> Iterator[list[Block]]:
    """``plan`` in ``count`` shares of about equal work (blocks dealt round-robin by size)."""
    order = sorted(range(len(plan)), key=lambda i: -plan[i].size)
    for shard in range(count):
        yield [plan[i] for i in sorted(order[shard::count])]
