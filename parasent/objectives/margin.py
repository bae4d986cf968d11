"""The margin objective of Wieting et al. (2016), Eq. 1, with negatives chosen in the mini-batch.

For a pair <x1, x2> and negatives t1, t2:

    max(0, delta - cos(g(x1), g(x2)) + cos(g(x1), g(t1)))
  + max(0, delta - cos(g(x1), g(x2)) + cos(g(x2), g(t2)))

averaged over the batch, plus lambda_w ||W_w_initial - W_w||^2 + lambda_c ||W_c||^2 (the pull over the rows that have
an initial value, exactly or lazily: :class:`~parasent.objectives.regularization.EmbeddingPull`).
Negatives (Sec. 3.1.1): MAX takes, for each phrase, the most similar phrase of the
mini-batch outside its own pair; MIX takes MAX with probability 0.5 and a random phrase of
the batch otherwise; RAND always takes a random one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from parasent.encoders.batch import TokenBatch
from parasent.objectives.names import NEGATIVE_STRATEGIES  # noqa: E402, F401 (re-exported)
from parasent.objectives.regularization import CompositionPenalty, EmbeddingPull


def select_negatives(
    anchors: torch.Tensor,
    candidates: torch.Tensor,
    forbidden: torch.Tensor,
    strategy: str = "max",
    generator: torch.Generator | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Index of a negative in ``candidates`` for every anchor, and whether one exists.

    ``anchors`` (B, D) and ``candidates`` (C, D) are unit vectors; ``forbidden`` (B, C) marks
    candidates an anchor may not take (its own pair, or the same sentence elsewhere).
    """
    if strategy not in NEGATIVE_STRATEGIES:
        raise ValueError(f"negatives must be one of {NEGATIVE_STRATEGIES}, got {strategy!r}")
    allowed = ~forbidden
    exists = allowed.any(dim=1)
    with torch.no_grad():
        scores = anchors @ candidates.T
        best = scores.masked_fill(forbidden, float("-inf")).argmax(dim=1)
        if strategy == "max":
            return best, exists
        weights = allowed.to(anchors.dtype)
        weights[~exists] = 1.0  # any index: the term is masked out below
        random = torch.multinomial(weights.cpu(), 1, generator=generator).squeeze(1).to(anchors.device)
        if strategy == "rand":
            return random, exists
        coin = torch.rand(anchors.shape[0], generator=generator).to(anchors.device) < 0.5
        return torch.where(coin, best, random), exists


def margin_loss(
    g1: torch.Tensor,
    g2: torch.Tensor,
    *,
    delta: float = 0.4,
    negatives: str = "max",
    ids1: torch.Tensor | None = None,
    ids2: torch.Tensor | None = None,
    generator: torch.Generator | None = None,
    extra: torch.Tensor | None = None,
    chosen: tuple[torch.Tensor, ...] | None = None,
) -> tuple[torch.Tensor, dict[str, float]]:
    """Mean over the batch of the two hinge terms of Eq. 1.

    The candidate set is every phrase of the batch (both sides) except the pair's own two;
    with sentence ids, a candidate that is the same sentence as x1 or x2 is excluded too, so
    a repeated sentence is never its own negative. Cosines of zero vectors are 0.

    ``chosen`` ``(t1, t2, exists1, exists2)`` are negatives chosen beforehand (a mega-batch,
    :mod:`parasent.objectives.megabatch`), indices into ``[g1; g2; extra]``.
    """
    batch = g1.shape[0]
    n1 = F.normalize(g1, dim=1, eps=1e-8)
    n2 = F.normalize(g2, dim=1, eps=1e-8)
    pool = torch.cat([n1, n2], dim=0)
    if chosen is not None:
        if extra is not None:
            pool = torch.cat([pool, F.normalize(extra, dim=1, eps=1e-8)], dim=0)
        return hinge_loss(n1, n2, pool, chosen, delta)
    rows = torch.arange(batch, device=g1.device)
    pair_of_candidate = rows.repeat(2)
    forbidden = pair_of_candidate.unsqueeze(0) == rows.unsqueeze(1)
    if ids1 is not None and ids2 is not None:
        pool_ids = torch.cat([ids1, ids2])
        forbidden = (
            forbidden
            | (pool_ids.unsqueeze(0) == ids1.unsqueeze(1))
            | (pool_ids.unsqueeze(0) == ids2.unsqueeze(1))
        )
    t1, has1 = select_negatives(n1.detach(), pool.detach(), forbidden, negatives, generator)
    t2, has2 = select_negatives(n2.detach(), pool.detach(), forbidden, negatives, generator)
    return hinge_loss(n1, n2, pool, (t1, t2, has1, has2), delta)


