"""CHARAGRAM (Wieting et al. 2016, CHARAGRAM supplement): a sentence is the vector c of counts
of its character n-grams (n = 2, 3, 4, over the whole character sequence with spaces and
boundary markers, see :mod:`parasent.text.characters`), and g(x) = h(W c + b) with h tanh
or linear."""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import nn

from parasent.encoders.activations import activation, check_choice
from parasent.encoders.base import Encoder
from parasent.encoders.batch import TokenBatch


class Charagram(Encoder):
    """The columns of ``W`` are the rows of ``self.embedding`` (one per n-gram of the
    vocabulary), so ``W c`` is a sum of embedding rows: an ``embedding_bag`` over the
    sentence's n-gram ids, repeated n-grams counted. ``b`` is the only composition
    parameter. ``W`` starts random, N(0, 1/D), since there are no pretrained n-gram vectors.
    """

    def __init__(self, vocab_size: int, embedding_dim: int, activation: str = "tanh") -> None:
        super().__init__(vocab_size, embedding_dim)
        self.activation = check_choice("activation", activation, ("tanh", "linear"))
        self.bias = nn.Parameter(torch.zeros(embedding_dim))
        self.randomize_embeddings(1.0 / math.sqrt(embedding_dim))

    def hyperparameters(self) -> dict[str, Any]:
        return {"activation": self.activation}

    def forward(self, batch: TokenBatch) -> torch.Tensor:
        return activation(self.activation)(self.embed_sum(batch) + self.bias)
