"""The identity-RNN of Wieting et al. (2016, Sec. 3): an RNN whose weight matrices start as
the identity, bias at zero, with the identity activation, and whose last hidden state is
divided by the number of tokens, so that before any update it is exactly word averaging."""

from __future__ import annotations

from typing import Any

import torch

from parasent.encoders.batch import TokenBatch
from parasent.encoders.rnn import RNN


class IdentityRNN(RNN):
    """h_t = W_x x_t + W_h h_{t-1} + b with W_x = W_h = I, b = 0 initially; g(x) = h_n / n.

    ``composition_prior = "initial"``: ``lambda_c`` pulls W_x, W_h and b back to I, I and 0
    (the paper tunes lambda_c over {1000, 100, 10, 1}), so that with strong regularisation
    the model stays word averaging while being able to use word order.
    """

    composition_prior = "initial"
    activations = ("linear",)

    def __init__(self, vocab_size: int, embedding_dim: int) -> None:
        super().__init__(vocab_size, embedding_dim, activation="linear")

    def reset_composition(self) -> None:
        with torch.no_grad():
            self.input.weight.copy_(torch.eye(self.hidden_dim))
            self.recurrent.weight.copy_(torch.eye(self.hidden_dim))
            self.input.bias.zero_()

    def hyperparameters(self) -> dict[str, Any]:
        return {}

    def forward(self, batch: TokenBatch) -> torch.Tensor:
        return self.last_hidden(batch) / batch.lengths.clamp(min=1).unsqueeze(1)
