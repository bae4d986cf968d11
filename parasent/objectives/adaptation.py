"""Fine-tuning a trained model on a user's pairs without losing what it knew.

Three terms over a batch of pairs, each for what the pair carries:

- a pair with no score (``s1<TAB>s2``): the margin objective of Wieting et al. (2016), Eq. 1,
  with its negatives from the batch (:func:`parasent.objectives.margin.margin_loss`), or from
  the mega-batch with ``--megabatch`` (:mod:`parasent.objectives.megabatch`);
- a pair with a score or a label (``score<TAB>s1<TAB>s2``, ``label<TAB>s1<TAB>s2``): the batch's
  cosines ranked as the gold scores are,
  ``log(1 + sum over s_i > s_j of exp(scale * (cos_j - cos_i)))`` (a pairwise ranking loss,
  "CoSENT"), so a labelled negative is pushed below the positives instead of being dropped;
- the starting model as its own teacher: the batch's sentence cosines are matched to those of
  the model the run continues, ``keep * mean((C - C_start)^2)`` (similarity-preserving
  self-distillation), so the rows the user's data moves keep the geometry the other sentences
  rely on. It plays the part of Eq. 1's ``lambda_w ||W_w_initial - W_w||^2`` and of the
  regularisation "towards the universal parameters" of Sec. 4.4.1, on what cosine sees.

The pull and the composition penalty of :class:`~parasent.objectives.margin.MarginLoss` apply
as there (docs/adapt.md measures each lever).
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from parasent.encoders.batch import TokenBatch
from parasent.objectives.margin import MarginLoss, hinge_loss, margin_loss

RANK_SCALE = 20.0  # the cosine scale of the ranking term (cosines differ by tenths)


def rank_loss(
    g1: torch.Tensor,
    g2: torch.Tensor,
    scores: torch.Tensor,
    groups: torch.Tensor | None = None,
    scale: float = RANK_SCALE,
) -> torch.Tensor:
    """The pairwise ranking term: every pair of pairs whose gold scores differ, the one scored
    higher should have the higher cosine; with ``groups`` (each pair's file), only pairs of one
    file are compared (a label 1 and an STS score of 4 are on no common scale)."""
    cosines = F.cosine_similarity(g1, g2, dim=1, eps=1e-8) * scale
    wrong = cosines.unsqueeze(0) - cosines.unsqueeze(1)  # [i, j]: cos_j - cos_i
    ordered = scores.unsqueeze(1) > scores.unsqueeze(0)  # s_i > s_j
    if groups is not None:
        ordered &= groups.unsqueeze(1) == groups.unsqueeze(0)
    terms = torch.cat([torch.zeros(1, device=g1.device, dtype=g1.dtype), wrong[ordered]])
    return torch.logsumexp(terms, dim=0)


def keep_loss(vectors: torch.Tensor, start: torch.Tensor) -> torch.Tensor:
    """Mean squared difference of the in-batch cosine matrices of ``vectors`` and ``start``."""
    now = F.normalize(vectors, dim=1, eps=1e-8)
    before = F.normalize(start, dim=1, eps=1e-8)
    return ((now @ now.T - before @ before.T) ** 2).mean()


class AdaptationLoss(MarginLoss):
    """The fine-tuning objective above; ``start_vectors`` are the starting model's vectors of
    the batch source's sentences (by sentence id), ``keep`` the weight of matching them."""

    def __init__(
        self, encoder: torch.nn.Module, *, start_vectors: torch.Tensor, keep: float, **margin: Any
    ) -> None:
        super().__init__(encoder, **margin)
        self.keep = keep
        self.register_buffer("start_vectors", start_vectors, persistent=False)  # derived, not checkpointed

    def forward(
        self, batch: Any, step: int, generator: torch.Generator | None = None
    ) -> tuple[torch.Tensor, dict[str, float]]:
        size = len(batch.left)
        chosen = getattr(batch, "negatives", None)  # chosen in a mega-batch (--megabatch)
        sides = [batch.left, batch.right] + ([chosen.extra] if chosen is not None else [])
        g = self.encoder(TokenBatch.concat(sides))
        g1, g2 = g[:size], g[size : 2 * size]
        scores = batch.scores if batch.scores is not None else g1.new_full((size,), float("nan"))
        plain = torch.isnan(scores)
        loss, stats = g.new_zeros(()), {}
        if chosen is not None and bool(plain.any()):
            term, stats = self._megabatch_margin(g, size, plain, chosen)
            loss = loss + term
        elif int(plain.sum()) >= 2:  # a negative needs another pair
            ids1, ids2 = batch.left_ids[plain], batch.right_ids[plain]
            term, stats = margin_loss(
                g1[plain],
                g2[plain],
                delta=self.delta,
                negatives=self.negatives,
                ids1=ids1,
                ids2=ids2,
                generator=generator,
            )
            loss = loss + term
        if int((~plain).sum()) >= 2:
            sources = batch.sources[~plain] if getattr(batch, "sources", None) is not None else None
            term = rank_loss(g1[~plain], g2[~plain], scores[~plain], sources)
            loss, stats["rank"] = loss + term, float(term.detach())
        if self.keep:
            ids = torch.cat([batch.left_ids, batch.right_ids])
            term = keep_loss(g[: 2 * size], self.start_vectors[ids])
            loss, stats["keep"] = loss + self.keep * term, float(term.detach())
        return self._regularised(loss, batch, step, stats)

    def _megabatch_margin(
        self, g: torch.Tensor, size: int, plain: torch.Tensor, chosen: Any
    ) -> tuple[torch.Tensor, dict[str, float]]:
        """Eq. 1's hinge for the plain pairs, each sentence against the negative its mega-batch
        chose (Wieting & Gimpel 2018; :mod:`parasent.objectives.megabatch`): indices into the
        batch's ``[left; right; extra]``, whatever the pairs carry."""
        pool = F.normalize(g, dim=1, eps=1e-8)
        picked = tuple(t[plain] for t in (chosen.index1, chosen.index2, chosen.exists1, chosen.exists2))
        return hinge_loss(pool[:size][plain], pool[size : 2 * size][plain], pool, picked, self.delta)
