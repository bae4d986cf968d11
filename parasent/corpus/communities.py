"""Fast community detection (sentence-transformers' ``util.community_detection``): groups of
vectors around a centre, each member at or above a cosine threshold to it.

A vector with at least ``min_size`` vectors (itself included) at or above the threshold is a
centre; its community is those vectors, by decreasing cosine. Communities are then taken
largest first (ties: the earlier centre), each without the vectors an earlier one took, and
kept when at least ``min_size`` of its vectors are still free (a centre an earlier community
took starts none): its centre, then its free members. The cosines are computed a block of rows
against a chunk of columns at a time (never the n x n matrix); only the entries at or above
the threshold of the rows that qualify are kept.
"""

from __future__ import annotations

import numpy as np

from parasent.corpus.neighbours import MAX_BLOCK, unit_vectors


def _members(unit: np.ndarray, rows: slice, threshold: float) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """(row, member ids, their cosines) of every row of ``rows``: the vectors at or above
    ``threshold``, itself included, by decreasing cosine (ties: the lower id)."""
    block = unit[rows]
    step = max(1, MAX_BLOCK // max(len(block), 1))
    found_r, found_j, found_s = [], [], []
    for start in range(0, len(unit), step):
        scores = block @ unit[start : start + step].T
        r, j = np.nonzero(scores >= threshold)
        found_r.append(r)
        found_j.append(start + j)
        found_s.append(scores[r, j])
    r, j, s = (np.concatenate(part) for part in (found_r, found_j, found_s))
    order = np.lexsort((j, -s, r))
    r, j, s = r[order], j[order], s[order]
    bounds = np.flatnonzero(np.r_[True, r[1:] != r[:-1], True]) if len(r) else np.array([0])
    return [
        (rows.start + int(r[lo]), j[lo:hi], s[lo:hi]) for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)
    ]


def communities(
    vectors: np.ndarray,
    threshold: float = 0.75,
    min_size: int = 10,
    *,
    batch_size: int = 1024,
    progress: bool = False,
) -> list[list[int]]:
    """The communities of ``vectors`` (see the module docstring), largest first."""
    from tqdm.auto import tqdm

    n = len(vectors)
    if n == 0 or n < min_size:
        return []
    unit = unit_vectors(vectors)
    found: list[tuple[int, np.ndarray]] = []
    for start in tqdm(range(0, n, batch_size), desc="communities", disable=None if progress else True):
        for row, members, _ in _members(unit, slice(start, min(start + batch_size, n)), threshold):
            if len(members) >= min_size:
                found.append((row, members))
    found.sort(key=lambda item: -len(item[1]))  # stable: among equals, the earlier centre
    used = np.zeros(n, dtype=bool)
    kept: list[list[int]] = []
    for centre, members in found:
        if used[centre]:
            continue
        free = members[~used[members]]
        if len(free) >= min_size:
            community = [centre, *free[free != centre].tolist()]
            kept.append(community)
            used[community] = True
    kept.sort(key=len, reverse=True)
    return kept
