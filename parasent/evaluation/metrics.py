"""Correlation metrics (x100, as the papers report them), in numpy alone: evaluation is part
of the core install, which has no scipy."""

from __future__ import annotations

import numpy as np


def _defined(x: np.ndarray, y: np.ndarray) -> bool:
    return len(x) >= 2 and np.ptp(x) > 0 and np.ptp(y) > 0


def pearson(predicted: np.ndarray, gold: np.ndarray) -> float:
    """Pearson r x 100; 0 when either side is constant (the correlation is undefined, never NaN)."""
    predicted, gold = np.asarray(predicted, dtype=np.float64), np.asarray(gold, dtype=np.float64)
    if not _defined(predicted, gold):
        return 0.0
    return _correlation(predicted, gold) * 100


def spearman(predicted: np.ndarray, gold: np.ndarray) -> float:
    """Spearman rho x 100; 0 when either side is constant."""
    predicted, gold = np.asarray(predicted, dtype=np.float64), np.asarray(gold, dtype=np.float64)
    if not _defined(predicted, gold):
        return 0.0
    return _correlation(average_ranks(predicted), average_ranks(gold)) * 100


def _correlation(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson's r of two non-constant float64 vectors, clipped to [-1, 1] against rounding."""
    x, y = x - x.mean(), y - y.mean()
    r = float(np.dot(x, y) / np.sqrt(np.dot(x, x) * np.dot(y, y)))
    return min(1.0, max(-1.0, r))


def average_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1..n with ties sharing their mean rank (Spearman's rho is Pearson's r of these)."""
    values = np.asarray(values, dtype=np.float64)
    order = np.argsort(values, kind="mergesort")
    ordered = values[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    ends = np.r_[starts[1:], len(values)]
    mean_rank = (starts + ends + 1) / 2.0  # ranks starts+1 .. ends share their mean
    ranks = np.empty(len(values), dtype=np.float64)
    ranks[order] = np.repeat(mean_rank, ends - starts)
    return ranks


def mean_squared_error(predicted: np.ndarray, gold: np.ndarray) -> float:
    """Mean of (predicted - gold)^2 on the gold scale (SICK reports it next to r and rho)."""
    predicted, gold = np.asarray(predicted, dtype=np.float64), np.asarray(gold, dtype=np.float64)
    return float(np.mean((predicted - gold) ** 2)) if len(gold) else 0.0


def accuracy(predicted: np.ndarray, gold: np.ndarray) -> float:
    """Percentage of exact label matches (x100, like the correlations)."""
    predicted, gold = np.asarray(predicted), np.asarray(gold)
    return float(np.mean(predicted == gold) * 100) if len(gold) else 0.0
