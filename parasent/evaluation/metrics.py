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


def average_precision(scores: np.ndarray, labels: np.ndarray) -> float:
    """Average precision x100 of ranking the positives (``labels`` 1) first by ``scores``
    (tied scores ranked together: each tie group counts at its end), 0 without positives."""
    scores, labels = np.asarray(scores, dtype=np.float64), np.asarray(labels) == 1
    if not labels.any():
        return 0.0
    order = np.argsort(-scores, kind="mergesort")
    ordered, hits = scores[order], labels[order]
    ends = np.r_[np.flatnonzero(ordered[1:] != ordered[:-1]), len(ordered) - 1]  # last of each tie group
    found = np.cumsum(hits)[ends]
    gained = np.diff(np.r_[0, found])
    return float(np.sum(gained * found / (ends + 1)) / labels.sum() * 100)


def roc_auc(scores: np.ndarray, labels: np.ndarray) -> float:
    """Area under the ROC curve x100 (the chance that a positive outscores a negative, ties
    half), 0 when one class is missing."""
    labels = np.asarray(labels) == 1
    positives, negatives = int(labels.sum()), int((~labels).sum())
    if not positives or not negatives:
        return 0.0
    ranks = average_ranks(scores)
    return float((ranks[labels].sum() - positives * (positives + 1) / 2) / (positives * negatives) * 100)


def precision_recall_curve(scores: np.ndarray, labels: np.ndarray) -> dict[str, np.ndarray]:
    """At each distinct score from the highest down (a pair is called a paraphrase from it up):
    ``thresholds``, ``precision`` and ``recall`` (fractions), and the ``true_positives`` and
    ``predicted`` counts they come from (tied scores decided together)."""
    scores, labels = np.asarray(scores, dtype=np.float64), np.asarray(labels) == 1
    order = np.argsort(-scores, kind="mergesort")
    ordered, hits = scores[order], labels[order]
    ends = np.r_[np.flatnonzero(ordered[1:] != ordered[:-1]), len(ordered) - 1]
    true_pos = np.cumsum(hits)[ends].astype(np.float64)
    predicted = ends + 1.0
    return {
        "thresholds": ordered[ends],
        "precision": true_pos / predicted,
        "recall": true_pos / max(int(labels.sum()), 1),
        "true_positives": true_pos,
        "predicted": predicted,
    }


def best_f1(scores: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    """The threshold on ``scores`` (a pair is a paraphrase from it up) with the best F1, and
    that F1, precision, recall and accuracy x100: what to set for deciding pairs."""
    labels = np.asarray(labels) == 1
    curve = precision_recall_curve(scores, labels)
    precision, recall = curve["precision"], curve["recall"]
    f1 = np.where(precision + recall > 0, 2 * precision * recall / np.maximum(precision + recall, 1e-12), 0.0)
    best = int(np.argmax(f1))
    true_pos, predicted = curve["true_positives"][best], curve["predicted"][best]
    correct = true_pos + (len(labels) - labels.sum()) - (predicted - true_pos)
    return {
        "threshold": float(curve["thresholds"][best]),
        "f1": float(f1[best] * 100),
        "precision": float(precision[best] * 100),
        "recall": float(recall[best] * 100),
        "accuracy": float(correct / len(labels) * 100),
    }


def macro_f1(predicted: np.ndarray, gold: np.ndarray, classes: int) -> float:
    """The mean over ``classes`` of each class's F1 x100 (a class neither predicted nor present
    counts 0, as scikit-learn's ``zero_division=0``): every class weighs the same, however rare."""
    matrix = confusion_matrix(predicted, gold, classes)
    true_pos = np.diag(matrix).astype(np.float64)
    called, present = matrix.sum(axis=0), matrix.sum(axis=1)
    denominator = called + present
    f1 = np.divide(2 * true_pos, denominator, out=np.zeros(classes), where=denominator > 0)
    return float(f1.mean() * 100)


def confusion_matrix(predicted: np.ndarray, gold: np.ndarray, classes: int) -> np.ndarray:
    """``(classes, classes)`` counts: row the gold class, column the predicted one (scikit-learn's order)."""
    matrix = np.zeros((classes, classes), dtype=np.int64)
    np.add.at(matrix, (np.asarray(gold, dtype=np.int64), np.asarray(predicted, dtype=np.int64)), 1)
    return matrix
