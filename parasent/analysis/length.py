"""Performance by sentence length (Wieting et al. 2016, Table 7).

Footnote 19: "For each pair, we computed the number of tokens in each of the two pieces of
text, took the max, and then binned based on this value." Pearson's r is computed over the
pooled pairs of each bin (all datasets together). Bins: <= 4, 5, 6, 7, 8, 9, >= 10 by default.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from parasent.core.model_spec import NamedModel
from parasent.evaluation.evaluator import SimilarityEvaluator
from parasent.evaluation.file_pairs import MIN_FIGURE_PAIRS
from parasent.evaluation.metrics import pearson
from parasent.support.tables import format_rows
from parasent.text.tokenizer import pre_tokenize


def max_length(s1: str, s2: str) -> int:
    """Tokens of the longer sentence, counted with the models' own pre-tokenization."""
    return max(len(pre_tokenize(s1)), len(pre_tokenize(s2)))


def bin_labels(low: int, high: int) -> list[str]:
    return [f"<= {low}"] + [str(n) for n in range(low + 1, high)] + [f">= {high}"]


def bin_index(lengths: np.ndarray, low: int, high: int) -> np.ndarray:
    """0 for length <= low, then one bin per length, the last for length >= high."""
    return np.clip(lengths, low, high) - low


@dataclass
class LengthTable:
    datasets: list[str]
    labels: list[str]
    counts: list[int]
    scores: dict[str, list[float | None]] = field(default_factory=dict)  # model label -> Pearson per bin

    def format_table(self, markdown: bool = False) -> str:
        models = list(self.scores)
        rows = [
            [label, n, *(self.scores[m][i] for m in models)]
            for i, (label, n) in enumerate(zip(self.labels, self.counts, strict=True))
        ]
        title = (
            f"Pearson r x100 by the max number of tokens in a pair, pooled over {len(self.datasets)} sets "
            f"({sum(self.counts)} pairs; -: a bin of fewer than {MIN_FIGURE_PAIRS} pairs, or of one score, has no correlation)"
        )
        return format_rows(["max length", "pairs", *models], rows, title=title, markdown=markdown)

    def to_dict(self) -> dict[str, Any]:
        return {"datasets": self.datasets, "bins": self.labels, "pairs": self.counts, "pearson": self.scores}


def performance_by_length(
    models: list[NamedModel], evaluator: SimilarityEvaluator, *, low: int = 4, high: int = 10
) -> LengthTable:
    if not low < high:
        raise ValueError(f"the lowest bin edge ({low}) must be below the highest ({high})")
    names = list(evaluator.pairs)
    lengths = np.array([max_length(p.s1, p.s2) for n in names for p in evaluator.pairs[n]], dtype=np.int64)
    bins = bin_index(lengths, low, high)
    gold = np.concatenate([evaluator.gold(n) for n in names])
    labels = bin_labels(low, high)
    table = LengthTable(names, labels, [int((bins == b).sum()) for b in range(len(labels))])
    for named in models:
        predictions = evaluator.predictions(named.model)
        predicted = np.concatenate([predictions[n] for n in names])
        table.scores[named.label] = [
            _figure(predicted[bins == b], gold[bins == b]) for b in range(len(labels))
        ]
    return table


def _figure(predicted: np.ndarray, gold: np.ndarray) -> float | None:
    """A bin's Pearson, or None where it is undefined or luck (a correlation of 2 pairs is 100)."""
    if len(gold) < MIN_FIGURE_PAIRS or np.ptp(gold) == 0 or np.ptp(predicted) == 0:
        return None
    return pearson(predicted, gold)
