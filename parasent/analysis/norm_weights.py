"""How much of a trained model's gain is word weighting (Wieting et al. 2016, Sec. 6).

"We calculated a weight for each token in our working vocabulary simply by summing up the
absolute value of all components of its PARAGRAM-PHRASE vector. Then we multiplied each
weight by its corresponding PARAGRAM-SL999 word vector." The scaled initial vectors are
averaged like the initial ones (same words; unknown words skipped), so the only change is a
weight per word. The fraction of the improvement explained is ``(scaled - initial) /
(trained - initial)`` (the paper: 64.76%). A trained model whose vocabulary is larger than
the initial vectors' also gains from its extra words, which no weighting of the initial
vectors can reproduce; the share is therefore also given against the trained vectors of the
initial words alone (other words skipped, like the averaged baselines). The frequency
baseline weights each initial vector by the reciprocal of its relative frequency in the
training data (count 1 when unseen; the paper: 45.52 against 54.94 unweighted).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from parasent.analysis.words import word_table
from parasent.core.model import SentenceModel
from parasent.core.model_spec import NamedModel
from parasent.evaluation.evaluator import SimilarityEvaluator
from parasent.support.tables import format_rows
from parasent.text.tokenizer import UNK
from parasent.text.word_vectors import WordVectors


def trained_rows(initial: WordVectors, trained: NamedModel) -> tuple[np.ndarray, int]:
    """The trained vectors of the initial words, and how many words the trained model lacks
    (those take its unknown-word row)."""
    tokenizer = trained.model.tokenizer
    ids = [tokenizer.token_to_id(w) for w in initial.words]
    missing = sum(i is None for i in ids)
    unknown = tokenizer.token_to_id(UNK)
    return word_table(trained)[[unknown if i is None else i for i in ids]], missing


def norm_weights(initial: WordVectors, trained: NamedModel) -> tuple[np.ndarray, int]:
    """Per initial word, the L1 norm (sum of absolute components) of its trained vector."""
    rows, missing = trained_rows(initial, trained)
    return np.abs(rows).sum(axis=1).astype(np.float64), missing


def frequency_weights(initial: WordVectors, counts: Counter[str]) -> np.ndarray:
    """Reciprocal relative frequency in the training data; unseen words count 1."""
    total = max(sum(counts.values()), 1)
    return np.array([total / max(counts.get(w, 0), 1) for w in initial.words], dtype=np.float64)


def scaled(initial: WordVectors, weights: np.ndarray) -> SentenceModel:
    matrix = (initial.matrix * weights[:, None]).astype(np.float32)
    return SentenceModel.from_vectors(WordVectors(list(initial.words), matrix))


def _share(gain: float, total: float) -> float | None:
    return gain / total if total != 0 else None


@dataclass
class NormWeightReport:
    rows: list[tuple[str, float]]  # (description, suite mean)
    explained: float | None
    explained_same_words: float | None
    missing: int
    suite: str

    def format_table(self, markdown: bool = False) -> str:
        footer = []
        if self.explained is not None:
            footer.append(
                f"share of the trained model's improvement due to the weights: {100 * self.explained:.2f}%"
            )
        if self.explained_same_words is not None:
            footer.append(
                "share of the improvement of the trained vectors of the initial words alone: "
                f"{100 * self.explained_same_words:.2f}%"
            )
        if self.missing:
            footer.append(f"{self.missing} initial word(s) absent from the trained model took its [UNK] row")
        return format_rows(
            ["model", f"{self.suite} mean pearson"], self.rows, footer=footer, markdown=markdown
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "suite": self.suite,
            "scores": dict(self.rows),
            "explained": self.explained,
            "explained_same_words": self.explained_same_words,
            "missing": self.missing,
        }


def norm_weight_experiment(
    trained: NamedModel,
    initial: WordVectors,
    evaluator: SimilarityEvaluator,
    counts: Counter[str] | None = None,
) -> NormWeightReport:
    weights, missing = norm_weights(initial, trained)
    rows_of_initial_words, _ = trained_rows(initial, trained)
    base = evaluator(SentenceModel.from_vectors(initial)).primary
    model = evaluator(trained.model).primary
    same_words = evaluator(
        SentenceModel.from_vectors(WordVectors(list(initial.words), rows_of_initial_words))
    ).primary
    weighted = evaluator(scaled(initial, weights)).primary
    rows = [
        ("initial vectors, averaged", base),
        (f"trained: {trained.label}", model),
        ("trained vectors of the initial words only", same_words),
        ("initial vectors x L1 norm of trained vectors", weighted),
    ]
    if counts is not None:
        frequency = evaluator(scaled(initial, frequency_weights(initial, counts))).primary
        rows.append(("initial vectors x 1 / training frequency", frequency))
    return NormWeightReport(
        rows,
        _share(weighted - base, model - base),
        _share(weighted - base, same_words - base),
        missing,
        evaluator.suite,
    )
