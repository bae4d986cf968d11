import numpy as np
import pytest

from parasent import util


def test_semantic_search_has_sentence_transformers_shape_and_answers():
    rng = np.random.default_rng(0)
    corpus = rng.normal(size=(200, 16)).astype(np.float32)
    queries = corpus[[3, 150]] + 0.01 * rng.normal(size=(2, 16)).astype(np.float32)
    hits = util.semantic_search(queries, corpus, top_k=5)
    assert len(hits) == 2 and all(len(row) == 5 for row in hits)
    assert set(hits[0][0]) == {"corpus_id", "score"} and isinstance(hits[0][0]["corpus_id"], int)
    assert [row[0]["corpus_id"] for row in hits] == [3, 150]
    assert all(a["score"] >= b["score"] for row in hits for a, b in zip(row, row[1:], strict=False))
    assert len(util.semantic_search(queries[0], corpus, top_k=3)) == 1  # one vector: one query
    st_util = pytest.importorskip("sentence_transformers.util")
    torch = pytest.importorskip("torch")
    theirs = st_util.semantic_search(torch.from_numpy(queries), torch.from_numpy(corpus), top_k=5)
    assert [[h["corpus_id"] for h in row] for row in theirs] == [
        [h["corpus_id"] for h in row] for row in hits
    ]
    np.testing.assert_allclose(
        [[h["score"] for h in row] for row in theirs], [[h["score"] for h in row] for row in hits], atol=1e-5
    )
    assert util.semantic_search(queries, corpus, top_k=2, score_function=st_util.cos_sim)
    with pytest.raises(ValueError, match="cosine only"):
        util.semantic_search(queries, corpus, score_function=st_util.dot_score)


def test_cos_sim_and_normalize_embeddings():
    a = np.array([[3.0, 4.0], [0.0, 0.0]], dtype=np.float32)
    np.testing.assert_allclose(util.normalize_embeddings(a), [[0.6, 0.8], [0, 0]])
    np.testing.assert_allclose(util.cos_sim(a, a[:1]), [[1.0], [0.0]], atol=1e-6)
