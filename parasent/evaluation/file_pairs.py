"""A model scored on a user's own pairs: ``parasent evaluate --pairs FILE[:FORMAT]``,
``evaluate(model, "FILE:FORMAT")``, and the held-out part of a fine-tuning run's pairs.

What the pairs carry decides the figures (the first is the primary one, which selects epochs):

- scores (``score<TAB>s1<TAB>s2``, format ``sts``): Pearson and Spearman x100 of cosine against
  the scores, as the STS suites report them;
- labels (``label<TAB>s1<TAB>s2``, format ``labelled``, 1 = paraphrase): average precision and
  ROC AUC x100 of ranking the paraphrases first by cosine, and the cosine threshold with the best
  F1 (with its precision, recall and accuracy): what to set to decide pairs;
- nothing (``s1<TAB>s2``, format ``tsv``, every pair a paraphrase): paraphrase retrieval, each
  first sentence ranking the second sentences of all the pairs: top-1 accuracy and mean
  reciprocal rank x100 (a block of rows at a time, so memory stays bounded).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from parasent.core.inference import normalize_rows
from parasent.data.lines import ReadReport
from parasent.data.records import TrainingPair
from parasent.evaluation.metrics import average_precision, best_f1, pearson, roc_auc, spearman
from parasent.support.tables import format_rows

RETRIEVAL_BLOCK = 2048  # first sentences ranked at once
HELD_OUT = "held-out"  # a run's --validation: a share of its own training pairs (not a file)


@dataclass
class PairsReport:
    """The figures of one set of pairs; ``primary_metric`` names the one that selects epochs."""

    name: str
    kind: str  # "scored", "labelled" or "retrieval"
    n: int
    figures: dict[str, float]
    primary_metric: str
    model: str = ""
    skipped: list[str] = field(default_factory=list)

    @property
    def primary(self) -> float:
        return self.figures[self.primary_metric]

    def log_values(self) -> dict[str, float]:
        return dict(self.figures)

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model, "pairs": self.name, "kind": self.kind, "n": self.n,
            "primary_metric": self.primary_metric, "figures": self.figures, "skipped": self.skipped,
        }  # fmt: skip

    def format_table(self) -> str:
        head = f"model: {self.model}  pairs: {self.name} ({self.n} {self.kind} pairs)"
        rows = [[name.replace("_", " "), _shown(name, value)] for name, value in self.figures.items()]
        rows[list(self.figures).index(self.primary_metric)][0] += "  <- headline"
        return "\n".join([head, format_rows(["figure", "value"], rows), *self.skipped])


def _shown(name: str, value: float) -> str:
    return f"{value:.4f}" if name == "threshold" else f"{value:.2f}"


def kind_of(pairs: Sequence[TrainingPair]) -> str:
    """``retrieval`` (no scores), ``labelled`` (scores all 0 or 1) or ``scored``."""
    scores = [p.score for p in pairs]
    if all(s is None for s in scores):
        return "retrieval"
    if any(s is None for s in scores):
        raise ValueError("pairs mix scored and unscored lines: evaluate them as separate files")
    return "labelled" if set(scores) <= {0.0, 1.0} else "scored"


class PairsEvaluator:
    """Scores models on ``pairs`` (loaded once); called like the suite evaluator."""

    def __init__(self, pairs: Sequence[TrainingPair], name: str = "pairs", *, batch_size: int = 1024) -> None:
        if len(pairs) < 2:
            raise ValueError(f"{name}: {len(pairs)} pair(s); a figure needs at least 2")
        self.pairs, self.name, self.batch_size = list(pairs), name, batch_size
        self.kind = kind_of(self.pairs)
        self.skipped: list[str] = []

    def __call__(self, model: Any, *, name: str = "") -> PairsReport:
        first = _unit(model, [p.s1 for p in self.pairs], self.batch_size)
        second = _unit(model, [p.s2 for p in self.pairs], self.batch_size)
        if self.kind == "retrieval":
            figures, primary = retrieval(first, second), "top1_accuracy"
        else:
            cosines = np.einsum("ij,ij->i", first, second)
            gold = np.array([p.score for p in self.pairs], dtype=np.float64)
            figures, primary = _graded(cosines, gold, self.kind)
        return PairsReport(self.name, self.kind, len(self.pairs), figures, primary, name, self.skipped)


def _unit(model: Any, texts: list[str], batch_size: int) -> np.ndarray:
    return normalize_rows(np.asarray(model.encode(texts, batch_size=batch_size), dtype=np.float32))


def _graded(cosines: np.ndarray, gold: np.ndarray, kind: str) -> tuple[dict[str, float], str]:
    if kind == "scored":
        return {"pearson": pearson(cosines, gold), "spearman": spearman(cosines, gold)}, "pearson"
    figures = {"average_precision": average_precision(cosines, gold), "roc_auc": roc_auc(cosines, gold)}
    decided = best_f1(cosines, gold)
    figures.update({k if k == "threshold" else f"{k}_at_threshold": v for k, v in decided.items()})
    return figures, "average_precision"


def retrieval(first: np.ndarray, second: np.ndarray) -> dict[str, float]:
    """Each row of ``first`` ranks every row of ``second`` (unit vectors); its own pair's is
    the right answer: top-1 accuracy and mean reciprocal rank x100 (ties counted against)."""
    hits, reciprocal = 0, 0.0
    for start in range(0, len(first), RETRIEVAL_BLOCK):
        block = first[start : start + RETRIEVAL_BLOCK] @ second.T
        rows = np.arange(len(block))
        own = block[rows, start + rows]
        rank = (block >= own[:, None]).sum(axis=1)  # 1 when the own pair is strictly first
        hits += int((rank == 1).sum())
        reciprocal += float((1.0 / rank).sum())
    return {"top1_accuracy": hits / len(first) * 100, "mrr": reciprocal / len(first) * 100}


def sniff_format(path: str | Path, lines: int = 1000) -> str:
    """The pair format of a file whose ``:FORMAT`` was not given: ``tsv`` for two fields,
    ``labelled`` when the first field is 0 or 1 on every line read, ``sts`` when it is a number."""
    from parasent.data.lines import LineReader

    seen: set[str] = set()
    fields = 0
    for number, text in LineReader(path):
        if not text.strip():
            continue
        parts = text.split("\t")
        fields = max(fields, len(parts))
        seen.add(parts[0].strip())
        if number >= lines:
            break
    if fields < 3:
        return "tsv"
    if seen <= {"0", "1"}:
        return "labelled"
    try:
        [float(value) for value in seen if value]
    except ValueError:
        return "tsv"
    return "sts"


def names_a_file(spec: str | None) -> bool:
    """Whether a ``--validation`` value names a file of pairs: not a suite or data set of the
    registry, not ``held-out`` and not None."""
    from parasent.data.catalog import SIMILARITY, SUITES

    return spec is not None and spec != HELD_OUT and spec not in SUITES and spec not in SIMILARITY


def read_pairs(spec: str, *, lenient: bool = False) -> tuple[list[TrainingPair], str, ReadReport]:
    """The pairs of ``FILE[:FORMAT]`` for evaluation (labelled files keep every label), the
    name they are reported under, and how their lines were read."""
    from parasent.data.pools import read_pair_file, split_pair_spec

    path, fmt = split_pair_spec(spec, default=None)
    fmt = fmt or sniff_format(path)
    report = ReadReport()
    pairs = list(read_pair_file(path, fmt, lenient=lenient, report=report, ranked=True))
    return pairs, f"{Path(path).name}:{fmt}", report


def evaluate_pairs(model: Any, spec: str, *, name: str = "", lenient: bool = False) -> PairsReport:
    """``model`` on the pairs of file ``FILE[:FORMAT]`` (format tsv, labelled or sts; sniffed
    from the file when not given)."""
    pairs, label, report = read_pairs(spec, lenient=lenient)
    evaluator = PairsEvaluator(pairs, label)
    evaluator.skipped = [report.summary()] if report.skipped else []
    return evaluator(model, name=name)
