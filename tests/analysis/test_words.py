from collections import Counter

import numpy as np
import pytest

from parasent.analysis.words import common_words, extreme_norms, nearest_neighbours, word_analysis
from parasent.core.model import SentenceModel
from parasent.core.model_spec import NamedModel
from parasent.text.word_vectors import WordVectors

WORDS = ["good", "great", "fine", "bad", "awful", "the", "of"]
MATRIX = np.array(
    [[1, 0.1, 0], [0.9, 0.2, 0], [0.7, 0.3, 0.1], [-1, 0, 0.1], [-0.9, 0.1, 0], [0, 0.05, 0], [0, 0, 0.02]],
    dtype=np.float32,
)


def model():
    return NamedModel("m", "m", SentenceModel.from_vectors(WordVectors(WORDS, MATRIX)))


def test_neighbours_by_cosine_among_candidates():
    found = nearest_neighbours(model(), ["good", "bad", "unseen"], WORDS, k=2)
    assert [w for w, _ in found["good"]] == ["great", "fine"]
    assert [w for w, _ in found["bad"]] == ["awful", "of"]
    assert found["unseen"] is None
    restricted = nearest_neighbours(model(), ["good"], ["bad", "awful", "great"], k=5)
    assert [w for w, _ in restricted["good"]] == ["great", "awful", "bad"]
    assert restricted["good"][0][1] == pytest.approx(
        float(MATRIX[0] @ MATRIX[1] / np.linalg.norm(MATRIX[0]) / np.linalg.norm(MATRIX[1]))
    )


def test_norms_and_common_words():
    largest, smallest = extreme_norms(model(), WORDS, k=2)
    assert [w for w, _ in smallest] == ["of", "the"] and largest[0][0] in ("good", "bad")
    counts = Counter({"the": 10, "of": 10, "good": 3, "[UNK]": 99})
    assert common_words(counts, 2) == ["of", "the"] and "[UNK]" not in common_words(counts, None)
    report = word_analysis([model()], ["good"], WORDS, k=2, norms=2)
    text = report.format_table()
    assert "great, fine" in text and "smallest L2 norm" in text
    assert report.to_dict()["candidates"] == len(WORDS)