def hinge_loss(
    n1: torch.Tensor, n2: torch.Tensor, pool: torch.Tensor, chosen: tuple[torch.Tensor, ...], delta: float
) -> tuple[torch.Tensor, dict[str, float]]:
    """The two hinge terms of Eq. 1 for unit vectors and negatives ``pool[t1]``, ``pool[t2]``."""
    t1, t2, has1, has2 = chosen
    positive = (n1 * n2).sum(dim=1)
    negative1 = (n1 * pool[t1]).sum(dim=1)
    negative2 = (n2 * pool[t2]).sum(dim=1)
    hinge1 = F.relu(delta - positive + negative1) * has1
    hinge2 = F.relu(delta - positive + negative2) * has2
    loss = (hinge1 + hinge2).mean()
    stats = {
        "margin": float(loss.detach()),
        "positive_cos": float(positive.detach().mean()),
        "negative_cos": float(torch.cat([negative1, negative2]).detach().mean()),
    }
    return loss, stats


class MarginLoss(nn.Module):
    """Eq. 1 as a module that takes the encoder: ``loss, stats = objective(batch, step, generator)``.

    ``initial_embeddings`` is ``W_w_initial`` for the lambda_w pull, applied to the rows of
    ``pulled`` (all by default) ``lazily`` or ``exactly`` per ``pull_mode`` (see
    :class:`EmbeddingPull`). ``composition_to_initial`` pulls composition parameters to
    their initial values instead of to zero.
    """

    def __init__(
        self,
        encoder: nn.Module,
        *,
        delta: float = 0.4,
        negatives: str = "max",
        lambda_w: float = 0.0,
        lambda_c: float = 0.0,
        initial_embeddings: torch.Tensor | None = None,
        composition_to_initial: bool = False,
        pull_mode: str = "lazy",
        pulled: torch.Tensor | None = None,
    ) -> None:
        super().__init__()
        if negatives not in NEGATIVE_STRATEGIES:
            raise ValueError(f"negatives must be one of {NEGATIVE_STRATEGIES}, got {negatives!r}")
        self.encoder = encoder
        self.delta = delta
        self.negatives = negatives
        if initial_embeddings is None:
            initial_embeddings = encoder.embedding.weight
        self.pull = EmbeddingPull(initial_embeddings, lambda_w, mode=pull_mode, pulled=pulled)
        self.composition = CompositionPenalty(
            encoder.composition_parameters(), lambda_c, toward_initial=composition_to_initial
        )

    def forward(
        self, batch: Any, step: int, generator: torch.Generator | None = None
    ) -> tuple[torch.Tensor, dict[str, float]]:
        # Both sides in one call: a sequence encoder runs one recurrence for the whole batch.
        negatives = getattr(batch, "negatives", None)  # chosen in a mega-batch
        sides = [batch.left, batch.right] + ([negatives.extra] if negatives is not None else [])
        g = self.encoder(TokenBatch.concat(sides))
        size = len(batch.left)
        g1, g2 = g[:size], g[size : 2 * size]
        loss, stats = margin_loss(
            g1,
            g2,
            delta=self.delta,
            negatives=self.negatives,
            ids1=batch.left_ids,
            ids2=batch.right_ids,
            generator=generator,
            extra=g[2 * size :] if negatives is not None else None,
            chosen=None
            if negatives is None
            else (negatives.index1, negatives.index2, negatives.exists1, negatives.exists2),
        )
        return self._regularised(loss, batch, step, stats)

    def _regularised(
        self, loss: torch.Tensor, batch: Any, step: int, stats: dict[str, float]
    ) -> tuple[torch.Tensor, dict[str, float]]:
        """``loss`` plus the lambda_w pull of the batch's rows and lambda_c's penalty."""
        if self.pull.weight:
            rows = torch.unique(torch.cat([batch.left.ids, batch.right.ids]))
            pull = self.pull(self.encoder.embedding.weight, rows, step)
            loss = loss + pull
            stats["pull"] = float(pull.detach())
        if self.composition.weight:
            penalty = self.composition().to(loss.device)
            loss = loss + penalty
            stats["composition_l2"] = float(penalty.detach())
        return loss, stats


@dataclass(frozen=True)
class MarginObjective:
    """Eq. 1 as an object for :func:`parasent.training.fit.fit` (``objective=MarginObjective(delta=0.6)``):
    the margin loss over the pairs, negatives from the batch, with ``lambda_c`` on the
    composition parameters (the word rows' pull, lambda_w, is the run's ``lambda_w`` option)."""

    delta: float = 0.4
    negatives: str = "max"
    lambda_c: float = 0.0

    def build(self, encoder: nn.Module, data: Any) -> MarginLoss:
        return MarginLoss(
            encoder,
            delta=self.delta,
            negatives=self.negatives,
            lambda_c=self.lambda_c,
            initial_embeddings=encoder.embedding.weight.detach()[:0],
        )
