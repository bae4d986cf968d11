"""The regularisers of Eq. 1: the pull of word vectors back to their initial values (lambda_w)
and the L2 penalty on composition parameters (lambda_c)."""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn

from parasent.objectives.names import PULL_MODES  # noqa: E402, F401 (re-exported)


class EmbeddingPull(nn.Module):
    """``lambda_w * ||W_w_initial - W_w||^2`` of Eq. 1, over the rows in ``pulled``.

    ``mode="exact"``: the dense penalty of Eq. 1, summed over every pulled row at every step.
    Its gradient reaches every pulled row at every step (a row no batch uses still decays
    towards its initial value, and counts in AdaGrad's and Adam's running statistics), so a
    step costs O(vocabulary x dim).

    ``mode="lazy"``: when a row appears in a batch it receives the pull of every step since it
    was last seen: its term is multiplied by the number of steps elapsed, ``k``. A row no
    batch has used is still at its initial value (only the margin loss moves it), so its
    pull is zero under either mode. For a row seen at every step the two are the same; for
    others the lazy version is an approximation: under plain SGD the dense penalty shrinks
    the row's offset by ``(1 - 2 lr lambda_w)`` per step, the lazy one by
    ``1 - 2 lr lambda_w k`` at once, which overshoots past the initial value when
    ``2 lr lambda_w k > 1``; under AdaGrad, Adam and AdaDelta the rescaled gradient
    enters the optimizer's statistics once instead of k times. :meth:`guard_sgd` makes the
    SGD case exact (the closed-form decay). The cost of a step grows with the batch, not the
    vocabulary. docs/paper-deviations.md measures both.

    ``pulled`` (boolean, one per row; all rows by default) selects the rows that have an
    initial value to be pulled to: the rows of the initial vectors, not random rows of new
    training words (pulling those would pull them towards noise).
    """

    def __init__(
        self,
        initial: torch.Tensor,
        weight: float,
        *,
        mode: str = "lazy",
        pulled: torch.Tensor | None = None,
    ) -> None:
        super().__init__()
        if mode not in PULL_MODES:
            raise ValueError(f"pull mode must be one of {PULL_MODES}, got {mode!r}")
        self.weight = float(weight)
        self.mode = mode
        self.register_buffer("initial", initial.detach().clone())
        self.register_buffer("last_step", torch.zeros(initial.shape[0], dtype=torch.long))
        if pulled is None:
            pulled = torch.ones(initial.shape[0], dtype=torch.bool)
        pulled = torch.as_tensor(pulled, dtype=torch.bool)
        if pulled.shape != (initial.shape[0],):
            raise ValueError(f"pulled has shape {tuple(pulled.shape)}, expected ({initial.shape[0]},)")
        self.register_buffer("pulled", pulled.clone())
        self.learning_rate: Callable[[], float] | None = None

    def guard_sgd(self, learning_rate: Callable[[], float]) -> None:
        """Under plain SGD at ``learning_rate()``, give a row seen after ``k`` steps the pull
        of k dense SGD steps exactly: its offset from the initial value shrinks by
        ``(1 - 2 lr lambda_w)^k``, never past the initial value (the lazy mode only)."""
        self.learning_rate = learning_rate

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003
        # A checkpoint written before ``pulled`` existed pulled every row.
        state_dict.setdefault(prefix + "pulled", torch.ones_like(self.pulled))
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    def steps_factor(self, elapsed: torch.Tensor) -> torch.Tensor:
        """What multiplies a row's term after ``elapsed`` steps: ``k``, or under the SGD guard
        ``(1 - (1 - r)^k) / r`` with ``r = 2 lr lambda_w`` (one SGD step on it gives the decay
        ``(1 - r)^k``)."""
        if self.learning_rate is None:
            return elapsed
        rate = 2.0 * float(self.learning_rate()) * self.weight
        if rate <= 0.0:
            return elapsed
        decay = max(1.0 - rate, 0.0)
        return (1.0 - torch.pow(torch.full_like(elapsed, decay), elapsed)) / rate

    def forward(self, table: torch.Tensor, rows: torch.Tensor, step: int) -> torch.Tensor:
        """Penalty at ``step`` (steps count from 1); ``rows`` are the batch's unique rows (lazy)."""
        if self.weight == 0.0:
            return table.new_zeros(())
        if self.mode == "exact":
            every = torch.nonzero(self.pulled, as_tuple=True)[0]
            difference = F.embedding(every, table, sparse=True) - self.initial[every]
            return self.weight * difference.pow(2).sum()
        rows = rows[self.pulled[rows]]
        if rows.numel() == 0:
            return table.new_zeros(())
        elapsed = (step - self.last_step[rows]).clamp(min=1).to(table.dtype)
        self.last_step[rows] = step
        difference = F.embedding(rows, table, sparse=True) - self.initial[rows]
        factor = self.steps_factor(elapsed)
        return self.weight * (factor.unsqueeze(1) * difference.pow(2)).sum()


class CompositionPenalty(nn.Module):
    """``lambda_c * ||W_c||^2``, or ``lambda_c * ||W_c - W_c_initial||^2`` with ``toward_initial``.

    The identity-RNN of Wieting et al. (Sec. 3) and the "universal" prior (Sec. 4.4.1) pull
    composition parameters back to their starting values instead of towards zero.
    """

    def __init__(
        self, parameters: list[nn.Parameter], weight: float, *, toward_initial: bool = False
    ) -> None:
        super().__init__()
        self.weight = float(weight)
        self.toward_initial = toward_initial
        self._parameters_list = list(parameters)
        for i, p in enumerate(self._parameters_list):
            if toward_initial:
                self.register_buffer(f"initial_{i}", p.detach().clone())

    def forward(self) -> torch.Tensor:
        if self.weight == 0.0 or not self._parameters_list:
            return torch.zeros(())
        total = 0.0
        for i, p in enumerate(self._parameters_list):
            target = getattr(self, f"initial_{i}") if self.toward_initial else None
            total = total + ((p - target) if target is not None else p).pow(2).sum()
        return self.weight * total
