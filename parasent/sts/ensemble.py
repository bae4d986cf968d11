"""A gradient-boosting regressor over pair features, trained with scikit-learn and served by numpy.

Hokamp & Arora (2016), Sec. 3.4: scikit-learn's ``GradientBoostingRegressor`` on the
features of previous years' STS pairs and their gold scores; predictions are clipped to
the 0-5 scale. scikit-learn is needed to fit (``pip install parasent[sts]``), not to
predict: the fitted trees are kept as flat arrays (saved as safetensors + JSON, no pickle)
and evaluated with numpy, giving the same predictions as scikit-learn.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from parasent.errors import ModelFormatError
from parasent.support.path_names import native_path
from parasent.support.regular_files import (
    exists,
    read_regular_json,
    regular_size,
)

LEAF = -1
ENSEMBLE_CONFIG = "ensemble.json"
ENSEMBLE_WEIGHTS = "trees.safetensors"


def _sklearn_regressor():
    try:
        from sklearn.ensemble import GradientBoostingRegressor
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("fitting the STS ensemble needs scikit-learn: pip install parasent[sts]") from None
    return GradientBoostingRegressor


class BoostedTrees:
    """``init + learning_rate * sum_t tree_t(x)``, clipped to ``[low, high]``.

    Trees are stored concatenated: node ``k`` tests ``x[feature[k]] <= threshold[k]`` and
    goes to ``left[k]`` or ``right[k]`` (global indices; ``-1`` at leaves, whose output is
    ``value[k]``); ``roots`` are the trees' first nodes. As in scikit-learn, inputs are
    compared in float32.
    """

    def __init__(
        self,
        arrays: dict[str, np.ndarray],
        *,
        init: float,
        learning_rate: float,
        feature_names: list[str],
        low: float = 0.0,
        high: float = 5.0,
        params: dict[str, Any] | None = None,
    ) -> None:
        self.arrays = arrays
        self.init = float(init)
        self.learning_rate = float(learning_rate)
        self.feature_names = list(feature_names)
        self.low, self.high = low, high
        self.params = dict(params or {})

    @classmethod
    def fit(
        cls,
        features: np.ndarray,
        targets: np.ndarray,
        feature_names: list[str],
        *,
        seed: int = 1,
        low: float = 0.0,
        high: float = 5.0,
        **params: Any,
    ) -> BoostedTrees:
        """Fit scikit-learn's regressor (its defaults unless ``params`` say otherwise) and keep its trees."""
        regressor = _sklearn_regressor()(random_state=seed, **params)
        regressor.fit(np.asarray(features, dtype=np.float64), np.asarray(targets, dtype=np.float64))
        if regressor.loss not in ("squared_error", "ls"):
            raise ValueError("only the squared-error loss is exported (its raw prediction is the score)")
        trees = [estimator.tree_ for estimator in regressor.estimators_[:, 0]]
        offsets = np.cumsum([0] + [t.node_count for t in trees])[:-1]
        left, right, feature, threshold, value, impurity, weight = [], [], [], [], [], [], []
        for offset, tree in zip(offsets, trees, strict=True):
            leaf = tree.children_left == LEAF
            left.append(np.where(leaf, LEAF, tree.children_left + offset))
            right.append(np.where(leaf, LEAF, tree.children_right + offset))
            feature.append(np.where(leaf, 0, tree.feature))
            threshold.append(tree.threshold)
            value.append(tree.value[:, 0, 0])
            impurity.append(tree.impurity)
            weight.append(tree.weighted_n_node_samples)
        arrays = {
            "roots": offsets.astype(np.int64),
            "left": np.concatenate(left).astype(np.int64),
            "right": np.concatenate(right).astype(np.int64),
            "feature": np.concatenate(feature).astype(np.int64),
            "threshold": np.concatenate(threshold).astype(np.float64),
            "value": np.concatenate(value).astype(np.float64),
            "impurity": np.concatenate(impurity).astype(np.float64),
            "samples": np.concatenate(weight).astype(np.float64),
        }
        init = float(np.ravel(regressor.init_.constant_)[0])
        public = {k: v for k, v in regressor.get_params().items() if isinstance(v, int | float | str | bool)}
        return cls(
            arrays,
            init=init,
            learning_rate=regressor.learning_rate,
            feature_names=feature_names,
            low=low,
            high=high,
            params=public,
        )

    def raw_predict(self, features: np.ndarray) -> np.ndarray:
        x = np.asarray(features, dtype=np.float32)
        if x.ndim != 2 or x.shape[1] != len(self.feature_names):
            raise ValueError(f"expected features of shape (n, {len(self.feature_names)}), got {x.shape}")
        a = self.arrays
        rows = np.arange(len(x))
        total = np.zeros(len(x), dtype=np.float64)
        for root in a["roots"]:
            node = np.full(len(x), root, dtype=np.int64)
            while True:
                inner = a["left"][node] != LEAF
                if not inner.any():
                    break
                k = node[inner]
                go_left = x[rows[inner], a["feature"][k]] <= a["threshold"][k]
                node[inner] = np.where(go_left, a["left"][k], a["right"][k])
            total += a["value"][node]
        return self.init + self.learning_rate * total

    def predict(self, features: np.ndarray) -> np.ndarray:
        return np.clip(self.raw_predict(features), self.low, self.high)

    def split_counts(self) -> np.ndarray:
        """Number of splits on each feature, over all trees."""
        inner = self.arrays["left"] != LEAF
        return np.bincount(self.arrays["feature"][inner], minlength=len(self.feature_names))

    def impurity_importances(self) -> np.ndarray | None:
        """Gini (impurity-based, mean decrease in impurity) importance, as scikit-learn's
        ``feature_importances_`` (Hokamp & Arora 2016 report it): per tree, the weighted
        impurity decrease of each split summed per feature over the root's weight; averaged
        over the trees that split; normalised to sum to 1. None for an ensemble saved without
        node impurities."""
        a = self.arrays
        if "impurity" not in a or "samples" not in a:
            return None
        ends = np.append(a["roots"][1:], len(a["left"]))
        per_tree = []
        for root, end in zip(a["roots"], ends, strict=True):
            nodes = np.arange(root, end)
            inner = nodes[a["left"][nodes] != LEAF]
            if len(inner) == 0:
                continue  # a single leaf (scikit-learn leaves such trees out)
            left, right = a["left"][inner], a["right"][inner]
            decrease = (
                a["samples"][inner] * a["impurity"][inner]
                - a["samples"][left] * a["impurity"][left]
                - a["samples"][right] * a["impurity"][right]
            )
            totals = np.bincount(a["feature"][inner], weights=decrease, minlength=len(self.feature_names))
            per_tree.append(totals / a["samples"][root])
        if not per_tree:
            return np.zeros(len(self.feature_names))
        mean = np.mean(per_tree, axis=0)
        return mean / mean.sum() if mean.sum() > 0 else mean

    def importances(self) -> dict[str, dict[str, float | int | None]]:
        """Per feature: ``gini``, the impurity-based importance (:meth:`impurity_importances`),
        and ``splits``, the number of splits on it (a simpler, secondary figure)."""
        gini, splits = self.impurity_importances(), self.split_counts()
        return {
            name: {"gini": None if gini is None else float(gini[i]), "splits": int(splits[i])}
            for i, name in enumerate(self.feature_names)
        }

    def importance_table(self, markdown: bool = False) -> str:
        """Features by Gini importance (the column the paper reports), with split counts."""
        return format_importances(self.importances(), markdown)

    def save(self, directory: str | Path) -> None:
        from safetensors.numpy import save_file

        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        save_file(
            {k: np.ascontiguousarray(v) for k, v in self.arrays.items()},
            native_path(directory / ENSEMBLE_WEIGHTS),
        )
        config = {
            "init": self.init,
            "learning_rate": self.learning_rate,
            "feature_names": self.feature_names,
            "low": self.low,
            "high": self.high,
            "params": self.params,
        }
        (directory / ENSEMBLE_CONFIG).write_text(json.dumps(config, indent=2) + "\n")

    @classmethod
    def load(cls, directory: str | Path) -> BoostedTrees:
        from safetensors.numpy import load_file

        directory = Path(directory)
        for name in (ENSEMBLE_CONFIG, ENSEMBLE_WEIGHTS):
            if not exists(directory / name):
                raise ModelFormatError(f"{directory / name}: missing")
        config = read_regular_json(directory / ENSEMBLE_CONFIG)
        regular_size(directory / ENSEMBLE_WEIGHTS)  # a FIFO or a device is refused, never opened
        arrays = load_file(native_path(directory / ENSEMBLE_WEIGHTS))
        return cls(
            arrays,
            init=config["init"],
            learning_rate=config["learning_rate"],
            feature_names=config["feature_names"],
            low=config["low"],
            high=config["high"],
            params=config.get("params"),
        )


def format_importances(importances: dict[str, dict[str, Any]], markdown: bool = False) -> str:
    """A table of :meth:`BoostedTrees.importances`: features by Gini importance (the column
    Hokamp & Arora report), with the split counts as a second column."""
    rows = sorted(importances.items(), key=lambda item: -(item[1].get("gini") or 0.0))
    head = ("feature", "Gini importance", "splits")
    lines = []
    for name, values in rows:
        gini = "n/a" if values.get("gini") is None else f"{values['gini']:.4f}"
        lines.append((name, gini, str(values.get("splits", ""))))
    if markdown:
        from parasent.support.tables import markdown_table

        return markdown_table(head, lines)
    width = max(len(r[0]) for r in [head, *lines])
    return "\n".join(f"{r[0]:<{width}}  {r[1]:>15}  {r[2]:>6}" for r in [head, *lines])
