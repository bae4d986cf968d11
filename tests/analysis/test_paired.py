import numpy as np

from parasent.analysis.paired import compare_models
from parasent.data.records import ScoredPair
from parasent.evaluation.evaluator import SimilarityEvaluator
from parasent.model_spec import NamedModel


class Lookup:
    def __init__(self, vectors):
        self.vectors = vectors

    def encode(self, sentences, batch_size=0):
        return np.stack([self.vectors[s] for s in sentences])


def test_better_model_wins_significantly():
    rng = np.random.default_rng(0)
    pairs, good, noisy = [], {}, {}
    for i in range(200):
        score = float(rng.uniform(0, 5))
        angle = (5 - score) / 5 * np.pi / 2
        a, b = f"a{i}", f"b{i}"
        good[a], good[b] = np.array([1.0, 0.0]), np.array([np.cos(angle), np.sin(angle)])
        noisy[a], noisy[b] = rng.normal(size=2), rng.normal(size=2)
        pairs.append(ScoredPair(a, b, score))
    evaluator = SimilarityEvaluator("x", datasets={"x/a": pairs})
    report = compare_models(
        NamedModel("good", "", Lookup(good)), NamedModel("noisy", "", Lookup(noisy)), evaluator
    )
    (test,) = report.tests
    assert test.p_value < 1e-6 and report.winner(test) == "A" and test.pearson_a > 95
    assert "A better on 1" in report.format_table()
    same = compare_models(
        NamedModel("good", "", Lookup(good)), NamedModel("again", "", Lookup(good)), evaluator
    )
    assert same.tests[0].p_value == 1.0 and same.winner(same.tests[0]) == "-"
    assert same.to_dict()["tests"][0]["significant_winner"] == "-"
