"""Community detection: sentence-transformers' communities, in blocks."""

from __future__ import annotations

import numpy as np
import pytest

from parasent.corpus.communities import communities


def grouped(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(30, 24))
    return (centres[rng.integers(0, 30, 500)] + 0.35 * rng.normal(size=(500, 24))).astype(np.float32)


def test_centres_first_members_by_score_largest_first():
    vectors = grouped()
    found = communities(vectors, threshold=0.8, min_size=5, batch_size=64)
    assert found and all(len(c) >= 5 for c in found)
    assert [len(c) for c in found] == sorted((len(c) for c in found), reverse=True)
    assert len({i for c in found for i in c}) == sum(map(len, found))  # no vector in two
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    for community in found:
        scores = unit[community[1:]] @ unit[community[0]]
        assert (scores >= 0.8 - 1e-6).all() and (np.diff(scores) <= 1e-6).all()
    assert communities(vectors, threshold=0.8, min_size=5, batch_size=7) == found  # blocks change nothing


def test_matches_sentence_transformers():
    st_util = pytest.importorskip("sentence_transformers.util")
    torch = pytest.importorskip("torch")
    vectors = grouped(1)
    for threshold, size in [(0.8, 5), (0.6, 20), (0.95, 2)]:
        theirs = st_util.community_detection(
            torch.from_numpy(vectors), threshold=threshold, min_community_size=size
        )
        assert communities(vectors, threshold, size) == theirs


def test_too_few_vectors_make_no_community():
    assert communities(np.eye(3, dtype=np.float32), 0.5, 5) == []
    assert communities(np.zeros((0, 4), dtype=np.float32), 0.5, 1) == []
