"""A classifier scored on a user's own labelled file: ``parasent head evaluate MODEL --data FILE``.

The dev figure a head run prints was measured on a share of its own training file; what a user
needs before trusting a classifier is its figures on texts they labelled themselves: accuracy,
macro F1 (every class weighs the same, so a rare class the classifier never predicts shows,
where accuracy hides it) and the confusion matrix (which classes it mixes up). Predicting is the
numpy path of ``parasent.load(classifier)`` (:class:`SupervisedModel`): no torch.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from parasent.errors import OptionError
from parasent.evaluation.metrics import accuracy, confusion_matrix, macro_f1
from parasent.supervised.model import SupervisedModel
from parasent.supervised.tasks import file_examples
from parasent.support.lines import ReadReport
from parasent.support.tables import format_rows


@dataclass
class ClassifierReport:
    """A classifier's figures on one file: accuracy and macro F1 x100, and the confusion matrix
    (row: the file's label, column: the prediction; both in the order of ``labels``)."""

    data: str
    model: str
    labels: tuple[str, ...]
    accuracy: float
    macro_f1: float
    confusion: np.ndarray
    skipped: str = ""  # what a lenient read left out (ReadReport.summary), shown under the table

    @property
    def n(self) -> int:
        return int(self.confusion.sum())

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "data": self.data,
            "n": self.n,
            "labels": list(self.labels),
            "accuracy": self.accuracy,
            "macro_f1": self.macro_f1,
            "confusion_matrix": self.confusion.tolist(),
            "skipped": self.skipped,
        }

    def format_table(self) -> str:
        head = f"model: {self.model}  data: {self.data} ({self.n} texts, {len(self.labels)} classes)"
        figures = format_rows(["figure", "value"], [["accuracy", self.accuracy], ["macro F1", self.macro_f1]])
        rows = [
            [label, *(int(v) for v in row), int(row.sum())]
            for label, row in zip(self.labels, self.confusion, strict=True)
        ]
        matrix = format_rows(
            ["label \\ predicted", *self.labels, "texts"],
            rows,
            title="confusion matrix (rows: the file's label, columns: the prediction)",
        )
        return "\n".join([head, figures, "", matrix, *([self.skipped] if self.skipped else [])])


def score_file(
    model: SupervisedModel, path: str | Path, *, name: str = "", lenient: bool = False
) -> ClassifierReport:
    """``model`` (a classifier of one text) on the ``text<TAB>label`` lines of ``path``; a label
    the classifier does not know is one error naming it (and the classes it knows)."""
    task = model.task
    if task.kind != "sentence" or task.loss != "nll":
        raise OptionError(
            f"{name or 'the model'}: its head is {task.name} ({'pairs' if task.kind == 'pair' else 'scores'}), "
            "not a classifier of one text; --data scores a classifier (score it on its task: --split)"
        )
    read = ReadReport()
    examples, labels = file_examples(
        path, task.labels, lenient=lenient, known_as="the classifier's classes", report=read
    )
    predicted = model.probabilities(examples.sides[0]).argmax(axis=1)
    return ClassifierReport(
        str(path),
        name,
        labels,
        accuracy(predicted, examples.targets),
        macro_f1(predicted, examples.targets, len(labels)),
        confusion_matrix(predicted, examples.targets, len(labels)),
        read.summary() if read.skipped else "",
    )
