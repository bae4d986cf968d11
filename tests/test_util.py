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


def _caption_like(n: int = 600, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(40, 32))
    return (centres[rng.integers(0, 40, n)] + 0.35 * rng.normal(size=(n, 32))).astype(np.float32)


def _same_pairs(ours, theirs):
    """The same pairs at the same scores, ours best first (sentence-transformers leaves the
    order of equal scores open)."""
    assert [p[1:] for p in ours] == [p[1:] for p in sorted(ours, key=lambda p: (-p[0], p[1], p[2]))]
    mine, other = {(i, j): s for s, i, j in ours}, {(i, j): s for s, i, j in theirs}
    assert len(mine) == len(ours) and mine.keys() == other.keys()
    np.testing.assert_allclose([mine[k] for k in other], list(other.values()), atol=1e-5)


def test_paraphrase_mining_embeddings_matches_sentence_transformers():
    st_util = pytest.importorskip("sentence_transformers.util")
    torch = pytest.importorskip("torch")
    vectors = _caption_like()
    for kwargs in [{"top_k": 5, "max_pairs": 1000}, {"top_k": 3}, {"top_k": 100, "max_pairs": 50}]:
        ours = util.paraphrase_mining_embeddings(vectors, **kwargs)
        theirs = st_util.paraphrase_mining_embeddings(torch.from_numpy(vectors), **kwargs)
        _same_pairs(ours, theirs)
        assert all(isinstance(i, int) and i < j for _, i, j in ours)
    ours = util.paraphrase_mining_embeddings(vectors, top_k=3, score_function=util.dot_score)
    theirs = st_util.paraphrase_mining_embeddings(
        torch.from_numpy(vectors), top_k=3, score_function=st_util.dot_score
    )
    _same_pairs(ours, theirs)
    with pytest.raises(ValueError, match="cos_sim or dot_score only"):
        util.paraphrase_mining_embeddings(vectors, score_function=st_util.manhattan_sim)


def test_paraphrase_mining_encodes_with_the_model():
    import parasent

    model = parasent.load()
    sentences = [
        "A man plays a guitar.",
        "A man is playing the guitar.",
        "Stocks fell.",
        "The market dropped.",
    ]
    pairs = util.paraphrase_mining(model, sentences, top_k=1)
    assert [p[1:] for p in pairs][:2] == [[0, 1], [2, 3]] or {tuple(p[1:]) for p in pairs} >= {(0, 1), (2, 3)}
    assert pairs == util.paraphrase_mining_embeddings(model.encode(sentences), top_k=1)


def test_community_detection_matches_sentence_transformers():
    st_util = pytest.importorskip("sentence_transformers.util")
    torch = pytest.importorskip("torch")
    vectors = _caption_like(seed=3)
    ours = util.community_detection(vectors, threshold=0.8, min_community_size=5)
    assert ours and ours == st_util.community_detection(
        torch.from_numpy(vectors), threshold=0.8, min_community_size=5
    )


def test_cos_sim_and_dot_score_give_torch_for_torch():
    torch = pytest.importorskip("torch")
    st_util = pytest.importorskip("sentence_transformers.util")
    a, b = _caption_like(5), _caption_like(7, seed=1)
    assert isinstance(util.cos_sim(a, b), np.ndarray) and util.dot_score(a, b).shape == (5, 7)
    for ours, theirs in [(util.cos_sim, st_util.cos_sim), (util.dot_score, st_util.dot_score)]:
        result = ours(torch.from_numpy(a), b)
        assert isinstance(result, torch.Tensor)
        np.testing.assert_allclose(
            result.numpy(), theirs(torch.from_numpy(a), torch.from_numpy(b)).numpy(), rtol=1e-5, atol=1e-4
        )


def test_quantize_embeddings_matches_sentence_transformers():
    st_util = pytest.importorskip("sentence_transformers.util")
    torch = pytest.importorskip("torch")
    vectors = _caption_like(200)
    calibration = _caption_like(300, seed=4)
    for precision in ["float32", "int8", "uint8", "binary", "ubinary"]:
        for kwargs in [{}, {"calibration_embeddings": calibration}]:
            ours = util.quantize_embeddings(torch.from_numpy(vectors), precision, **kwargs)
            theirs = st_util.quantize_embeddings(vectors, precision, **kwargs)
            assert ours.dtype == theirs.dtype and np.array_equal(ours, theirs), precision
    ranges = np.stack([calibration.min(0), calibration.max(0)])
    one = util.quantize_embeddings(vectors[0], "int8", ranges=ranges)
    assert one.shape == (32,) and np.array_equal(
        one, st_util.quantize_embeddings(vectors[:1], "int8", ranges=ranges)[0]
    )
    with pytest.raises(ValueError, match="single embedding"):
        util.quantize_embeddings(vectors[:1], "int8")
    with pytest.raises(ValueError, match="must be float"):
        util.quantize_embeddings(vectors.astype(np.int8), "binary")
    parts = util.quantize_embeddings([vectors[:5], vectors[5:12]], "uint8")
    assert [p.shape for p in parts] == [(5, 32), (7, 32)]
    theirs = st_util.quantize_embeddings([vectors[:5], vectors[5:12]], "uint8")
    assert all(np.array_equal(o, t) for o, t in zip(parts, theirs, strict=True))
