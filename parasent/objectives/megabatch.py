"""MAX negatives chosen in a mega-batch (Wieting & Gimpel 2018, ParaNMT-50M, Sec. 4).

The margin loss of Wieting et al. (2016), Eq. 1, takes the negative t of a sentence as the
most similar sentence of its mini-batch. With mega-batching, M consecutive mini-batches are
encoded once, without gradient, by the current model; each sentence's MAX negative is
chosen among all ``2 * M * B`` sentences of that mega-batch; then the M mini-batches are
trained one by one, each encoding (with gradient) its pairs and the negatives it took from
other mini-batches. A larger M gives harder negatives at the cost of one extra forward pass
per M steps. The masking rules are the mini-batch's: a sentence never takes its own pair, nor
a sentence with the same id (a duplicate) as either side of its pair. With M = 1 this is
exactly the mini-batch MAX of :func:`~parasent.objectives.margin.margin_loss`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from parasent.encoders.batch import TokenBatch
from parasent.objectives.margin import select_negatives


@dataclass
class ChosenNegatives:
    """Negatives of one mini-batch: indices into ``[left; right; extra]`` of that mini-batch.

    ``extra`` holds the chosen sentences that are not in the mini-batch itself (encoded with
    gradient in the training step, as the mini-batch's own candidates are).
    """

    extra: TokenBatch
    index1: torch.Tensor  # (B,) negative of each left sentence
    index2: torch.Tensor  # (B,) negative of each right sentence
    exists1: torch.Tensor  # (B,) bool: some candidate was allowed
    exists2: torch.Tensor


def take_sentences(tokens: TokenBatch, rows: torch.Tensor) -> TokenBatch:
    """The sentences ``rows`` of ``tokens``, in that order."""
    starts, lengths = tokens.offsets[rows], tokens.lengths[rows]
    offsets = torch.cumsum(lengths, 0) - lengths
    positions = torch.repeat_interleave(starts - offsets, lengths) + torch.arange(
        int(lengths.sum()), device=tokens.ids.device
    )
    return TokenBatch(tokens.ids[positions], offsets, lengths)


def select_in_megabatch(
    vectors: torch.Tensor, sizes: Sequence[int], sentence_ids: torch.Tensor
) -> list[tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]]:
    """MAX negatives of every mini-batch, as indices into the mega-batch.

    ``vectors`` (P, D) encode the mega-batch's sentences in the order ``[left_0; right_0;
    left_1; right_1; ...]`` (mini-batch ``i`` has ``sizes[i]`` pairs); ``sentence_ids`` (P,)
    identify equal sentences. Returns, per mini-batch, ``(t1, t2, exists1, exists2)``.
    """
    units = F.normalize(vectors, dim=1, eps=1e-8)
    pair_of = torch.cat(
        [torch.arange(size, device=vectors.device).repeat(2) + sum(sizes[:i]) for i, size in enumerate(sizes)]
    )
    chosen, start = [], 0
    for size in sizes:
        left, right = slice(start, start + size), slice(start + size, start + 2 * size)
        pairs = pair_of[left]
        forbidden = (
            (pair_of.unsqueeze(0) == pairs.unsqueeze(1))
            | (sentence_ids.unsqueeze(0) == sentence_ids[left].unsqueeze(1))
            | (sentence_ids.unsqueeze(0) == sentence_ids[right].unsqueeze(1))
        )
        t1, has1 = select_negatives(units[left], units, forbidden, "max")
        t2, has2 = select_negatives(units[right], units, forbidden, "max")
        chosen.append((t1, t2, has1, has2))
        start += 2 * size
    return chosen


def localize(
    chosen: tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor],
    start: int,
    size: int,
    pool: TokenBatch,
) -> ChosenNegatives:
    """Mega-batch indices of one mini-batch (whose sentences are ``pool[start:start + 2 size]``)
    as indices into ``[left; right; extra]`` of the mini-batch, gathering ``extra`` from ``pool``."""
    t1, t2, has1, has2 = chosen
    both = torch.cat([t1, t2])
    inside = (both >= start) & (both < start + 2 * size)
    outside = torch.unique(both[~inside])  # sorted: the extra sentences' order
    local = torch.where(inside, both - start, 2 * size + torch.searchsorted(outside, both))
    return ChosenNegatives(take_sentences(pool, outside), local[:size], local[size:], has1, has2)
