"""The supervised objectives of Wieting et al. (2016), Sec. 4.4, as one module taking the
encoder and a head: ``loss, stats = objective(batch, step, generator)``.

Loss: the KL divergence of Eq. 2 between the sparse target distribution of a relatedness
score and the head's distribution (``kl``), or the negative log-likelihood of a class
label (``nll``), averaged over the batch. Regularisers:

- ``lambda_w ||W_w_initial - W_w||^2``: word vectors pulled back to their initial values
  (the chosen vectors from scratch; the paraphrastic model's vectors in the *universal*
  setting, Sec. 4.4.1), applied lazily to the rows of the batch (:class:`EmbeddingPull`);
- ``lambda_c ||W_c||^2``, or ``lambda_c ||W_c - W_c_universal||^2`` with
  ``composition_to_initial`` (the universal setting);
- ``lambda_s ||theta_head||^2``: L2 on the classifier parameters.

With ``freeze_encoder`` (the *features* setting, Sec. 4.4.2) the encoder is not updated
and runs without gradient; only the head learns.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from parasent.objectives.regularization import CompositionPenalty, EmbeddingPull

LOSSES = ("kl", "nll")


def sparse_target(scores: torch.Tensor, classes: int) -> torch.Tensor:
    """The distribution ``p`` with ``r^T p = y`` of Tai et al. (Wieting et al., Sec. 4.4).

    ``p_i = y - floor(y)`` for ``i = floor(y) + 1``, ``floor(y) - y + 1`` for ``i = floor(y)``,
    0 otherwise (classes numbered 1..K). ``y = K`` puts all mass on class K.
    """
    scores = scores.to(torch.float32)
    if bool(((scores < 1) | (scores > classes)).any()):
        raise ValueError(f"scores must lie in [1, {classes}]")
    lower = scores.floor().clamp(1, classes - 1)  # 1-based class below y (K-1 when y = K)
    upper_mass = scores - lower
    target = torch.zeros(scores.shape[0], classes, dtype=torch.float32, device=scores.device)
    index = (lower.long() - 1).unsqueeze(1)
    target.scatter_(1, index, (1 - upper_mass).unsqueeze(1))
    target.scatter_(1, index + 1, upper_mass.unsqueeze(1))
    return target


class SupervisedObjective(nn.Module):
    def __init__(
        self,
        encoder: nn.Module,
        head: nn.Module,
        *,
        loss: str,
        lambda_w: float = 0.0,
        lambda_c: float = 0.0,
        lambda_s: float = 0.0,
        composition_to_initial: bool = False,
        freeze_encoder: bool = False,
    ) -> None:
        super().__init__()
        if loss not in LOSSES:
            raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
        self.encoder = encoder
        self.head = head
        self.loss = loss
        self.freeze_encoder = freeze_encoder
        if freeze_encoder:
            for p in encoder.parameters():
                p.requires_grad_(False)
            lambda_w = lambda_c = 0.0
        self.pull = EmbeddingPull(encoder.embedding.weight, lambda_w)
        self.composition = CompositionPenalty(
            encoder.composition_parameters(), lambda_c, toward_initial=composition_to_initial
        )
        self.head_penalty = CompositionPenalty(list(head.parameters()), lambda_s)

    def train(self, mode: bool = True) -> SupervisedObjective:
        super().train(mode)
        if self.freeze_encoder:
            self.encoder.eval()  # a frozen feature extractor stays in inference mode
        return self

    def encode(self, batch: Any) -> list[torch.Tensor]:
        if self.freeze_encoder:
            with torch.no_grad():
                return [self.encoder(side) for side in batch.sides]
        return [self.encoder(side) for side in batch.sides]

    def forward(
        self, batch: Any, step: int, generator: torch.Generator | None = None
    ) -> tuple[torch.Tensor, dict[str, float]]:
        log_probs = self.head(*self.encode(batch))
        if self.loss == "kl":
            target = sparse_target(batch.targets, log_probs.shape[1])
            loss = F.kl_div(log_probs, target, reduction="batchmean")  # sum_i p_i (log p_i - log p^_i)
        else:
            loss = F.nll_loss(log_probs, batch.targets)
        stats: dict[str, float] = {self.loss: float(loss.detach())}
        if self.pull.weight:
            rows = torch.unique(batch.token_ids())
            pull = self.pull(self.encoder.embedding.weight, rows, step)
            loss = loss + pull
            stats["pull"] = float(pull.detach())
        for name, penalty in (("composition_l2", self.composition), ("head_l2", self.head_penalty)):
            if penalty.weight:
                value = penalty().to(loss.device)
                loss = loss + value
                stats[name] = float(value.detach())
        return loss, stats
