"""AdaDelta (Zeiler 2012) for embeddings with sparse gradients, exactly equal to dense AdaDelta.

``torch.optim.Adadelta`` rejects sparse gradients. Turning the embedding's gradient dense
would make every step cost O(vocabulary x dim) (the gradient, and three passes over the two
accumulators). This optimizer keeps the step O(rows in the batch x dim) without changing
the algorithm. Per element, with gradient g, decay rho and the two running averages E[g^2]
(``square_avg``) and E[dx^2] (``acc_delta``):

    E[g^2]  <- rho E[g^2] + (1 - rho) g^2
    dx       = sqrt(E[dx^2] + eps) / sqrt(E[g^2] + eps) * g
    E[dx^2] <- rho E[dx^2] + (1 - rho) dx^2
    x       <- x - lr * dx

At a step where a row has no gradient (g = 0), dense AdaDelta leaves the row where it is
(dx = 0) and only multiplies both averages by rho. So a row that reappears after k steps
without gradient has both averages multiplied by rho^k and is then updated as usual: the
result equals dense AdaDelta's (up to float rounding of rho^k versus k multiplications).

Cost: the two averages are dense (2 x vocabulary x dim floats, as in dense AdaDelta) plus
one step counter per row; each step reads and writes only the batch's rows.
"""

from __future__ import annotations

from collections.abc import Iterable

import torch


class SparseAdadelta(torch.optim.Optimizer):
    """AdaDelta that accepts sparse (and dense) gradients; defaults as ``torch.optim.Adadelta``."""

    def __init__(
        self, params: Iterable[torch.nn.Parameter], lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6
    ) -> None:
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"rho must be in [0, 1], got {rho}")
        if lr < 0.0 or eps < 0.0:
            raise ValueError(f"lr and eps must be non-negative, got {lr}, {eps}")
        super().__init__(params, {"lr": lr, "rho": rho, "eps": eps})

    @torch.no_grad()
    def step(self, closure=None):  # noqa: ANN001 - the torch signature
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            lr, rho, eps = group["lr"], group["rho"], group["eps"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["square_avg"] = torch.zeros_like(p, memory_format=torch.contiguous_format)
                    state["acc_delta"] = torch.zeros_like(p, memory_format=torch.contiguous_format)
                    state["last_step"] = torch.zeros(p.shape[0], dtype=torch.long, device=p.device)
                state["step"] += 1
                step = state["step"]
                grad = p.grad
                if grad.is_sparse:
                    grad = grad.coalesce()  # duplicate rows are summed, as the dense gradient would
                    rows, values = grad.indices()[0], grad.values()
                else:
                    rows, values = torch.arange(p.shape[0], device=p.device), grad
                if rows.numel() == 0:
                    continue
                square_avg, acc_delta, last_step = state["square_avg"], state["acc_delta"], state["last_step"]
                idle = (step - 1 - last_step[rows]).to(p.dtype)
                decay = torch.pow(torch.full_like(idle, rho), idle).view(-1, *([1] * (p.dim() - 1)))
                g2 = square_avg[rows].mul_(decay).mul_(rho).addcmul_(values, values, value=1 - rho)
                d2 = acc_delta[rows].mul_(decay)
                delta = d2.add(eps).sqrt_().div_(g2.add(eps).sqrt_()).mul_(values)
                d2.mul_(rho).addcmul_(delta, delta, value=1 - rho)
                square_avg[rows] = g2
                acc_delta[rows] = d2
                last_step[rows] = step
                p.index_add_(0, rows, delta, alpha=-lr)
        return loss
