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
    assert max(importances, key=importances.get) in {"a", "b"}
    with pytest.raises(ValueError, match="expected features of shape"):
        trees.predict(test[:, :3])
