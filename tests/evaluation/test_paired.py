import numpy as np
import pytest

from parasent.evaluation.evaluator import SimilarityEvaluator
from parasent.evaluation.paired import DAGGER, compare_models, compare_predictions, wilcoxon_signed_rank


def test_wilcoxon_detects_a_shift_and_never_returns_nan():
    rng = np.random.default_rng(0)
    a = rng.normal(size=200)
    assert wilcoxon_signed_rank(a, a + 0.5).p_value < 1e-10
    assert wilcoxon_signed_rank(a, a + rng.normal(scale=1e-3, size=200)).p_value > 1e-4
    assert wilcoxon_signed_rank(a, a.copy()).p_value == 1.0
    with pytest.raises(ValueError, match="same shape"):
        wilcoxon_signed_rank(a, a[:5])


class Scaled:
    """Cosines of another model's vectors shifted towards 1: same ranking, different scores."""

    def __init__(self, shift):
        self.shift = shift

    def encode(self, sentences, batch_size=0):
        vectors = np.array([[float(len(s) % 7) + 1, float(len(s) % 5) + 1] for s in sentences])
        return vectors + self.shift


def test_comparison_marks_significant_differences(mini_data_dir):
    evaluator = SimilarityEvaluator("sts2012", mini_data_dir)
    comparison = compare_models(
        [("base", Scaled(0.0)), ("shifted", Scaled(50.0)), ("same", Scaled(0.0))],
        evaluator=evaluator,
        reference="base",
        alpha=0.01,
    )
    shifted, same = comparison.columns[1], comparison.columns[2]
    assert all(comparison.significant(shifted, d) for d in comparison.datasets)
    assert not any(comparison.significant(same, d) for d in comparison.datasets)
    table = comparison.format_table()
    assert DAGGER in table and "mean (5 sets)" in table and "mean weighted by pairs" in table
    markdown = comparison.format_table(markdown=True)
    assert markdown.startswith("| dataset | n | base | shifted | same |") and "**" in markdown
    assert comparison.to_dict()["models"][1]["datasets"][0]["wilcoxon_p"] < 0.01


def test_compare_predictions_scores_any_system():
    gold = {"x": np.array([0.0, 1.0, 2.0, 3.0]), "y": np.array([1.0, 0.0, 1.0, 0.0])}
    predictions = {"good": {"x": gold["x"] * 2, "y": gold["y"]}, "bad": {"x": -gold["x"], "y": 1 - gold["y"]}}
    comparison = compare_predictions(predictions, gold)
    good, bad = comparison.columns
    assert good.pearson["x"] == pytest.approx(100.0) and bad.pearson["y"] == pytest.approx(-100.0)
    assert comparison.means(good) == pytest.approx((100.0, 100.0))
    with pytest.raises(ValueError, match="reference"):
        compare_predictions(predictions, gold, reference="other")
