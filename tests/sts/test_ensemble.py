import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.ensemble import GradientBoostingRegressor  # noqa: E402

from parasent.sts.ensemble import BoostedTrees  # noqa: E402


def test_numpy_trees_predict_as_scikit_learn_and_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, 4))
    y = np.clip(2.5 + 1.5 * x[:, 0] - x[:, 1] ** 2 + 0.2 * rng.normal(size=300), 0, 5)
    trees = BoostedTrees.fit(x, y, ["a", "b", "c", "d"], seed=3, n_estimators=40)
    reference = GradientBoostingRegressor(random_state=3, n_estimators=40).fit(x, y)
    test = rng.normal(size=(200, 4)) * 2
    assert np.allclose(trees.raw_predict(test), reference.predict(test), atol=1e-10)
    predictions = trees.predict(test)
    assert predictions.min() >= 0.0 and predictions.max() <= 5.0
    trees.save(tmp_path / "e")
    loaded = BoostedTrees.load(tmp_path / "e")
    assert np.array_equal(loaded.predict(test), predictions)
    importances = trees.importances()
    assert max(importances, key=lambda f: importances[f]["splits"]) in {"a", "b"}
    with pytest.raises(ValueError, match="expected features of shape"):
        trees.predict(test[:, :3])


def test_gini_importance_is_scikit_learns_feature_importances(tmp_path):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(400, 5))
    y = np.clip(2.5 + 2.0 * x[:, 2] + 0.5 * x[:, 0] + 0.1 * rng.normal(size=400), 0, 5)
    params = dict(n_estimators=30, max_depth=3, subsample=0.8)
    trees = BoostedTrees.fit(x, y, list("abcde"), seed=2, **params)
    reference = GradientBoostingRegressor(random_state=2, **params).fit(x, y)
    assert np.allclose(trees.impurity_importances(), reference.feature_importances_, atol=1e-12)
    trees.save(tmp_path / "e")
    loaded = BoostedTrees.load(tmp_path / "e")
    importances = loaded.importances()
    assert importances["c"]["gini"] == pytest.approx(reference.feature_importances_[2], abs=1e-12)
    assert importances["c"]["splits"] == int(
        sum((e.tree_.feature == 2).sum() for e in reference.estimators_[:, 0])
    )
    table = loaded.importance_table(markdown=True).splitlines()
    assert table[0] == "| feature | Gini importance | splits |" and table[2].startswith("| c |")
    # an ensemble saved before node impurities were kept: split counts only
    del loaded.arrays["impurity"]
    assert loaded.impurity_importances() is None and loaded.importances()["c"]["gini"] is None
