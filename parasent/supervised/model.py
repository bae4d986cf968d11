"""A sentence encoder with its supervised head: the directory a head run saves as ``RUN/model``
(the model files of :class:`SentenceModel` plus ``head.json`` and ``head.safetensors``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from parasent.core.model import CONFIG_FILE, SentenceModel
from parasent.supervised.heads import load_head, run_head
from parasent.supervised.tasks import SupervisedTask, task_by_name


def model_directory(path: str | Path) -> Path:
    """A model directory, or a run directory's best model (``RUN/model``)."""
    path = Path(path)
    if not (path / CONFIG_FILE).is_file() and (path / "model" / CONFIG_FILE).is_file():
        return path / "model"
    return path


class SupervisedModel:
    """``predict`` gives relatedness scores in [1, K] or class labels; ``probabilities`` the
    head's distribution. The encoder alone is ``sentence_model`` (still an embedding model)."""

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
        head, info = load_head(directory)
        return cls(sentence_model, head, task_by_name(info["task"]), info)

    def probabilities(self, first: Sequence[str], second: Sequence[str] | None = None) -> np.ndarray:
        sides = [list(first)] + ([list(second)] if second is not None else [])
        if len(sides) != (2 if self.task.kind == "pair" else 1):
            raise ValueError(
                f"{self.task.name} takes {'two sentences' if self.task.kind == 'pair' else 'one sentence'}"
            )
        if len(sides) == 2 and len(sides[0]) != len(sides[1]):
            raise ValueError(
                f"as many first as second sentences needed, got {len(sides[0])} and {len(sides[1])}"
            )
        vectors = [self.sentence_model.encode(side) for side in sides]
        return np.exp(run_head(self.head, vectors).astype(np.float64))

    def predict(self, first: Sequence[str], second: Sequence[str] | None = None) -> np.ndarray:
        """Relatedness ``r^T p`` (float array) for ``kl`` tasks, else label names (str array)."""
        p = self.probabilities(first, second)
        if self.task.loss == "kl":
            return p @ np.arange(1, self.task.classes + 1)
        return np.array(self.task.labels)[p.argmax(axis=1)]
