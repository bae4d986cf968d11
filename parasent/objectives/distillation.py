"""Regression onto a teacher's sentence embeddings, alone or mixed with the margin loss.

For an unlabelled sentence x with teacher embedding t(x), the student's loss is
``1 - cos(g(x), t(x))``: only the direction of g(x) is fitted, so word-vector norms stay
free to act as word weights in the average. :class:`DistillationObjective` adds it, with a
weight, to the margin loss of Eq. 1 (Wieting et al. 2016) on a batch of paraphrase pairs, and
applies the lambda_w pull of Eq. 1 to the rows of both batches.

Optionally an in-batch contrastive term (InfoNCE, van den Oord et al. 2018) is added: the
student's embedding of sentence i must be closer to the teacher's embedding of i than to the
teacher's embeddings of the other sentences of the batch, ``-log softmax_j(cos(g(x_i),
t(x_j)) / tau)_i``. The regression fits each direction alone; the contrastive term fits how
sentences rank against each other, which is what a correlation with similarity scores reads.

A relational term (similarity-preserving distillation, Tung & Mori 2019) matches the
student's in-batch cosine matrix to the teacher's, ``mean_{i != j} (cos(g(x_i), g(x_j)) -
cos(t(x_i), t(x_j)))^2``: it fits the quantity STS correlates with, the cosine of two
sentences, including its scale (a word average's cosines sit high: all its vectors share a
common direction).
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from parasent.objectives.margin import MarginLoss
from parasent.objectives.regularization import EmbeddingPull


def cosine_regression_loss(student: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean over the batch of ``1 - cos(student_i, target_i)`` (a zero vector has cosine 0)."""
    cosine = (F.normalize(student, dim=1, eps=1e-8) * F.normalize(target, dim=1, eps=1e-8)).sum(dim=1)
    return (1.0 - cosine).mean()


def contrastive_loss(student: torch.Tensor, target: torch.Tensor, temperature: float) -> torch.Tensor:
    """In-batch InfoNCE of the student's embeddings against the teacher's (module docstring)."""
    logits = F.normalize(student, dim=1, eps=1e-8) @ F.normalize(target, dim=1, eps=1e-8).T
    return F.cross_entropy(logits / temperature, torch.arange(len(student), device=student.device))


