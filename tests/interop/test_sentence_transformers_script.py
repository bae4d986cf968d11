"""A script written for sentence-transformers runs unchanged on a parasent model, with the
results sentence-transformers gives on the same vectors (the model exported as a
``StaticEmbedding`` directory)."""

import numpy as np
import pytest
import torch

import parasent
from parasent.core.model import SentenceModel
from parasent.encoders.word_averaging import WordAveraging
from parasent.text import WordTokenizer

CORPUS = [
    "a man is eating food",
    "a man is eating a piece of bread",
    "the girl is carrying a baby",
    "a man is riding a horse",
    "a woman is playing violin",
    "two men pushed carts through the woods",
    "a man is riding a white horse on an enclosed ground",
    "a monkey is playing drums",
    "a cheetah is running behind its prey",
]
QUERIES = ["a man is eating pasta", "someone in a gorilla costume is playing a set of drums", "zzz"]


def st_script(model, semantic_search):
    """Written for sentence-transformers; only ``model`` and ``semantic_search`` are passed in."""
    corpus_embeddings = model.encode(CORPUS, normalize_embeddings=True, convert_to_tensor=True)
    query_embeddings = model.encode(QUERIES, normalize_embeddings=True, convert_to_tensor=True)
    scores = model.similarity(query_embeddings, corpus_embeddings)
    hits = semantic_search(query_embeddings, corpus_embeddings, top_k=3)
    one = model.encode("A man is eating food.", normalize_embeddings=True, prompt_name=None)
    packed = model.encode(CORPUS, precision="ubinary")
    short = model.encode(CORPUS, truncate_dim=8, normalize_embeddings=True)
    return np.asarray(scores), hits, np.asarray(one), np.asarray(packed), np.asarray(short)


@pytest.fixture()
def model():
    words = sorted({w for s in CORPUS + QUERIES[:2] for w in s.split()})
    tokenizer = WordTokenizer.from_vocabulary(words)
    torch.manual_seed(0)
    encoder = WordAveraging(tokenizer.vocab_size, 16)
    encoder.set_embeddings(torch.randn(tokenizer.vocab_size, 16))
    return SentenceModel.from_encoder(tokenizer, encoder)


def test_sentence_transformers_script_runs_unchanged(model, tmp_path):
    st = pytest.importorskip("sentence_transformers")
    reference = st.SentenceTransformer(str(model.export(tmp_path / "st")), device="cpu")
    theirs = st_script(reference, st.util.semantic_search)
    ours = st_script(model, parasent.search)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5, atol=1e-6)
    assert ours[0].shape == (len(QUERIES), len(CORPUS))
    for mine, reference_hits in zip(ours[1], theirs[1], strict=True):
        assert [h["corpus_id"] for h in mine] == [h["corpus_id"] for h in reference_hits]
        np.testing.assert_allclose(
            [h["score"] for h in mine], [h["score"] for h in reference_hits], atol=1e-5
        )
    assert ours[2].shape == theirs[2].shape == (16,)
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(ours[3], theirs[3])  # sign bits, packed
    np.testing.assert_allclose(ours[4], theirs[4], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(ours[4], axis=1), 1, rtol=1e-5)


def test_model_search_matches_search_over_vectors(model):
    vectors = model.encode(CORPUS)
    by_text = model.search(QUERIES, CORPUS, top_k=4, batch_size=2)  # corpus encoded 2 at a time
    by_vectors = parasent.search(model.encode(QUERIES), vectors, top_k=4)
    assert [[h["corpus_id"] for h in q] for q in by_text] == [[h["corpus_id"] for h in q] for q in by_vectors]
    np.testing.assert_allclose(
        [[h["score"] for h in q] for q in by_text], [[h["score"] for h in q] for q in by_vectors], atol=1e-6
    )
    single = model.search(QUERIES[0], CORPUS, top_k=2)
    assert [h["corpus_id"] for h in single] == [h["corpus_id"] for h in by_vectors[0][:2]]
    empty = model.search("", CORPUS, top_k=3)  # no token at all: zero scores, never NaN
    assert len(empty) == 3 and all(h["score"] == 0.0 for h in empty)
