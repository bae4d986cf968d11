"""Correlation metrics (x100, as the papers report them)."""

from __future__ import annotations

import numpy as np
from scipy import stats


def _defined(x: np.ndarray, y: np.ndarray) -> bool:
    return len(x) >= 2 and np.ptp(x) > 0 and np.ptp(y) > 0


def pearson(predicted: np.ndarray, gold: np.ndarray) -> float:
    """Pearson r x 100; 0 when either side is constant (the correlation is undefined, never NaN)."""
    predicted, gold = np.asarray(predicted, dtype=np.float64), np.asarray(gold, dtype=np.float64)
    if not _defined(predicted, gold):
        return 0.0
    return float(stats.pearsonr(predicted, gold)[0] * 100)


def spearman(predicted: np.ndarray, gold: np.ndarray) -> float:
    """Spearman rho x 100; 0 when either side is constant."""
    predicted, gold = np.asarray(predicted, dtype=np.float64), np.asarray(gold, dtype=np.float64)
    if not _defined(predicted, gold):
        return 0.0
    return float(stats.spearmanr(predicted, gold)[0] * 100)