def relational_loss(student: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean squared difference of the student's and the teacher's off-diagonal in-batch cosines."""
    own = F.normalize(student, dim=1, eps=1e-8)
    theirs = F.normalize(target, dim=1, eps=1e-8)
    gap = own @ own.T - theirs @ theirs.T
    off = ~torch.eye(len(student), dtype=torch.bool, device=student.device)
    return (gap[off] ** 2).mean() if len(student) > 1 else gap.sum() * 0.0


def token_loss(outputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Squared distance of each token's output to its target (:mod:`parasent.distillation.token_targets`),
    relative to the targets' mean squared norm: the term reads the same at any scale of rows."""
    if len(targets) == 0:
        return outputs.sum() * 0.0
    gap = ((outputs - targets) ** 2).sum(dim=1).mean()
    return gap / (targets**2).sum(dim=1).mean().clamp(min=1e-12)


def check_token_outputs(encoder: nn.Module) -> None:
    """Refuse an encoder that does not give its tokens' outputs to the per-token term."""
    if not hasattr(encoder, "with_token_outputs"):
        raise ValueError(
            f"the per-token teacher term (--teacher-tokens) needs an encoder that composes rows token by "
            f"token (contextual), not {type(encoder).__name__}"
        )


class TeacherRegression(nn.Module):
    """``loss, stats = objective(batch)`` for a batch with ``tokens`` and ``targets``: the
    regression, plus ``contrastive`` times the in-batch InfoNCE term and ``relational`` times
    the in-batch cosine matching term when they are > 0. Without ``regression`` (a student of
    another width than its teacher: a compacted model) the relational term alone, which
    compares cosines, not vectors. With ``tokens`` > 0 and a batch carrying per-token targets
    (``token_rows``, ``token_targets``), ``tokens`` times :func:`token_loss` on the tokens that
    have one: the encoder must give its tokens' outputs (``with_token_outputs``)."""

    def __init__(
        self,
        encoder: nn.Module,
        *,
        contrastive: float = 0.0,
        temperature: float = 0.05,
        relational: float = 0.0,
        regression: bool = True,
        tokens: float = 0.0,
    ) -> None:
        super().__init__()
        if tokens:
            check_token_outputs(encoder)
        if not regression and (contrastive or not relational):
            raise ValueError(
                "without the regression, the relational term alone (contrastive 0, relational > 0)"
            )
        if contrastive < 0 or temperature <= 0 or relational < 0:
            raise ValueError(
                f"need contrastive >= 0, temperature > 0 and relational >= 0, got {contrastive}, "
                f"{temperature}, {relational}"
            )
        self.encoder = encoder
        self.contrastive = float(contrastive)
        self.temperature = float(temperature)
        self.relational = float(relational)
        self.regression = regression
        self.tokens = float(tokens)

    def forward(self, batch: Any) -> tuple[torch.Tensor, dict[str, float]]:
        if self.tokens > 0 and getattr(batch, "token_targets", None) is not None:
            student, outputs = self.encoder.with_token_outputs(batch.tokens)
            loss, stats = self._sentence_terms(student, batch.targets)
            per_token = token_loss(outputs[batch.token_rows], batch.token_targets)
            stats["teacher_tokens"] = float(per_token.detach())
            return loss + self.tokens * per_token, stats
        return self._sentence_terms(self.encoder(batch.tokens), batch.targets)

    def _sentence_terms(
        self, student: torch.Tensor, targets: torch.Tensor
    ) -> tuple[torch.Tensor, dict[str, float]]:
        """The terms on the batch's sentence vectors (``targets``: the teacher's)."""
        stats: dict[str, float] = {}
        loss = student.new_zeros(())
        if self.regression:
            loss = cosine_regression_loss(student, targets)
            stats["teacher_cos"] = 1.0 - float(loss.detach())
        if self.contrastive > 0:
            nce = contrastive_loss(student, targets, self.temperature)
            stats["teacher_nce"] = float(nce.detach())
            loss = loss + self.contrastive * nce
        if self.relational > 0:
            relational = relational_loss(student, targets)
            stats["teacher_relational"] = float(relational.detach())
            loss = loss + self.relational * relational
        return loss, stats


class DistillationObjective(nn.Module):
    """``margin_weight * margin(pairs) + teacher_weight * regression(sentences) + lambda_w pull``.

    Takes a batch with ``pairs`` (a pair batch or None) and ``sentences`` (a sentence batch
    with teacher targets, or None). ``margin`` must be built with ``lambda_w=0``: the pull
    is applied here, lazily, to the union of the rows of both batches (see
    :class:`EmbeddingPull`), so that rows moved only by the regression are pulled too.
    """

    def __init__(
        self,
        encoder: nn.Module,
        *,
        margin: MarginLoss | None,
        teacher_weight: float = 1.0,
        margin_weight: float = 1.0,
        lambda_w: float = 0.0,
        initial_embeddings: torch.Tensor | None = None,
        contrastive: float = 0.0,
        temperature: float = 0.05,
        relational: float = 0.0,
        regression: bool = True,
        tokens: float = 0.0,
    ) -> None:
        super().__init__()
        if margin is not None and margin.pull.weight:
            raise ValueError(
                "build the margin loss with lambda_w=0: the distillation objective applies the pull"
            )
        if teacher_weight < 0 or margin_weight < 0:
            raise ValueError(f"weights must be >= 0, got teacher {teacher_weight}, margin {margin_weight}")
        self.encoder = encoder
        self.margin = margin
        self.regression = TeacherRegression(
            encoder,
            contrastive=contrastive,
            temperature=temperature,
            relational=relational,
            regression=regression,
            tokens=tokens,
        )
        self.teacher_weight = float(teacher_weight)
        self.margin_weight = float(margin_weight)
        if initial_embeddings is None:
            initial_embeddings = encoder.embedding.weight
        if not lambda_w:  # no pull: do not carry (and checkpoint) a copy of the initial vectors
            initial_embeddings = initial_embeddings.detach()[:0]
        self.pull = EmbeddingPull(initial_embeddings, lambda_w)

    def forward(
        self, batch: Any, step: int, generator: torch.Generator | None = None
    ) -> tuple[torch.Tensor, dict[str, float]]:
        parts: list[torch.Tensor] = []
        stats: dict[str, float] = {}
        rows: list[torch.Tensor] = []
        if batch.pairs is not None and self.margin is not None and self.margin_weight > 0:
            loss, margin_stats = self.margin(batch.pairs, step, generator)
            parts.append(self.margin_weight * loss if self.margin_weight != 1 else loss)
            stats.update(margin_stats)
            rows += [batch.pairs.left.ids, batch.pairs.right.ids]
        if batch.sentences is not None and self.teacher_weight > 0:
            loss, teacher_stats = self.regression(batch.sentences)
            parts.append(self.teacher_weight * loss)
            stats.update(teacher_stats)
            rows.append(batch.sentences.tokens.ids)
        if not parts:
            raise ValueError("a distillation batch needs pairs (with a margin loss) or teacher sentences")
        total = torch.stack(parts).sum() if len(parts) > 1 else parts[0]
        if self.pull.weight and rows:
            pull = self.pull(self.encoder.embedding.weight, torch.unique(torch.cat(rows)), step)
            total = total + pull
            stats["pull"] = float(pull.detach())
        return total, stats
