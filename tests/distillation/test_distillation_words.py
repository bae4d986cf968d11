import numpy as np
import pytest

from parasent.data.readers.wordfreq import WordFrequencies
from parasent.distillation.words import (
    distill_word_vectors,
    distillation_vocabulary,
    fit_pca,
    frequency_weights,
)

FREQ = WordFrequencies(["the", "of", "cat", "dog"], np.array([600, 300, 60, 40]))


def unit_encoder(dim=6, seed=0):
    rng = np.random.default_rng(seed)
    table = {}

    def encode(texts):
        for t in texts:
            table.setdefault(t, rng.normal(size=dim))
        m = np.stack([table[t] for t in texts]).astype(np.float32)
        return m / np.linalg.norm(m, axis=1, keepdims=True)

    return encode


def test_vocabulary_is_top_words_then_new_training_words():
    assert distillation_vocabulary(FREQ, 2, ["cat", "zebra", "the", "[UNK]", "zebra"]) == [
        "the",
        "of",
        "cat",
        "zebra",
    ]
    assert distillation_vocabulary(None, 5, ["b", "a"]) == ["b", "a"]


def test_sif_and_zipf_weights():
    sif = frequency_weights(["the", "dog", "unlisted"], FREQ, "sif", sif_a=0.01)
    assert sif[0] == pytest.approx(0.01 / (0.01 + 0.6))
    assert sif[1] == pytest.approx(0.01 / (0.01 + 0.04))
    assert sif[2] == pytest.approx(1.0)
    zipf = frequency_weights(["the", "dog", "unlisted"], FREQ, "zipf")
    assert zipf[0] < zipf[1] < zipf[2]
    assert np.all(frequency_weights(["x"], FREQ, "none") == 1)
    with pytest.raises(ValueError):
        frequency_weights(["x"], FREQ, "tfidf")


def test_distilled_vectors_are_weighted_teacher_vectors():
    encode = unit_encoder()
    words = ["the", "cat", "zebra"]
    plain = distill_word_vectors(encode, words, weighting="none")
    assert plain.vectors.words == words
    np.testing.assert_allclose(np.linalg.norm(plain.vectors.matrix, axis=1), 1.0, rtol=1e-6)
    weighted = distill_word_vectors(encode, words, frequencies=FREQ, weighting="sif", sif_a=1e-3)
    ratio = np.linalg.norm(weighted.vectors.matrix, axis=1)
    np.testing.assert_allclose(ratio, frequency_weights(words, FREQ, "sif", 1e-3), rtol=1e-5)
    with pytest.raises(ValueError, match="frequency list"):
        distill_word_vectors(encode, words, weighting="sif")


def test_pca_reduces_and_projection_is_orthonormal():
    encode = unit_encoder(dim=6)
    words = [f"w{i}" for i in range(40)]
    reduced = distill_word_vectors(encode, words, weighting="none", pca_dim=3)
    assert reduced.vectors.dim == 3
    components = reduced.projection.components
    np.testing.assert_allclose(components @ components.T, np.eye(3), atol=1e-5)
    np.testing.assert_allclose(reduced.projection.apply(encode(words)), reduced.vectors.matrix, atol=1e-5)
    # the first axis carries the most variance
    assert np.var(reduced.vectors.matrix[:, 0]) >= np.var(reduced.vectors.matrix[:, 2])
    with pytest.raises(ValueError):
        fit_pca(np.ones((4, 3)), 4)
