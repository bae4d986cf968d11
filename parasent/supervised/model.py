"""A sentence encoder with its supervised head: the directory a head run saves as ``RUN/model``
(the model files of :class:`SentenceModel` plus ``head.json`` and ``head.safetensors``)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from parasent.core.model import CONFIG_FILE, SentenceModel
from parasent.supervised.head_forward import read_head
from parasent.supervised.tasks import SupervisedTask, task_from_info


def model_directory(path: str | Path) -> Path:
    """A model directory, or a run directory's best model (``RUN/model``)."""
    path = Path(path)
    if not (path / CONFIG_FILE).is_file() and (path / "model" / CONFIG_FILE).is_file():
        return path / "model"
    return path


# what the sentence model does that a model with a head must not pass on: writing the sentence
# model without its head, or changing it under the head
NOT_PASSED_ON = frozenset({"save", "save_pretrained", "export", "to", "with_rows"})


class SupervisedModel:
    """``predict`` gives relatedness scores in [1, K] or class labels; ``predict_proba`` (or
    ``probabilities``) the head's distribution. The encoder alone is ``sentence_model``, and the
    model still encodes as it does (``encode``, ``similarity`` are the sentence model's)."""

    def __init__(
        self, sentence_model: SentenceModel, head: Any, task: SupervisedTask, info: dict | None = None
    ):
        self.sentence_model = sentence_model
        self.head = head
        self.task = task
        self.info = dict(info or {})

    @classmethod
    def load(cls, path: str | Path) -> SupervisedModel:
        directory = model_directory(path)
        sentence_model = SentenceModel.load(directory)
        head, info = read_head(directory, input_dim=sentence_model.dim)
        return cls(sentence_model, head, task_from_info(info), info)

    @property
    def classes_(self) -> np.ndarray:
        """The labels, in the order of :meth:`predict_proba`'s columns (scikit-learn's name)."""
        return np.array(self.task.labels)

    def predict_proba(self, first: Sequence[str], second: Sequence[str] | None = None) -> np.ndarray:
        """``(n, classes)`` probabilities, columns in the order of :attr:`classes_`."""
        return self.probabilities(first, second)

    def prediction_lines(
        self,
        rows: Iterable[list[str]],
        *,
        probabilities: bool = False,
        watches: Sequence[Callable[[list[str], np.ndarray], None]] = (),
    ) -> Iterator[str]:
        """What ``head predict`` prints: :func:`prediction_lines`."""
        return prediction_lines(self, rows, probabilities=probabilities, watches=watches)

    def __getattr__(self, name: str) -> Any:
        """The rest is the sentence model's: ``encode``, ``similarity``, ``search``... (not
        ``save`` or ``export``, which would write it without its head: :data:`NOT_PASSED_ON`)."""
        if name.startswith("_") or name == "sentence_model" or name in NOT_PASSED_ON:
            raise AttributeError(
                f"{type(self).__name__!r} has no attribute {name!r}"
                + (
                    " (it is its sentence model's: .sentence_model." + name + ", without the head)"
                    if name in NOT_PASSED_ON
                    else ""
                )
            )
        return getattr(self.sentence_model, name)

    def probabilities(
        self, first: Sequence[str] | str, second: Sequence[str] | str | None = None
    ) -> np.ndarray:
        sides = [_texts(first)] + ([_texts(second)] if second is not None else [])
        self.check_sides(sides)
        return self.probabilities_of([self.sentence_model.encode(side) for side in sides])

    def check_sides(self, sides: Sequence[Sequence[str]]) -> None:
        """The task's number of sentences per input (one, or two for a pair task), as many of each."""
        if len(sides) != (2 if self.task.kind == "pair" else 1):
            raise ValueError(
                f"{self.task.name} takes {'two sentences' if self.task.kind == 'pair' else 'one sentence'}"
            )
        if len(sides) == 2 and len(sides[0]) != len(sides[1]):
            raise ValueError(
                f"as many first as second sentences needed, got {len(sides[0])} and {len(sides[1])}"
            )

    def probabilities_of(self, vectors: Sequence[np.ndarray]) -> np.ndarray:
        """The head's distributions over the sentence vectors of each side."""
        return np.exp(self.head(*vectors).astype(np.float64))

    def predict(self, first: Sequence[str] | str, second: Sequence[str] | None = None) -> np.ndarray:
        """Relatedness ``r^T p`` (float array) for ``kl`` tasks, else label names (str array)."""
        return self.predictions_of(self.probabilities(first, second))

    def predictions_of(self, p: np.ndarray) -> np.ndarray:
        """:meth:`predict` from the head's distributions ``p``."""
        if self.task.loss == "kl":
            return p @ np.arange(1, self.task.classes + 1)
        return np.array(self.task.labels)[p.argmax(axis=1)]


def _texts(texts: Sequence[str] | str) -> list[str]:
    """A list of texts; one string is one text (not its characters)."""
    return [texts] if isinstance(texts, str) else list(texts)


def read_inputs(spec: str, task: SupervisedTask) -> Iterator[list[str]]:
    """The inputs of ``head predict``, one a line of file ``spec`` (``-``: stdin): a text, or
    ``s1<TAB>s2`` for a pair task (a line without its tab is an error naming it)."""
    import sys

    from parasent.support.lines import LineReader

    handle = sys.stdin.buffer if spec == "-" else None
    reader = LineReader("<stdin>" if spec == "-" else spec, handle=handle, stream_ok=True)
    for number, line in reader:
        if task.kind != "pair":
            yield [line]
            continue
        first, tab, second = line.partition("\t")
        if not tab:
            reader.fail(number, f"{task.name} takes pairs: expected 's1<TAB>s2'")
            continue
        yield [first, second]


def _prediction_line(model: SupervisedModel, value: Any, spread: np.ndarray | None) -> str:
    shown = f"{value:.4f}" if model.task.loss == "kl" else str(value)
    if spread is None:
        return shown
    return (
        shown
        + "\t"
        + " ".join(f"{label}:{p:.3f}" for label, p in zip(model.task.labels, spread, strict=True))
    )


def prediction_lines(
    model: SupervisedModel,
    rows: Iterable[list[str]],
    *,
    probabilities: bool = False,
    batch: int = 4096,
    watches: Sequence[Callable[[list[str], np.ndarray], None]] = (),
) -> Iterator[str]:
    """One line per input row (a batch of rows at a time: memory bounded by the batch);
    ``watches[k]`` (optional) sees side k's texts and vectors (``head predict`` counts the
    lines it could not read: :class:`parasent.core.vector_files.ZeroRowTally`)."""
    iterator = iter(rows)
    while chunk := list(itertools.islice(iterator, batch)):
        sides = [list(side) for side in zip(*chunk, strict=True)]
        model.check_sides(sides)
        vectors = [model.sentence_model.encode(side) for side in sides]
        for watch, texts, side in zip(watches, sides, vectors, strict=False):
            watch(texts, side)
        spread = model.probabilities_of(vectors)
        predicted = model.predictions_of(spread)
        for k, value in enumerate(predicted):
            yield _prediction_line(model, value, spread[k] if probabilities else None)
