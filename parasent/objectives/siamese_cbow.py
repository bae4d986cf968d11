"""The Siamese CBOW objective (Kenter et al. 2016, Sec. 2.1).

For a sentence s_i with averaged embedding s^theta_i, the candidates S = S+ u S- are its
neighbours s_{i-1}, s_{i+1} (S+) and n random sentences (S-). Eq. 1 is a softmax over the
cosines:

    p_theta(s_i, s_j) = exp(cos(s^theta_i, s^theta_j)) / sum_{s' in S} exp(cos(s^theta_i, s^theta'))

and the loss is the categorical cross-entropy against the target distribution that puts
1/|S+| on every positive and 0 on the negatives:

    L = - sum_{s_j in S} p(s_i, s_j) log p_theta(s_i, s_j)

averaged over the batch. S+ is the preceding and the following sentence of the same
document (|S+| = 2, target 1/2 on each; sentences without both are no anchors, see
:mod:`parasent.training.documents`). The function also accepts absent candidates (masked
out of the softmax). The word embeddings are the only parameters (the encoder is plain
averaging).
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn


def siamese_cbow_loss(
    anchors: torch.Tensor, candidates: torch.Tensor, positive: torch.Tensor, present: torch.Tensor
) -> tuple[torch.Tensor, dict[str, float]]:
    """Mean cross-entropy of Eq. 1 over a batch.

    ``anchors`` (B, D) are the sentence vectors s_i; ``candidates`` (B, K, D) the vectors of
    S for each example; ``positive`` (B, K) marks S+ and ``present`` (B, K) the candidates
    that exist (a missing neighbour is absent). Cosines of zero vectors are 0.
    """
    unit_anchor = F.normalize(anchors, dim=-1, eps=1e-8)
    unit_candidates = F.normalize(candidates, dim=-1, eps=1e-8)
    cosines = torch.einsum("bd,bkd->bk", unit_anchor, unit_candidates)
    logits = cosines.masked_fill(~present, float("-inf"))
    log_p = F.log_softmax(logits, dim=1)
    target_mask = positive & present
    target = target_mask.to(cosines.dtype)
    target = target / target.sum(dim=1, keepdim=True).clamp(min=1.0)
    # 0 * log p is 0 where the candidate is absent (log p = -inf), not NaN.
    loss = -(target * log_p.masked_fill(~present, 0.0)).sum(dim=1).mean()
    with torch.no_grad():
        negative_mask = ~positive & present
        stats = {
            "cross_entropy": float(loss),
            "positive_probability": float((log_p.exp() * target_mask).sum(dim=1).mean()),
            "positive_cos": float(cosines[target_mask].mean()) if target_mask.any() else 0.0,
            "negative_cos": float(cosines[negative_mask].mean()) if negative_mask.any() else 0.0,
        }
    return loss, stats


class SiameseCBOWLoss(nn.Module):
    """Eq. 1 as a module that takes the encoder: ``loss, stats = objective(batch, step, generator)``.

    ``batch`` is a :class:`~parasent.training.documents.ContextBatch`: every unique sentence
    of the batch is averaged once, then gathered into anchors and candidates.
    """

    def __init__(self, encoder: nn.Module) -> None:
        super().__init__()
        self.encoder = encoder

    def forward(
        self, batch: Any, step: int, generator: torch.Generator | None = None
    ) -> tuple[torch.Tensor, dict[str, float]]:
        vectors = self.encoder(batch.sentences)
        candidates_index = torch.cat([batch.positives, batch.negatives], dim=1)
        present = candidates_index >= 0
        positive = torch.zeros_like(present)
        positive[:, : batch.positives.shape[1]] = True
        candidates = vectors[candidates_index.clamp(min=0)]
        return siamese_cbow_loss(vectors[batch.anchors], candidates, positive, present)
