import numpy as np
import pytest
from scipy import stats

from parasent.core.model_spec import NamedModel
from parasent.data.readers.records import ScoredPair
from parasent.evaluation.evaluator import SimilarityEvaluator
from parasent.evaluation.significance import paired_test, per_pair_errors, significance_report, wilcoxon


def test_fit_errors_are_least_squares_residuals():
    rng = np.random.default_rng(0)
    cosine, gold = rng.uniform(0, 1, 50), rng.uniform(0, 5, 50)
    slope, intercept = np.polyfit(cosine, gold, 1)
    assert per_pair_errors(cosine, gold).tolist() == pytest.approx(
        np.abs(slope * cosine + intercept - gold).tolist()
    )
    affine = per_pair_errors(np.array([-1.0, 1.0, 0.0]), np.array([0.0, 5.0, 5.0]), "affine")
    assert affine.tolist() == [0.0, 0.0, 2.5]
    assert per_pair_errors(np.ones(3), np.array([1.0, 2.0, 3.0])).tolist() == [1.0, 0.0, 1.0]
    with pytest.raises(ValueError):
        per_pair_errors(cosine, gold, "log")


def test_wilcoxon_matches_scipy_and_handles_ties():
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=40), rng.normal(size=40) + 0.5
    expected = stats.wilcoxon(a, b)
    assert wilcoxon(a, b) == pytest.approx((expected.statistic, expected.pvalue))
    assert wilcoxon(a, a) == (0.0, 1.0)
    with pytest.raises(ValueError, match="same shape"):
        wilcoxon(a, b[:3])


def test_paired_test_on_errors_or_scores():
    rng = np.random.default_rng(2)
    gold = rng.uniform(0, 5, 300)
    good, bad = gold / 5 + rng.normal(0, 0.05, 300), rng.uniform(0, 1, 300)
    result = paired_test("x", good, bad, gold)
    assert result.better == "a" and result.p_value < 1e-10 and result.error_a < result.error_b
    scores = paired_test("x", good, bad, gold, on="scores")
    assert scores.p_value == pytest.approx(stats.wilcoxon(good, bad).pvalue)
    with pytest.raises(ValueError, match="on must be"):
        paired_test("x", good, bad, gold, on="ranks")


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
    report = significance_report(
        NamedModel("good", "", Lookup(good)), NamedModel("noisy", "", Lookup(noisy)), evaluator
    )
    (test,) = report.tests
    assert test.p_value < 1e-6 and report.winner(test) == "A" and test.pearson_a > 95
    assert "A better on 1" in report.format_table()
    same = significance_report(
        NamedModel("good", "", Lookup(good)), NamedModel("again", "", Lookup(good)), evaluator
    )
    assert same.tests[0].p_value == 1.0 and same.winner(same.tests[0]) == "-"
    assert same.to_dict()["tests"][0]["significant_winner"] == "-"
