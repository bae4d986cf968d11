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


def mean_squared_error(predicted: np.ndarray, gold: np.ndarray) -> float:
    """Mean of (predicted - gold)^2 on the gold scale (SICK reports it next to r and rho)."""
    predicted, gold = np.asarray(predicted, dtype=np.float64), np.asarray(gold, dtype=np.float64)
    return float(np.mean((predicted - gold) ** 2)) if len(gold) else 0.0


def accuracy(predicted: np.ndarray, gold: np.ndarray) -> float:
    """Percentage of exact label matches (x100, like the correlations)."""
    predicted, gold = np.asarray(predicted), np.asarray(gold)
    return float(np.mean(predicted == gold) * 100) if len(gold) else 0.0
