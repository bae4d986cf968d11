"""Paired significance tests between two models on the same pairs: the Wilcoxon signed-rank
test on per-pair errors (or on the paired scores themselves, as Kenter et al. 2016 do), per
dataset of a suite (:func:`significance_report`, ``parasent analyze significance``).

Cosines and gold scores live on different scales, so errors need a map from cosine to the
gold scale. ``fit`` (default) uses, per model and dataset, the least-squares line from cosine
to gold: the absolute residuals are the errors of the best linear reading of the model's
cosines, the quantity Pearson's r summarises (r^2 = 1 - SS_res / SS_tot). ``affine`` maps
cosine [-1, 1] onto the gold range [min, max] of the dataset, the same for every model.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import stats

from parasent.evaluation.evaluator import SimilarityEvaluator
from parasent.evaluation.metrics import pearson
from parasent.support.tables import format_rows

if TYPE_CHECKING:
    from parasent.core.model_spec import NamedModel

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
    dropped, Wilcoxon's original procedure); p = 1 when every difference is zero, never NaN."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"paired samples need the same shape, got {a.shape} and {b.shape}")
    if not np.any(a != b):
        return 0.0, 1.0
    result = stats.wilcoxon(a, b, zero_method="wilcox", alternative="two-sided")
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


@dataclass
class SignificanceReport:
    model_a: str
    model_b: str
    tests: list[PairedTest]
    alpha: float
    scale: str
    on: str

    def winner(self, test: PairedTest) -> str:
        if test.p_value >= self.alpha:
            return "-"
        return "A" if test.better == "a" else "B"

    def format_table(self, markdown: bool = False) -> str:
        rows = [
            [
                t.dataset,
                t.n,
                t.pearson_a,
                t.pearson_b,
                t.error_a,
                t.error_b,
                t.statistic,
                t.p_value,
                self.winner(t),
            ]
            for t in self.tests
        ]
        wins = [self.winner(t) for t in self.tests]
        footer = [
            f"A = {self.model_a}, B = {self.model_b}; Wilcoxon signed-rank on per-pair "
            f"{'absolute errors (cosine mapped to gold by ' + self.scale + ')' if self.on == 'errors' else 'scores'}; "
            f"significant at p < {self.alpha:g}: A better on {wins.count('A')}, B better on {wins.count('B')}, "
            f"no difference on {wins.count('-')} of {len(wins)} sets"
        ]
        return format_rows(
            ["dataset", "n", "r A", "r B", "MAE A", "MAE B", "W", "p", "better"],
            rows,
            digits=[2, 0, 2, 2, 3, 3, 0, 4, 0],
            footer=footer,
            markdown=markdown,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "model_a": self.model_a,
            "model_b": self.model_b,
            "alpha": self.alpha,
            "scale": self.scale,
            "on": self.on,
            "tests": [{**t.to_dict(), "significant_winner": self.winner(t)} for t in self.tests],
        }


def significance_report(
    model_a: NamedModel,
    model_b: NamedModel,
    evaluator: SimilarityEvaluator,
    *,
    scale: str = "fit",
    on: str = "errors",
    alpha: float = 0.05,
) -> SignificanceReport:
    a, b = evaluator.predictions(model_a.model), evaluator.predictions(model_b.model)
    tests = [paired_test(n, a[n], b[n], evaluator.gold(n), scale=scale, on=on) for n in evaluator.pairs]
    return SignificanceReport(model_a.label, model_b.label, tests, alpha, scale, on)
