"""The deep averaging network (Iyyer et al. 2015) as compared by Wieting et al. (2016, Sec. 3):
the mean of the word vectors through 1 or 2 layers h_k = f(W_k h_{k-1} + b_k)."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from parasent.encoders.activations import activation, check_choice
from parasent.encoders.base import Encoder
from parasent.encoders.batch import TokenBatch
from parasent.encoders.projection import INITS, init_square


class DAN(Encoder):
    """``layers`` fully connected ``D x D`` layers, each followed by ``activation`` (tanh or
    relu, the paper's tuned choices); the last layer's output is the sentence vector, of the
    word vectors' dimension as in the paper."""

    def __init__(
        self,
        vocab_size: int,
        embedding_dim: int,
        layers: int = 1,
        activation: str = "tanh",
        init: str = "random",
    ) -> None:
        super().__init__(vocab_size, embedding_dim)
        if layers < 1:
            raise ValueError(f"layers must be at least 1, got {layers}")
        self.layers = int(layers)
        self.activation = check_choice("activation", activation, ("tanh", "relu"))
        self.init = check_choice("init", init, INITS)
        self.hidden = nn.ModuleList(nn.Linear(embedding_dim, embedding_dim) for _ in range(self.layers))
        for layer in self.hidden:
            init_square(layer, init)

    def hyperparameters(self) -> dict[str, Any]:
        return {"layers": self.layers, "activation": self.activation, "init": self.init}

    def forward(self, batch: TokenBatch) -> torch.Tensor:
        f = activation(self.activation)
        h = self.embed_sum(batch) / batch.lengths.clamp(min=1).unsqueeze(1)
        for layer in self.hidden:
            h = f(layer(h))
        return h
