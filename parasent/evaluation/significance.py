"""Paired significance tests between two models on the same pairs: the Wilcoxon signed-rank
test on per-pair errors (or on the paired scores themselves, as Kenter et al. 2016 do).

Cosines and gold scores live on different scales, so errors need a map from cosine to the
gold scale. ``fit`` (default) uses, per model and dataset, the least-squares line from cosine
to gold: the absolute residuals are the errors of the best linear reading of the model's
cosines, the quantity Pearson's r summarises (r^2 = 1 - SS_res / SS_tot). ``affine`` maps
cosine [-1, 1] onto the gold range [min, max] of the dataset, the same for every model.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy import stats

from parasent.evaluation.metrics import pearson

ERROR_SCALES = ("fit", "affine")
TESTED = ("errors", "scores")


def per_pair_errors(predicted: np.ndarray, gold: np.ndarray, scale: str = "fit") -> np.ndarray:
    """Absolute error of each pair after mapping ``predicted`` onto the gold scale."""
    predicted, gold = np.asarray(predicted, dtype=np.float64), np.asarray(gold, dtype=np.float64)
    if scale == "fit":
        if np.ptp(predicted) == 0:
            mapped = np.full_like(gold, gold.mean())
        else:
            slope, intercept = np.polyfit(predicted, gold, 1)
            mapped = slope * predicted + intercept
    elif scale == "affine":
        low, high = float(gold.min()), float(gold.max())
        mapped = low + (high - low) * (np.clip(predicted, -1, 1) + 1) / 2
    else:
        raise ValueError(f"scale must be one of {ERROR_SCALES}, got {scale!r}")
    return np.abs(mapped - gold)


def wilcoxon(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Two-sided Wilcoxon signed-rank statistic and p-value of ``a - b`` (zero differences
    dropped); p = 1 when every difference is zero."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if len(a) != len(b):
        raise ValueError(f"paired samples need equal lengths, got {len(a)} and {len(b)}")
    if not np.any(a != b):
        return 0.0, 1.0
    result = stats.wilcoxon(a, b)
    return float(result.statistic), float(result.pvalue)


@dataclass
class PairedTest:
    dataset: str
    n: int
    pearson_a: float
    pearson_b: float
    error_a: float  # mean absolute error on the gold scale
    error_b: float
    statistic: float
    p_value: float

    @property
    def better(self) -> str:
        """``a`` or ``b``: the lower mean error (``scores`` tests: the higher Pearson)."""
        return "a" if self.error_a < self.error_b else "b"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "better": self.better}


def paired_test(
    name: str,
    predicted_a: np.ndarray,
    predicted_b: np.ndarray,
    gold: np.ndarray,
    *,
    scale: str = "fit",
    on: str = "errors",
) -> PairedTest:
    """Compare two models' predictions for the same pairs of one dataset."""
    if on not in TESTED:
        raise ValueError(f"on must be one of {TESTED}, got {on!r}")
    error_a, error_b = per_pair_errors(predicted_a, gold, scale), per_pair_errors(predicted_b, gold, scale)
    statistic, p = wilcoxon(error_a, error_b) if on == "errors" else wilcoxon(predicted_a, predicted_b)
    return PairedTest(
        name,
        len(gold),
        pearson(predicted_a, gold),
        pearson(predicted_b, gold),
        float(error_a.mean()),
        float(error_b.mean()),
        statistic,
        p,
    )
