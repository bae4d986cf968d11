import numpy as np
import pytest

import parasent
from parasent.core import semantic_search
from parasent.core.semantic_search import TopK


def brute_force(queries, corpus, k):
    q = queries / np.linalg.norm(queries, axis=1, keepdims=True)
    c = corpus / np.linalg.norm(corpus, axis=1, keepdims=True)
    scores = q @ c.T
    order = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    return order, np.take_along_axis(scores, order, axis=1)


@pytest.mark.parametrize("chunk", [1, 7, 64, 1000])
def test_chunked_search_equals_the_full_matrix(chunk, monkeypatch):
    rng = np.random.default_rng(chunk)
    queries = rng.normal(size=(13, 8)).astype(np.float32)
    corpus = rng.normal(size=(300, 8)).astype(np.float32)
    monkeypatch.setattr(semantic_search, "MAX_SCORES", 50)  # query blocks of a few rows too
    hits = parasent.search(queries, corpus, top_k=5, corpus_chunk_size=chunk)
    ids, scores = brute_force(queries, corpus, 5)
    assert [[h["corpus_id"] for h in q] for q in hits] == ids.tolist()
    np.testing.assert_allclose([[h["score"] for h in q] for q in hits], scores, rtol=1e-5, atol=1e-6)


def test_streamed_chunks_memory_maps_and_small_corpora(tmp_path):
    rng = np.random.default_rng(0)
    corpus = rng.normal(size=(50, 4)).astype(np.float32)
    np.save(tmp_path / "c.npy", corpus)
    mapped = np.load(tmp_path / "c.npy", mmap_mode="r")
    query = corpus[17]
    streamed = parasent.search(query, (corpus[i : i + 9] for i in range(0, 50, 9)), top_k=3)
    from_map = parasent.search(query, mapped, top_k=3, corpus_chunk_size=11)
    assert [h["corpus_id"] for h in streamed[0]] == [h["corpus_id"] for h in from_map[0]]
    assert [h["score"] for h in streamed[0]] == pytest.approx([h["score"] for h in from_map[0]], abs=1e-6)
    assert streamed[0][0]["corpus_id"] == 17 and streamed[0][0]["score"] == pytest.approx(1.0)
    assert len(parasent.search(query, corpus[:2], top_k=10)[0]) == 2  # k larger than the corpus
    assert parasent.search(query, corpus[:0], top_k=3) == [[]]
    top = TopK(np.zeros((1, 4)), 2)
    top.add(corpus[:5])
    assert [h["score"] for h in top.hits()[0]] == [0.0, 0.0]  # a zero query: zeros, not NaN
    with pytest.raises(ValueError, match="dims"):
        parasent.search(query, np.ones((3, 5)), top_k=1)
    with pytest.raises(ValueError, match="top_k"):
        parasent.search(query, corpus, top_k=0)
