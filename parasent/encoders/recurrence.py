"""Running a recurrent cell over a padded batch without computing on padding.

The batch is sorted by length (longest first), so the sentences still running at step ``t``
are a prefix of the batch: step ``t`` updates only those rows, in one vectorised call, and
every other row keeps its state. Each sentence therefore ends in the state after its own
last token, whatever the length of the others: the output does not depend on how the batch
is padded, and the cost of a batch is the sum of its lengths plus one Python iteration per
time step (no per-example loop).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

State = tuple[torch.Tensor, ...]


@dataclass
class LengthOrder:
    """A batch sorted by decreasing length: ``order`` sorts, ``inverse`` restores, and
    ``active[t]`` is the number of sentences longer than ``t`` (a prefix of the sorted batch)."""

    order: torch.Tensor
    inverse: torch.Tensor
    active: list[int]

    @classmethod
    def of(cls, lengths: torch.Tensor) -> LengthOrder:
        order = torch.argsort(lengths, descending=True, stable=True)
        inverse = torch.empty_like(order)
        inverse[order] = torch.arange(len(order), device=order.device)
        steps = int(lengths.max()) if len(lengths) else 0
        positions = torch.arange(steps, device=lengths.device)
        active = (lengths.unsqueeze(0) > positions.unsqueeze(1)).sum(1).tolist()
        return cls(order, inverse, active)

    def time_major(self, inputs: torch.Tensor) -> torch.Tensor:
        """``(B, T, ...)`` in batch order to ``(T, B, ...)`` in sorted order."""
        return inputs[self.order].transpose(0, 1)


def run_recurrence(
    inputs: torch.Tensor,
    lengths: torch.Tensor,
    cell: Callable[[torch.Tensor, State], State],
    initial: State,
) -> State:
    """Final state of ``cell`` run over each sentence.

    ``inputs`` is ``(B, T, ...)`` (anything per step, e.g. precomputed input projections),
    ``lengths`` ``(B,)``, ``initial`` a tuple of ``(B, H)`` tensors. ``cell(x_t, state)``
    returns the next state for the rows it is given. An empty sentence keeps ``initial``.
    """
    batch = inputs.shape[0]
    if batch == 0:
        return initial
    sort = LengthOrder.of(lengths)
    # One tensor per time step: slicing a step out of the (B, T, ...) tensor would make its
    # backward allocate a full-size zero gradient at every step.
    steps = sort.time_major(inputs).unbind(0)
    state = tuple(s[sort.order] for s in initial)
    for t, n in enumerate(sort.active):
        new = cell(steps[t][:n], tuple(s[:n] for s in state))
        state = tuple(
            fresh if n == batch else torch.cat([fresh, old[n:]])
            for fresh, old in zip(new, state, strict=True)
        )
    return tuple(s[sort.inverse] for s in state)
