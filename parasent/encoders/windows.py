"""Convolution over the windows of each sentence, on the flat token layout.

Padding a batch to its longest sentence makes a convolution cost ``B x T_max``; paraphrase
batches mix one-word pairs with 70-token tweets, so most of that is padding. Here each
sentence is padded only to the widest filter (a sentence shorter than a filter is
zero-padded to one window, Jiao et al. Eq. 1 "padded when necessary"), the sentences are
laid end to end, and a filter of width h is a sum of h shifted matrix products. A window
is valid when it starts inside its sentence and, for a sentence of n >= h words, ends inside
it: a sentence has max(n - h + 1, 1) windows (none when empty). Results do not depend on
the other sentences of the batch.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from parasent.encoders.batch import TokenBatch
from parasent.text.tokenizer import PAD_ID


@dataclass
class FlatWindows:
    ids: torch.Tensor  # (S + tail,) token ids; sentence i occupies max(n_i, min_length) slots
    sentence: torch.Tensor  # (S,) the sentence of each slot (a possible window start)
    local: torch.Tensor  # (S,) the slot's position within its sentence
    lengths: torch.Tensor  # (B,) words per sentence
    starts: int  # S

    @classmethod
    def build(cls, batch: TokenBatch, min_length: int) -> FlatWindows:
        lengths = batch.lengths
        device = lengths.device
        slots = torch.where(lengths > 0, lengths.clamp(min=min_length), torch.zeros_like(lengths))
        offsets = torch.cumsum(slots, 0) - slots
        total = int(slots.sum())
        ids = torch.full((total + min_length - 1,), PAD_ID, dtype=batch.ids.dtype, device=device)
        owner = batch.sentence_of_token()
        within = torch.arange(len(batch.ids), device=device) - batch.offsets[owner]
        ids[offsets[owner] + within] = batch.ids
        sentence = torch.repeat_interleave(torch.arange(len(batch), device=device), slots)
        local = torch.arange(total, device=device) - offsets[sentence]
        return cls(ids, sentence, local, lengths, total)

    def valid(self, width: int) -> torch.Tensor:
        """``(S,)``: whether a window of ``width`` starts at each slot."""
        windows = torch.where(self.lengths > 0, (self.lengths - width + 1).clamp(min=1), 0)
        return self.local < windows[self.sentence]

    def convolve(self, vectors: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        """``(S, maps)``: ``bias + sum_k weight[:, :, k] . x_{s+k}`` at every slot ``s``.

        ``vectors`` are the ``(S + tail, D)`` vectors of ``ids``; ``weight`` is a
        ``Conv1d`` weight ``(maps, D, width)`` (the same cross-correlation).
        """
        maps, _, width = weight.shape
        stacked = weight.permute(2, 0, 1).reshape(width * maps, -1)  # row k * maps + j = weight[j, :, k]
        products = (vectors @ stacked.T).view(-1, width, maps)
        out = bias.expand(self.starts, maps)
        for k in range(width):
            out = out + products[k : k + self.starts, k]
        return out

    def sum_pool(self, features: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
        """``(B, maps)``: the sum of each sentence's valid windows (zero without any)."""
        pooled = features.new_zeros(len(self.lengths), features.shape[1])
        return pooled.index_add(0, self.sentence, features * valid.unsqueeze(1))

    def max_pool(self, features: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
        """``(B, maps)``: the max over each sentence's valid windows (zero without any)."""
        masked = features.masked_fill(~valid.unsqueeze(1), float("-inf"))
        index = self.sentence.unsqueeze(1).expand_as(masked)
        pooled = masked.new_full((len(self.lengths), masked.shape[1]), float("-inf"))
        pooled = pooled.scatter_reduce(0, index, masked, reduce="amax", include_self=False)
        return torch.where(torch.isfinite(pooled), pooled, torch.zeros_like(pooled))
