from collections import Counter

import numpy as np
import pytest

from parasent.analysis.norm_weights import frequency_weights, norm_weight_experiment, norm_weights, scaled
from parasent.core.model import SentenceModel
from parasent.core.model_spec import NamedModel
from parasent.data.readers.records import ScoredPair
from parasent.evaluation.evaluator import SimilarityEvaluator
from parasent.text.word_vectors import WordVectors


def test_weights_are_l1_norms_of_trained_vectors():
    initial = WordVectors(["a", "b", "c"], np.array([[1, 0], [0, 1], [1, 1]], dtype=np.float32))
    trained = NamedModel(
        "t",
        "t",
        SentenceModel.from_vectors(WordVectors(["a", "b"], np.array([[2, -1], [0.5, 0]], dtype=np.float32))),
    )
    weights, missing = norm_weights(initial, trained)
    assert weights[:2].tolist() == [3.0, 0.5] and missing == 1  # "c" takes the [UNK] row (zero here)
    assert scaled(initial, weights).encode(["a"])[0].tolist() == [3.0, 0.0]
    frequency = frequency_weights(initial, Counter({"a": 3, "b": 1}))
    assert frequency.tolist() == [4 / 3, 4.0, 4.0]


def test_experiment_reports_the_explained_share():
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(20)]
    initial = WordVectors(words, rng.normal(size=(20, 5)).astype(np.float32))
    trained = NamedModel(
        "t",
        "t",
        SentenceModel.from_vectors(
            WordVectors(words, initial.matrix * rng.uniform(0.1, 3, size=(20, 1)).astype(np.float32))
        ),
    )
    pairs = [
        ScoredPair(" ".join(rng.choice(words, 3)), " ".join(rng.choice(words, 3)), float(rng.uniform(0, 5)))
        for _ in range(60)
    ]
    report = norm_weight_experiment(
        trained, initial, SimilarityEvaluator("x", datasets={"x/a": pairs}), Counter(words)
    )
    scores = dict(report.rows)
    base, model, weighted = (
        scores[k]
        for k in ("initial vectors, averaged", "trained: t", "initial vectors x L1 norm of trained vectors")
    )
    if model != base:
        assert report.explained == pytest.approx((weighted - base) / (model - base))
    assert len(report.rows) == 5 and "share of the trained model" in report.format_table()
