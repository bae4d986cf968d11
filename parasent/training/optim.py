"""Optimizers that keep a step's cost independent of the vocabulary, and gradient clipping.

Word embeddings receive sparse gradients (only the rows of the batch). AdaGrad handles
sparse and dense gradients itself; Adam is split into ``SparseAdam`` for the embedding (a
lazy Adam: only rows in the batch update their moments) and ``Adam`` for the composition
parameters.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

# Opt out explicitly of torch's per-operation sparse invariant checks (the optimizers build
# well-formed sparse tensors); otherwise torch warns on every AdaGrad step.
torch.sparse.check_sparse_tensor_invariants.disable()

OPTIMIZERS = ("adagrad", "adam", "sgd")
DEFAULT_LEARNING_RATES = {"adagrad": 0.05, "adam": 0.001, "sgd": 0.1}


class OptimizerSet:
    """Several torch optimizers stepped together, with one state dict."""

    def __init__(self, optimizers: list[torch.optim.Optimizer]) -> None:
        self.optimizers = optimizers

    def zero_grad(self) -> None:
        for optimizer in self.optimizers:
            optimizer.zero_grad(set_to_none=True)

    def step(self) -> None:
        for optimizer in self.optimizers:
            optimizer.step()

    def state_dict(self) -> dict[str, Any]:
        return {"optimizers": [optimizer.state_dict() for optimizer in self.optimizers]}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        states = state["optimizers"]
        if len(states) != len(self.optimizers):
            raise ValueError(
                f"checkpoint has {len(states)} optimizer state(s), expected {len(self.optimizers)}"
            )
        for optimizer, sub in zip(self.optimizers, states, strict=True):
            optimizer.load_state_dict(sub)


def build_optimizer(
    encoder: nn.Module, name: str, lr: float | None = None, *, extra: list[nn.Parameter] | None = None
) -> OptimizerSet:
    """Optimizers for the encoder's trainable parameters plus ``extra`` dense ones (a head).

    A frozen embedding (``requires_grad`` False) gets no optimizer.
    """
    if name not in OPTIMIZERS:
        raise ValueError(f"optimizer must be one of {OPTIMIZERS}, got {name!r}")
    lr = DEFAULT_LEARNING_RATES[name] if lr is None else lr
    embedding = [encoder.embedding.weight] if encoder.embedding.weight.requires_grad else []
    dense = [p for n, p in encoder.named_parameters() if not n.startswith("embedding.") and p.requires_grad]
    dense += [p for p in extra or [] if p.requires_grad]
    if not embedding and not dense:
        raise ValueError("nothing to optimize: every parameter is frozen")
    if name == "adagrad":
        return OptimizerSet([torch.optim.Adagrad(embedding + dense, lr=lr)])
    if name == "sgd":
        return OptimizerSet([torch.optim.SGD(embedding + dense, lr=lr)])
    optimizers: list[torch.optim.Optimizer] = [torch.optim.SparseAdam(embedding, lr=lr)] if embedding else []
    if dense:
        optimizers.append(torch.optim.Adam(dense, lr=lr))
    return OptimizerSet(optimizers)


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
