import numpy as np
import pytest

from parasent.analysis.length import bin_index, bin_labels, max_length, performance_by_length
from parasent.core.model import SentenceModel
from parasent.core.model_spec import NamedModel
from parasent.data.readers.records import ScoredPair
from parasent.evaluation.evaluator import SimilarityEvaluator
from parasent.evaluation.metrics import pearson
from parasent.text.word_vectors import WordVectors


def named(label, seed):
    words = [f"w{i}" for i in range(30)]
    matrix = np.random.default_rng(seed).normal(size=(30, 6)).astype(np.float32)
    return NamedModel(label, label, SentenceModel.from_vectors(WordVectors(words, matrix)))


def test_bins_follow_footnote_19():
    assert max_length("a b c", "Dominick's car.") == 5  # dominick ' s car .
    assert bin_index(np.array([1, 4, 5, 9, 10, 30]), 4, 10).tolist() == [0, 0, 1, 5, 6, 6]
    assert bin_labels(4, 10) == ["<= 4", "5", "6", "7", "8", "9", ">= 10"]


def test_pearson_per_bin_over_pooled_pairs():
    rng = np.random.default_rng(0)
    data = {}
    for name in ("sts2014/images", "sts2015/images"):
        pairs = []
        for _ in range(60):
            n1, n2 = rng.integers(1, 13, size=2)
            s1 = " ".join(f"w{i}" for i in rng.integers(0, 30, size=n1))
            s2 = " ".join(f"w{i}" for i in rng.integers(0, 30, size=n2))
            pairs.append(ScoredPair(s1, s2, float(rng.uniform(0, 5))))
        data[name] = pairs
    evaluator = SimilarityEvaluator("two", datasets=data)
    models = [named("A", 1), named("B", 2)]
    table = performance_by_length(models, evaluator, low=4, high=10)
    lengths = np.array([max(len(p.s1.split()), len(p.s2.split())) for n in data for p in data[n]])
    bins = np.clip(lengths, 4, 10) - 4
    assert table.counts == [int((bins == b).sum()) for b in range(7)] and sum(table.counts) == 120
    predicted = np.concatenate(list(evaluator.predictions(models[1].model).values()))
    gold = np.array([p.score for n in data for p in data[n]])
    assert table.scores["B"][3] == pytest.approx(pearson(predicted[bins == 3], gold[bins == 3]))
    text = table.format_table()
    assert "<= 4" in text and ">= 10" in text and "pooled over 2 sets (120 pairs;" in text
    for b, count in enumerate(table.counts):  # a bin too small for a correlation has none, not 0
        assert (table.scores["B"][b] is None) == (count < 10)
    assert table.to_dict()["pairs"] == table.counts
    with pytest.raises(ValueError, match="below the highest"):
        performance_by_length(models, evaluator, low=10, high=4)
