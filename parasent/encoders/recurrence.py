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

import torch

State = tuple[torch.Tensor, ...]


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
    order = torch.argsort(lengths, descending=True, stable=True)
    # One tensor per time step: slicing a step out of the (B, T, ...) tensor would make its
    # backward allocate a full-size zero gradient at every step.
    steps_inputs = inputs[order].transpose(0, 1).unbind(0)
    state = tuple(s[order] for s in initial)
    sorted_lengths = lengths[order]
    steps = int(sorted_lengths[0]) if batch else 0
    # active[t] = number of sentences longer than t (a prefix, since lengths are sorted)
    active = (sorted_lengths.unsqueeze(0) > torch.arange(steps, device=lengths.device).unsqueeze(1)).sum(1)
    for t, n in enumerate(active.tolist()):
        new = cell(steps_inputs[t][:n], tuple(s[:n] for s in state))
        state = tuple(
            fresh if n == batch else torch.cat([fresh, old[n:]])
            for fresh, old in zip(new, state, strict=True)
        )
    inverse = torch.empty_like(order)
    inverse[order] = torch.arange(batch, device=order.device)
    return tuple(s[inverse] for s in state)
