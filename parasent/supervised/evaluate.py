"""Scoring a sentence encoder plus head on a task split: Pearson, Spearman and MSE of the
predicted relatedness ``r^T p`` (SICK), or accuracy of the most probable class."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from torch import nn

from parasent.core.output import as_matrix
from parasent.evaluation.metrics import accuracy, mean_squared_error, pearson, spearman
from parasent.supervised.heads import run_head
from parasent.supervised.tasks import Examples, SupervisedTask, load_examples
from parasent.support.paths import resolve_data_dir


@dataclass
class TaskReport:
    """Metrics of one split; ``primary_metric`` (``<split>_<metric>``) is what selection uses."""

    task: str
    split: str
    n: int
    metrics: dict[str, float]
    primary_metric: str
    model: str = ""

    @property
    def primary(self) -> float:
        return self.metrics[self.primary_metric.split("_", 1)[1]]

    def log_values(self) -> dict[str, float]:
        return {f"{self.split}_{k}": v for k, v in self.metrics.items()}

    def to_dict(self) -> dict[str, Any]:
        return {"task": self.task, "split": self.split, "n": self.n, "model": self.model, **self.metrics}

    def format_table(self) -> str:
        return format_reports([self], model=self.model)


def format_reports(reports: list[TaskReport], model: str = "") -> str:
    """Reports of one task (e.g. dev and test) as one table; correlations and accuracy x100."""
    names = list(reports[0].metrics)
    head = f"{'task':<18} {'split':<6} {'n':>6} " + " ".join(f"{m:>9}" for m in names)
    lines = [f"model: {model}"] if model else []
    lines += [head, "-" * len(head)]
    for r in reports:
        lines.append(
            f"{r.task:<18} {r.split:<6} {r.n:>6} "
            + " ".join(f"{r.metrics[m]:9.4f}" if m == "mse" else f"{r.metrics[m]:9.2f}" for m in names)
        )
    return "\n".join(lines)


def score_predictions(task: SupervisedTask, log_probs: np.ndarray, targets: np.ndarray) -> dict[str, float]:
    """The task's metrics (correlations and accuracy x100, MSE on the gold scale)."""
    if task.loss == "kl":
        predicted = np.exp(log_probs.astype(np.float64)) @ np.arange(1, task.classes + 1)
        return {
            "pearson": pearson(predicted, targets),
            "spearman": spearman(predicted, targets),
            "mse": mean_squared_error(predicted, targets),
        }
    return {"accuracy": accuracy(log_probs.argmax(axis=1), targets)}


class TaskEvaluator:
    """Loads a split once; ``evaluator(model, head)`` encodes with ``model.encode`` (any
    encoder with ``encode``, e.g. the Trainer's) and returns a :class:`TaskReport`."""

    def __init__(
        self,
        task: SupervisedTask,
        split: str = "dev",
        data_dir: str | Path | None = None,
        *,
        examples: Examples | None = None,
        batch_size: int = 1024,
    ) -> None:
        self.task = task
        self.split = split
        self.batch_size = batch_size
        self.examples = (
            examples if examples is not None else load_examples(task, split, resolve_data_dir(data_dir))
        )
        unique: dict[str, int] = {}
        for side in self.examples.sides:
            for text in side:
                unique.setdefault(text, len(unique))
        self.sentences = list(unique)
        self._rows = [np.array([unique[t] for t in side], dtype=np.int64) for side in self.examples.sides]

    def log_probs(self, model: Any, head: nn.Module) -> np.ndarray:
        vectors = as_matrix(
            model.encode(self.sentences, batch_size=self.batch_size), finite=True, texts=self.sentences
        )
        return run_head(head, [vectors[rows] for rows in self._rows])

    def __call__(self, model: Any, head: nn.Module, *, name: str = "") -> TaskReport:
        metrics = score_predictions(self.task, self.log_probs(model, head), self.examples.targets)
        return TaskReport(
            self.task.name,
            self.split,
            len(self.examples),
            metrics,
            f"{self.split}_{self.task.primary_metric}",
            name,
        )
