import numpy as np
import pytest

from parasent.evaluation.metrics import average_ranks, pearson, spearman


def test_average_ranks_share_ties():
    assert average_ranks(np.array([3.0, 1.0, 3.0, 2.0])).tolist() == [3.5, 1.0, 3.5, 2.0]


def test_correlations_match_scipy_on_tied_data():
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(0)
    for _ in range(100):
        n = int(rng.integers(3, 60))
        gold = rng.integers(0, 5, n).astype(float)  # many ties, as STS gold scores have
        predicted = np.round(gold + rng.normal(size=n), 1)
        if np.ptp(gold) == 0 or np.ptp(predicted) == 0:
            continue
        assert pearson(predicted, gold) == pytest.approx(stats.pearsonr(predicted, gold)[0] * 100, abs=1e-9)
        assert spearman(predicted, gold) == pytest.approx(stats.spearmanr(predicted, gold)[0] * 100, abs=1e-9)


def test_perfect_and_constant():
    x = np.arange(10.0)
    assert pearson(x, 2 * x + 1) == pytest.approx(100.0)
    assert spearman(x, x**3) == pytest.approx(100.0)
    assert pearson(x, np.ones(10)) == 0.0


def test_macro_f1_and_the_confusion_matrix_by_hand():
    from parasent.evaluation.metrics import confusion_matrix, macro_f1

    gold, predicted = np.array([0, 0, 1, 1, 2]), np.array([0, 1, 1, 1, 1])
    assert confusion_matrix(predicted, gold, 3).tolist() == [[1, 1, 0], [0, 2, 0], [0, 1, 0]]
    # class 0: 2*1/(1+2); class 1: 2*2/(4+2); class 2 never predicted: 0
    assert macro_f1(predicted, gold, 3) == pytest.approx(100 * (2 / 3 + 4 / 6 + 0) / 3)
