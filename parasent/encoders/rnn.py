"""A standard recurrent network (Wieting et al. 2016, Sec. 3):
h_t = f(W_x W_w[x_t] + W_h h_{t-1} + b), g(x) = h of the last token."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from parasent.encoders.activations import activation, check_choice
from parasent.encoders.base import Encoder
from parasent.encoders.batch import TokenBatch
from parasent.encoders.recurrence import run_recurrence


class RNN(Encoder):
    """``f`` is tanh or relu (the paper tunes the choice); ``W_x`` is Glorot-uniform, ``W_h`` a
    random orthogonal matrix, ``b`` zero ("randomly initialized weight matrices"). The hidden
    size defaults to the word dimension, as the paper fixes it. ``h_0 = 0``, so an empty
    sentence is the zero vector.
    """

    activations: tuple[str, ...] = ("tanh", "relu")

    def __init__(
        self, vocab_size: int, embedding_dim: int, activation: str = "tanh", hidden_dim: int | None = None
    ) -> None:
        super().__init__(vocab_size, embedding_dim)
        self.activation = check_choice("activation", activation, self.activations)
        self.hidden_dim = int(hidden_dim or embedding_dim)
        self.input = nn.Linear(embedding_dim, self.hidden_dim)  # W_x and b
        self.recurrent = nn.Linear(self.hidden_dim, self.hidden_dim, bias=False)  # W_h
        self.reset_composition()

    def reset_composition(self) -> None:
        with torch.no_grad():
            nn.init.xavier_uniform_(self.input.weight)
            nn.init.orthogonal_(self.recurrent.weight)
            self.input.bias.zero_()

    @property
    def output_dim(self) -> int:
        return self.hidden_dim

    def hyperparameters(self) -> dict[str, Any]:
        return {"activation": self.activation, "hidden_dim": self.hidden_dim}

    def last_hidden(self, batch: TokenBatch) -> torch.Tensor:
        vectors, _ = self.embed_padded(batch)
        projected = self.input(vectors)  # W_x x_t + b for every position at once
        f = activation(self.activation)

        def cell(x_t: torch.Tensor, state: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor]:
            return (f(torch.addmm(x_t, state[0], self.recurrent.weight.t())),)

        (h,) = run_recurrence(
            projected, batch.lengths, cell, (projected.new_zeros(len(batch), self.hidden_dim),)
        )
        return h

    def forward(self, batch: TokenBatch) -> torch.Tensor:
        return self.last_hidden(batch)
