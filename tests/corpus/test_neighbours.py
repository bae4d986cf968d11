"""Exact neighbour lists by blocks: the lists of a brute-force sort by (score, id), whatever
the blocks, the order of the rows and the shards."""

from __future__ import annotations

import numpy as np
import pytest

from parasent.corpus.neighbours import (
    NeighbourLists,
    block_plan,
    exact_neighbours,
    locality_order,
    shards,
    unit_vectors,
)


def brute_force(vectors: np.ndarray, k: int, threshold: float) -> list[list[int]]:
    """Each row's k best others at or above the threshold, by score then id, from the full matrix."""
    unit = unit_vectors(vectors)
    scores = unit @ unit.T
    np.fill_diagonal(scores, -np.inf)
    lists = []
    for i, row in enumerate(scores):
        order = np.lexsort((np.arange(len(row)), -row))
        lists.append([int(j) for j in order if row[j] >= threshold and j != i][:k])
    return lists


def clustered(n: int, dim: int = 16, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(max(2, n // 20), dim))
    vectors = centres[rng.integers(0, len(centres), n)] + 0.4 * rng.normal(size=(n, dim))
    vectors = vectors.astype(np.float32)
    vectors[3] = vectors[11]  # an exact tie: the lower id comes first
    vectors[7] = 0  # a zero vector scores 0 with everything
    return vectors


def lists_of(lists: NeighbourLists) -> list[list[int]]:
    return [[int(j) for j in row if j >= 0] for row in lists.ids]


@pytest.mark.parametrize(
    ("n", "k", "threshold", "row_block", "max_block"),
    [
        (400, 5, -np.inf, 64, 64 * 100),
        (600, 10, 0.3, 100, 100 * 37),
        (60, 70, -np.inf, 7, 7 * 9),
        (300, 3, 0.9, 1024, 1 << 22),
    ],
)
def test_blocks_find_what_a_full_scan_finds(n, k, threshold, row_block, max_block):
    vectors = clustered(n)
    plan = block_plan(n, row_block, max_block)
    assert lists_of(exact_neighbours(vectors, k, threshold=threshold, blocks=plan)) == brute_force(
        vectors, k, threshold
    )


def test_every_unordered_pair_is_in_one_block():
    n = 1000
    covered = np.zeros((n, n), dtype=int)
    for block in block_plan(n, 128, 128 * 300):
        (a, b), (c, d) = block.rows, block.cols
        cell = np.zeros((n, n), dtype=int)
        cell[a:b, c:d] = 1
        covered += np.triu(cell, 1) if (a, b) == (c, d) else cell
    assert (covered + covered.T == 1 - np.eye(n, dtype=int)).all()


def test_any_order_and_any_shards_give_the_same_lists():
    vectors = clustered(3000, seed=1)
    order = locality_order(unit_vectors(vectors), row_block=256)
    assert sorted(order.tolist()) == list(range(3000)) and (order != np.arange(3000)).any()
    plan = block_plan(3000, 256, 256 * 700)
    whole = exact_neighbours(vectors, 8, blocks=plan, order=order)
    assert lists_of(whole) == brute_force(vectors, 8, -np.inf)
    merged = NeighbourLists(3000, 8)
    parts = list(shards(plan, 3))
    assert sorted(b for part in parts for b in range(len(part))) and sum(map(len, parts)) == len(plan)
    for part in parts:
        merged.merge(exact_neighbours(vectors, 8, blocks=part, order=order))
    assert (merged.ids == whole.ids).all() and np.array_equal(merged.scores, whole.scores)


def test_scores_are_the_cosines_and_empty_slots_are_marked():
    vectors = np.array([[1, 0], [1, 1], [0, 1], [-1, 0]], dtype=np.float32)
    lists = exact_neighbours(vectors, 3, threshold=0.0)
    assert lists.ids[0].tolist() == [1, 2, -1]  # [3] is at -1, below the threshold
    np.testing.assert_allclose(lists.scores[0][:2], [np.sqrt(0.5), 0.0], atol=1e-6)
    assert lists.scores[0][2] == -np.inf
    with pytest.raises(ValueError, match="top_k must be positive"):
        NeighbourLists(3, 0)


def test_reordering_in_place_changes_no_list():
    vectors = unit_vectors(clustered(3000, seed=4))
    order = locality_order(vectors, row_block=256)
    plan = block_plan(3000, 256, 256 * 700)
    expected = exact_neighbours(vectors, 6, unit=True, order=order, blocks=plan)
    mine = vectors.copy()
    again = exact_neighbours(mine, 6, unit=True, order=order, blocks=plan, reorder=True)
    assert (again.ids == expected.ids).all() and np.array_equal(again.scores, expected.scores)
    assert np.array_equal(mine, vectors[order])  # the caller's array, given up, is in order now
