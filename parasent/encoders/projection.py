"""Word averaging followed by a learned projection (Wieting et al. 2016, Sec. 3):
g(x) = W_p (1/n sum_i W_w[x_i]) + b."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from parasent.encoders.activations import check_choice
from parasent.encoders.base import Encoder
from parasent.encoders.batch import TokenBatch

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
    """``W_p`` is ``D x D`` by default: the paper fixes the output dimension to that of the word
    vectors (Sec. 4.2.1). ``output_dim`` makes it ``output_dim x D``: the projected features
    of Sec. 4.4.2 (Table 6), where the projection raises the dimension to 1200 or 2400.

    The paper does not say how ``W_p`` starts; ``init="random"`` (Glorot) is the default and
    ``"identity"`` starts the model exactly at word averaging (square only). An empty sentence
    gives ``b``.
    """

    def __init__(
        self, vocab_size: int, embedding_dim: int, init: str = "random", output_dim: int | None = None
    ) -> None:
        super().__init__(vocab_size, embedding_dim)
        self.init = check_choice("init", init, INITS)
        if output_dim is not None and output_dim < 1:
            raise ValueError(f"output_dim must be positive, got {output_dim}")
        if init == "identity" and output_dim not in (None, embedding_dim):
            # The rows beyond the identity would start at zero and, under a cosine objective,
            # get exactly zero gradient: the model would stay a square projection padded with zeros.
            raise ValueError("init 'identity' needs a square projection; use init 'random' with output_dim")
        self.projected_dim = output_dim
        self.projection = nn.Linear(embedding_dim, output_dim or embedding_dim)
        init_square(self.projection, init)

    @property
    def output_dim(self) -> int:
        return self.projection.out_features

    def hyperparameters(self) -> dict[str, Any]:
        if self.projected_dim is None:
            return {"init": self.init}  # the configs of square projections stay as they were
        return {"init": self.init, "output_dim": self.projected_dim}

    def forward(self, batch: TokenBatch) -> torch.Tensor:
        mean = self.embed_sum(batch) / batch.lengths.clamp(min=1).unsqueeze(1)
        return self.projection(mean)
