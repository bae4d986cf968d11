"""PARAGRAM-PHRASE word averaging (Wieting et al. 2016, Sec. 3): g(x) = 1/n * sum_i W_w[x_i]."""

from __future__ import annotations

import torch

from parasent.encoders.base import Encoder
from parasent.encoders.batch import TokenBatch


class WordAveraging(Encoder):
    """The mean of the word vectors of a sentence; the word vectors are the only parameters.

    Summation runs as an ``embedding_bag`` over the flat ids with a sparse gradient, so a
    training step touches only the rows of the words in the batch. An empty sentence is the
    zero vector.
    """

    def forward(self, batch: TokenBatch) -> torch.Tensor:
        total = self.embed_sum(batch)
        return total / batch.lengths.clamp(min=1).unsqueeze(1).to(total.dtype)
