"""Word averaging followed by a learned projection (Wieting et al. 2016, Sec. 3):
g(x) = W_p (1/n sum_i W_w[x_i]) + b."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from parasent.encoders.activations import check_choice
from parasent.encoders.base import Encoder, TokenBatch

INITS = ("random", "identity")


def init_square(layer: nn.Linear, init: str) -> None:
    """``random``: Glorot-uniform weights; ``identity``: the identity matrix (the layer starts
    as a no-op). Biases start at zero."""
    with torch.no_grad():
        if init == "identity":
            layer.weight.copy_(torch.eye(layer.out_features, layer.in_features))
        else:
            nn.init.xavier_uniform_(layer.weight)
        if layer.bias is not None:
            layer.bias.zero_()


class Projection(Encoder):
    """``W_p`` is ``D x D``: the paper fixes the output dimension to that of the word vectors.

    The paper does not say how ``W_p`` starts; ``init="random"`` (Glorot) is the default and
    ``"identity"`` starts the model exactly at word averaging. An empty sentence gives ``b``.
    """

    name = "projection"

    def __init__(self, vocab_size: int, embedding_dim: int, init: str = "random") -> None:
        super().__init__(vocab_size, embedding_dim)
        self.init = check_choice("init", init, INITS)
        self.projection = nn.Linear(embedding_dim, embedding_dim)
        init_square(self.projection, init)

    def hyperparameters(self) -> dict[str, Any]:
        return {"init": self.init}

    def forward(self, batch: TokenBatch) -> torch.Tensor:
        mean = self.embed_sum(batch) / batch.lengths.clamp(min=1).unsqueeze(1)
        return self.projection(mean)
