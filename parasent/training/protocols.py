"""What the one training loop (:class:`~parasent.training.trainer.Trainer`) asks of its parts.

Batch sources share a base class (:class:`~parasent.training.batching.BatchSource`); objectives,
evaluators and the loop's options are structural: any object with these members serves.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol, runtime_checkable

import torch


@runtime_checkable
class Objective(Protocol):
    """A torch module holding the ``encoder`` it trains; called with a batch, the optimizer
    step number (1-based, for lazy regularisation) and the step's random generator, it returns
    the loss and a dict of figures for the log. Its ``state_dict`` is checkpointed."""

    encoder: torch.nn.Module

    def __call__(
        self, batch: Any, step: int, generator: torch.Generator
    ) -> tuple[torch.Tensor, dict[str, Any]]: ...

    def parameters(self) -> Iterator[torch.nn.Parameter]: ...

    def state_dict(self) -> dict[str, Any]: ...

    def load_state_dict(self, state: dict[str, Any]) -> Any: ...

    def train(self, mode: bool = True) -> Any: ...

    def to(self, device: torch.device) -> Any: ...


@runtime_checkable
class ObjectiveFactory(Protocol):
    """A loss handed to training as a Python object (:func:`parasent.training.fit.fit`): given the
    encoder a run trains and its batch source (pairs: ``PairBatch`` batches with ``left``,
    ``right``, ``left_ids``, ``right_ids``), it builds the :class:`Objective` the loop calls.
    sentence-transformers' losses take the model; this takes the model's encoder when the run
    has built it, so the same object serves a new model and a continued one."""

    def build(self, encoder: torch.nn.Module, data: Any) -> Objective: ...


class Report(Protocol):
    """What an evaluator returns: the ``primary`` figure (greater is better) that selects the
    best epoch, its name, and the figures to log. A report may also have ``standard_error``
    (float or None), the figure's noise, which an epoch must clear to replace the best
    (:func:`parasent.training.trainer.selection_noise`)."""

    primary_metric: str

    @property
    def primary(self) -> float: ...

    def log_values(self) -> dict[str, float]: ...


class Evaluator(Protocol):
    """Scores a model (anything with ``encode``) on validation data."""

    def __call__(self, model: Any) -> Report: ...


class LoopOptions(Protocol):
    """The options the loop reads (a :class:`~parasent.training.config.TrainConfig`, a
    supervised ``HeadConfig``), and ``to_dict`` for the checkpoint and the log."""

    epochs: int
    patience: int | None  # stop after this many epochs without a better validation figure
    batch_size: int
    seed: int
    clip: float | None
    learning_rate: float
    log_every: int
    checkpoint_every: int
    device: str

    def to_dict(self) -> dict[str, Any]: ...
