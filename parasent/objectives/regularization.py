"""The regularisers of Eq. 1: the pull of word vectors back to their initial values (lambda_w)
and the L2 penalty on composition parameters (lambda_c)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class EmbeddingPull(nn.Module):
    """``lambda_w * ||W_w_initial - W_w||^2`` of Eq. 1, applied lazily to the rows of the batch.

    Summing the penalty over the whole matrix at every step would make a step cost
    O(vocabulary). Instead, when a row appears in a batch it receives the pull it would have
    received at every step since it was last seen: its term is multiplied by the number of
    steps elapsed, ``k``. A row that never appears is never moved by the margin loss either,
    so it stays at its initial value exactly as under the dense penalty; a row seen at every
    step gets exactly the dense penalty. The gradient is sparse (only batch rows), and the
    cost of a step grows with the batch, not with the vocabulary.
    """

    def __init__(self, initial: torch.Tensor, weight: float) -> None:
        super().__init__()
        self.weight = float(weight)
        self.register_buffer("initial", initial.detach().clone())
        self.register_buffer("last_step", torch.zeros(initial.shape[0], dtype=torch.long))

    def forward(self, table: torch.Tensor, rows: torch.Tensor, step: int) -> torch.Tensor:
        """Penalty for the unique ``rows`` used at ``step`` (steps count from 1)."""
        if self.weight == 0.0 or rows.numel() == 0:
            return table.new_zeros(())
        elapsed = (step - self.last_step[rows]).clamp(min=1).to(table.dtype)
        self.last_step[rows] = step
        difference = F.embedding(rows, table, sparse=True) - self.initial[rows]
        return self.weight * (elapsed.unsqueeze(1) * difference.pow(2)).sum()


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
