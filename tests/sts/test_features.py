import math

import numpy as np
import pytest

from parasent.sts.features import (
    LEXICAL_FEATURES,
    InformationContent,
    PairFeatures,
    lexical_features,
    ngram_overlap,
    numbers,
)

IC = InformationContent({"the": 1000, "cat": 10, "sat": 10, "dog": 10, "on": 500, "mat": 5})


def features(s1, s2):
    return dict(zip(LEXICAL_FEATURES, lexical_features(s1, s2, IC), strict=True))


def test_identical_sentences_match_fully():
    f = features("The cat sat on the mat.", "the cat sat on the mat")
    for name in (
        "ngram_overlap_1",
        "ngram_overlap_2",
        "ngram_overlap_3",
        "weighted_word_match",
        "cosine_icf",
    ):
        assert f[name] == pytest.approx(1.0)
    assert f["relative_length_difference"] == 0 and f["relative_ic_difference"] == 0


def test_overlap_and_weighted_match_values():
    assert ngram_overlap(["a", "b", "c"], ["a", "b"], 1) == pytest.approx(2 * (2 / 3) * 1 / (2 / 3 + 1))
    f = features("the cat sat", "the dog sat")
    ic = {w: math.log(IC.total / c) for w, c in IC.counts.items()}
    shared = ic["the"] + ic["sat"]
    expected = shared / (ic["the"] + ic["dog"] + ic["sat"])  # both sides have the same total
    assert f["weighted_word_match"] == pytest.approx(expected)
    assert IC("unseen") == pytest.approx(math.log(IC.total / 5))  # the rarest count


def test_number_and_case_features():
    assert numbers("It cost 1,000 dollars, not 3.5 or +2.") == {"1000.0", "3.5", "2.0"}
    f = features("We met Paris Hilton in 2 days.", "we met paris hilton in 2 days")
    assert f["number_f1"] == 1.0 and f["number_subset"] == 1.0 and f["case_match"] == 0.0
    assert features("We met Paris Hilton.", "Then Paris Hilton left.")["case_match"] == 1.0
    f = features("Sales rose 5 percent", "Sales rose 7 percent")
    assert f["number_f1"] == 0.0 and f["number_subset"] == 0.0
    assert features("no numbers", "none")["number_f1"] == 1.0


class Echo:
    def encode(self, sentences):
        return np.array([[len(s), 1.0] for s in sentences], dtype=np.float32)


def test_pair_features_add_one_cosine_per_model():
    pairs = [("a b", "a b"), ("a", "a much longer sentence")]
    extractor = PairFeatures(IC, {"echo": Echo()})
    matrix = extractor.transform(pairs)
    assert extractor.names[-1] == "cos:echo" and matrix.shape == (2, len(LEXICAL_FEATURES) + 1)
    assert matrix[0, -1] == pytest.approx(1.0) and matrix[1, -1] < 0.9
    only = PairFeatures(IC, {"echo": Echo()}, lexical=False)
    assert only.transform(pairs).shape == (2, 1)
