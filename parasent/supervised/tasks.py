"""The supervised tasks, declared as metadata: where their splits are and what they predict.

``sick-relatedness`` (Marelli et al. 2014): a score in [1, 5] per pair, predicted as the
expectation of a distribution over K = 5 classes and trained with the KL loss of Tai et al.
(2015); reported as Pearson, Spearman and MSE. ``sick-entailment``: 3 classes, NLL, accuracy.
``sst-binary`` (Socher et al. 2013): one sentence, 2 classes, NLL, accuracy. Model selection
uses the ``dev`` split (SICK trial, SST dev), the reported figures the ``test`` split.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from parasent.data.readers.line_shapes import is_number
from parasent.data.readers.sick import ENTAILMENT_LABELS
from parasent.data.registry import DataRecord
from parasent.data.registry.catalog import TASK_DATA
from parasent.errors import DataNotFoundError
from parasent.support.lines import ReadReport

SPLITS = ("train", "dev", "test")


@dataclass(frozen=True)
class SupervisedTask:
    """``kind`` is ``pair`` (two sentences in) or ``sentence``; ``loss`` is ``kl`` (a graded
    score in [1, classes], Eq. 2 of Wieting et al.) or ``nll`` (a class label). The data of
    each split is a record of the registry (:data:`parasent.data.registry.catalog.TASK_DATA`)."""

    name: str
    kind: str
    loss: str
    classes: int
    labels: tuple[str, ...]
    splits: dict[str, str]  # split -> record name in TASK_DATA
    primary_metric: str
    description: str = ""

    @property
    def metrics(self) -> tuple[str, ...]:
        return ("pearson", "spearman", "mse") if self.loss == "kl" else ("accuracy",)

    def data(self, split: str) -> DataRecord:
        if split not in self.splits:
            raise KeyError(f"unknown split {split!r} for {self.name} (known: {', '.join(self.splits)})")
        return TASK_DATA[self.splits[split]]

    @property
    def files(self) -> dict[str, str]:
        """split -> the path of its file, relative to the data directory."""
        return {split: self.data(split).files[0] for split in self.splits}


@dataclass
class Examples:
    """The sentences of a split, ``sides`` lists of equal length (one per input sentence),
    and the targets: float scores (``kl``) or int class indices (``nll``)."""

    sides: list[list[str]]
    targets: np.ndarray
    path: str = ""

    def __len__(self) -> int:
        return len(self.targets)

    def subsample(self, limit: int | None, seed: int) -> Examples:
        """A seeded subsample of ``limit`` examples in their file order (for reduced runs)."""
        if limit is None or limit >= len(self):
            return self
        keep = np.sort(np.random.default_rng([seed, 11]).choice(len(self), size=limit, replace=False))
        return Examples([[side[i] for i in keep] for side in self.sides], self.targets[keep], self.path)


_SICK = {split: f"sick2014/{split}-pairs" for split in SPLITS}

TASKS: dict[str, SupervisedTask] = {
    task.name: task
    for task in [
        SupervisedTask(
            "sick-relatedness",
            "pair",
            "kl",
            5,
            ("1", "2", "3", "4", "5"),
            _SICK,
            "pearson",
            "SICK relatedness score 1-5 (Pearson, Spearman, MSE)",
        ),
        SupervisedTask(
            "sick-entailment",
            "pair",
            "nll",
            3,
            ENTAILMENT_LABELS,
            _SICK,
            "accuracy",
            "SICK entailment: NEUTRAL / ENTAILMENT / CONTRADICTION (accuracy)",
        ),
        SupervisedTask(
            "sst-binary",
            "sentence",
            "nll",
            2,
            ("negative", "positive"),
            {split: f"sst2/{split}" for split in SPLITS},
            "accuracy",
            "Stanford Sentiment Treebank, binary (accuracy)",
        ),
    ]
}


def classification_task(name: str, labels: Sequence[str]) -> SupervisedTask:
    """A sentence classifier over ``labels`` (a user's own classes, ``head train --data``): the
    path of ``sst-binary`` with the classes its data names; its splits come from files."""
    if len(labels) < 2:
        raise ValueError(
            f"{name}: {len(labels)} class(es) ({', '.join(labels)}); a classifier needs at least 2"
        )
    return SupervisedTask(
        name,
        "sentence",
        "nll",
        len(labels),
        tuple(labels),
        {},
        "accuracy",
        f"{len(labels)} classes of {name}",
    )


def task_from_info(info: dict) -> SupervisedTask:
    """The task a saved head was trained for: a classifier of the labels of a user's file (its
    info says so, whatever the file's name), or a registered task."""
    name = str(info.get("task", ""))
    if info.get("classes_from") == "file" or name not in TASKS:
        return classification_task(name, [str(label) for label in info["labels"]])
    return TASKS[name]


def file_examples(
    path: str | Path,
    labels: Sequence[str] | None = None,
    *,
    lenient: bool = False,
    known_as: str = "the training labels",
    report: ReadReport | None = None,
) -> tuple[Examples, tuple[str, ...]]:
    """The ``text<TAB>label`` lines of a user's file as examples, and the classes their targets
    index: ``labels`` where given (a validation file, or a file a classifier is scored on: a
    label not among them is an error naming it, and them as ``known_as``), else the file's own,
    sorted. ``report`` hears the lines a lenient read skipped."""
    from parasent.data.readers.sentiment import read_text_labels

    rows = list(read_text_labels(path, lenient=lenient, report=report))
    if not rows:
        raise DataNotFoundError(f"{path}: no 'text<TAB>label' lines")
    classes = tuple(labels) if labels is not None else tuple(sorted({row.label for row in rows}))
    if labels is None:
        check_classes(path, [row.label for row in rows], classes)
    unknown = sorted({row.label for row in rows} - set(classes))
    if unknown:
        raise DataNotFoundError(
            f"{path}: label(s) {', '.join(map(repr, unknown[:5]))}{f' and {len(unknown) - 5} more' if len(unknown) > 5 else ''} "
            f"not among {known_as} ({', '.join(classes)})"
        )
    index = {label: i for i, label in enumerate(classes)}
    targets = np.array([index[row.label] for row in rows], dtype=np.int64)
    return Examples([[row.text for row in rows]], targets, str(path)), classes


FEW_PER_CLASS = 5  # training texts per class below which a run is told it will learn little


def sparse_classes_note(targets: np.ndarray, classes: int) -> str | None:
    """A word before a run that cannot learn much: more than two classes with fewer than
    :data:`FEW_PER_CLASS` training texts each on average (10,000 classes of 3 texts trained 130 s
    to 0.08% accuracy without a word)."""
    per_class = len(targets) / max(classes, 1)
    if classes <= 2 or per_class >= FEW_PER_CLASS:
        return None
    return (
        f"warning: {classes:,} classes with {per_class:.1f} training texts each on average: a classifier "
        f"learns little from so few (chance is {100 / classes:.2g}%); merge classes or bring at least "
        f"{FEW_PER_CLASS} texts a class"
    )


MAX_NUMERIC_CLASSES = 10  # more decimal "labels" than this are a score column (0.5, 3.7, ...)


def check_classes(path: str | Path, labels: Sequence[str], classes: Sequence[str]) -> None:
    """Refuse a file whose labels are not classes: most labels occurring once (598 classes for
    600 texts passed a guard of "every label once"), said as scores when they read as numbers."""
    counts: dict[str, int] = {}
    for label in labels:
        counts[label] = counts.get(label, 0) + 1
    once = sum(1 for count in counts.values() if count == 1)
    numeric = all(is_number(label) for label in classes)
    graded = numeric and len(classes) > MAX_NUMERIC_CLASSES and any("." in label for label in classes)
    if not graded and (len(classes) <= 2 or once * 2 <= len(classes)):
        return
    what = (
        "they read as numbers: scores, not classes (a similarity score belongs to a pairs file, :sts); "
        if numeric
        else ""
    )
    raise DataNotFoundError(
        f"{path}: {len(classes)} classes for {len(labels)} texts, {once} of them named once; {what}a classifier "
        "needs several texts per class (lines are 'text<TAB>label')"
    )


def split_examples(examples: Examples, share: float, seed: int) -> tuple[Examples, Examples]:
    """``(training, held out)``: about ``share`` of the distinct texts of each class held out
    (seeded; a rare class is held out in proportion, never wholly), every copy of a text on one
    side, so the held-out figure is on texts never trained on."""
    texts = examples.sides[0]
    first_label = dict(zip(texts, examples.targets.tolist(), strict=True))
    rng = np.random.default_rng([seed, 13])
    held_texts: set[str] = set()
    for label in sorted(set(first_label.values())):
        distinct = [t for t, y in first_label.items() if y == label]
        count = min(len(distinct) - 1, max(1, round(share * len(distinct))))
        held_texts.update(distinct[k] for k in rng.permutation(len(distinct))[:count])
    held = np.array([t in held_texts for t in texts])

    def part(mask: np.ndarray) -> Examples:
        return Examples(
            [[t for t, m in zip(texts, mask, strict=True) if m]], examples.targets[mask], examples.path
        )

    return part(~held), part(held)


def task_by_name(name: str) -> SupervisedTask:
    try:
        return TASKS[name]
    except KeyError:
        raise KeyError(f"unknown task {name!r} (known: {', '.join(TASKS)})") from None


def load_examples(task: SupervisedTask, split: str, data_dir: str | Path) -> Examples:
    """Read one split of ``task`` from the data directory, strictly (``path:line`` errors)."""
    record = task.data(split)
    path = Path(data_dir) / record.files[0]
    if not path.is_file():
        raise DataNotFoundError(f"{path}: missing ({task.name} {split} split)")
    items = record.load(data_dir)
    if task.kind == "pair":
        sides = [[p.s1 for p in items], [p.s2 for p in items]]
        if task.loss == "kl":
            targets = np.array([p.relatedness for p in items], dtype=np.float64)
        else:
            targets = np.array([task.labels.index(p.entailment) for p in items], dtype=np.int64)
        return Examples(sides, targets, str(path))
    return Examples([[r.text for r in items]], np.array([r.label for r in items], dtype=np.int64), str(path))
