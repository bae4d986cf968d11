"""Optimizers that keep a step's cost independent of the vocabulary, and gradient clipping.

Word embeddings receive sparse gradients (only the rows of the batch). AdaGrad handles
sparse and dense gradients itself; Adam is split into ``SparseAdam`` for the embedding (a
lazy Adam: only rows in the batch update their moments) and ``Adam`` for the composition
parameters; AdaDelta (Hokamp & Arora 2016's optimizer) uses
:class:`~parasent.training.adadelta.SparseAdadelta`, exactly dense AdaDelta at sparse cost.

A learning-rate schedule scales every group's initial rate by a factor of the step count:
``linear`` decreases it in proportion to the batches done (Kenter et al. 2016, Sec. 2.3;
as in word2vec, down to 1e-4 of the initial rate at the last step).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import nn

from parasent.training.optim_names import DEFAULT_LEARNING_RATES, LR_SCHEDULES, OPTIMIZERS  # noqa: F401 (re-exported)

# Opt out explicitly of torch's per-operation sparse invariant checks (the optimizers build
# well-formed sparse tensors); otherwise torch warns on every AdaGrad step.
torch.sparse.check_sparse_tensor_invariants.disable()

LINEAR_DECAY_FLOOR = 1e-4


def linear_decay(total_steps: int, floor: float = LINEAR_DECAY_FLOOR) -> Callable[[int], float]:
    """Factor of the initial rate before step ``k`` (0-based): ``max(floor, 1 - k / total_steps)``."""
    total = max(int(total_steps), 1)
    return lambda k: max(floor, 1.0 - k / total)


class OptimizerSet:
    """Several torch optimizers stepped together, with one state dict.

    ``schedule`` maps the number of steps taken to a factor of each group's initial learning
    rate; the step count is part of the state dict, so a resumed run continues the schedule.
    """

    def __init__(
        self, optimizers: list[torch.optim.Optimizer], schedule: Callable[[int], float] | None = None
    ) -> None:
        self.optimizers = optimizers
        self.schedule = schedule
        self.steps = 0
        self._initial_lrs = [[group["lr"] for group in o.param_groups] for o in optimizers]

    def learning_rate(self) -> float:
        """The rate the next step uses (first group of the first optimizer, after the schedule)."""
        factor = self.schedule(self.steps) if self.schedule is not None else 1.0
        return self._initial_lrs[0][0] * factor

    def zero_grad(self) -> None:
        for optimizer in self.optimizers:
            optimizer.zero_grad(set_to_none=True)

    def step(self) -> None:
        if self.schedule is not None:
            factor = self.schedule(self.steps)
            for optimizer, initial in zip(self.optimizers, self._initial_lrs, strict=True):
                for group, lr in zip(optimizer.param_groups, initial, strict=True):
                    group["lr"] = lr * factor
        for optimizer in self.optimizers:
            optimizer.step()
        self.steps += 1

    def state_dict(self) -> dict[str, Any]:
        return {"optimizers": [optimizer.state_dict() for optimizer in self.optimizers], "steps": self.steps}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        states = state["optimizers"]
        if len(states) != len(self.optimizers):
            raise ValueError(
                f"checkpoint has {len(states)} optimizer state(s), expected {len(self.optimizers)}"
            )
        for optimizer, sub in zip(self.optimizers, states, strict=True):
            optimizer.load_state_dict(sub)
        self.steps = int(state.get("steps", 0))


def build_optimizer(
    encoder: nn.Module,
    name: str,
    lr: float | None = None,
    *,
    schedule: str = "constant",
    total_steps: int | None = None,
    extra: list[nn.Parameter] | None = None,
) -> OptimizerSet:
    """Optimizers for the encoder's trainable parameters plus ``extra`` dense ones (a head).

    A frozen embedding (``requires_grad`` False) gets no optimizer; ``schedule="linear"``
    needs ``total_steps``.
    """
    if name not in OPTIMIZERS:
        raise ValueError(f"optimizer must be one of {OPTIMIZERS}, got {name!r}")
    if schedule not in LR_SCHEDULES:
        raise ValueError(f"lr_schedule must be one of {LR_SCHEDULES}, got {schedule!r}")
    if schedule == "linear" and not total_steps:
        raise ValueError("a linear learning-rate schedule needs the total number of steps")
    decay = linear_decay(total_steps) if schedule == "linear" else None
    lr = DEFAULT_LEARNING_RATES[name] if lr is None else lr
    embedding = [encoder.embedding.weight] if encoder.embedding.weight.requires_grad else []
    dense = [p for n, p in encoder.named_parameters() if not n.startswith("embedding.") and p.requires_grad]
    dense += [p for p in extra or [] if p.requires_grad]
    if not embedding and not dense:
        raise ValueError("nothing to optimize: every parameter is frozen")
    if name == "adagrad":
        return OptimizerSet([torch.optim.Adagrad(embedding + dense, lr=lr)], decay)
    if name == "sgd":
        return OptimizerSet([torch.optim.SGD(embedding + dense, lr=lr)], decay)
    if name == "adadelta":
        from parasent.training.adadelta import SparseAdadelta

        optimizers: list[torch.optim.Optimizer] = [SparseAdadelta(embedding, lr=lr)] if embedding else []
        if dense:
            optimizers.append(torch.optim.Adadelta(dense, lr=lr))
        return OptimizerSet(optimizers, decay)
    optimizers = [torch.optim.SparseAdam(embedding, lr=lr)] if embedding else []
    if dense:
        optimizers.append(torch.optim.Adam(dense, lr=lr))
    return OptimizerSet(optimizers, decay)


def guard_sgd_pulls(objective: nn.Module, optimizer: OptimizerSet, name: str) -> None:
    """Under plain SGD, make every lazy lambda_w pull of ``objective`` apply the closed-form
    decay of the steps a row was not seen (:meth:`EmbeddingPull.guard_sgd`), so that it never
    overshoots past the initial vectors; the pull of other optimizers is left as it is."""
    from parasent.objectives.regularization import EmbeddingPull

    if name != "sgd":
        return
    for module in objective.modules():
        if isinstance(module, EmbeddingPull):
            module.guard_sgd(optimizer.learning_rate)


def clip_grad_norm(parameters: list[nn.Parameter], max_norm: float) -> float:
    """Scale all gradients so that their joint L2 norm is at most ``max_norm``; sparse-aware.

    ``torch.nn.utils.clip_grad_norm_`` does not accept sparse gradients; here a sparse
    gradient is coalesced (duplicate rows summed) before its norm is taken.
    """
    squares = []
    for p in parameters:
        if p.grad is None:
            continue
        if p.grad.is_sparse:
            p.grad = p.grad.coalesce()
            squares.append(p.grad._values().pow(2).sum())
        else:
            squares.append(p.grad.pow(2).sum())
    if not squares:
        return 0.0
    total = float(torch.stack([s.float().cpu() for s in squares]).sum().sqrt())
    if total > max_norm:
        scale = max_norm / (total + 1e-6)
        for p in parameters:
            if p.grad is None:
                continue
            if p.grad.is_sparse:
                p.grad._values().mul_(scale)
            else:
                p.grad.mul_(scale)
    return total
