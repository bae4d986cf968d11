"""The LSTM of Wieting et al. (2016, Sec. 3), in the form of Gers et al. (2003) with peepholes:

    i_t = sigma(W_xi x_t + W_hi h_{t-1} + W_ci c_{t-1} + b_i)
    f_t = sigma(W_xf x_t + W_hf h_{t-1} + W_cf c_{t-1} + b_f)
    c_t = f_t c_{t-1} + i_t tanh(W_xc x_t + W_hc h_{t-1} + b_c)
    o_t = sigma(W_xo x_t + W_ho h_{t-1} + W_co c_t + b_o)
    h_t = o_t tanh(c_t)

and g(x) = h of the last token. ``torch.nn.LSTM`` has no peepholes, so the cell is written
here. Without the output gate (the paper's better variant out of domain) h_t = tanh(c_t).
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from parasent.encoders.base import Encoder
from parasent.encoders.batch import TokenBatch
from parasent.encoders.recurrence import run_recurrence


class LSTM(Encoder):
    """Peephole weights ``W_c*`` are diagonal (one weight per cell, as in Gers et al.: a gate
    sees its own cell's state), stored as vectors. Input weights are Glorot-uniform,
    recurrent weights random orthogonal per gate, biases and peepholes zero. The hidden
    size defaults to the word dimension. ``h_0 = c_0 = 0``.
    """

    def __init__(
        self, vocab_size: int, embedding_dim: int, output_gate: bool = True, hidden_dim: int | None = None
    ) -> None:
        super().__init__(vocab_size, embedding_dim)
        self.output_gate = bool(output_gate)
        self.hidden_dim = h = int(hidden_dim or embedding_dim)
        self.gates = 4 if self.output_gate else 3  # i, f, candidate, [o]
        self.input = nn.Linear(embedding_dim, self.gates * h)  # W_x* and b_*
        self.recurrent = nn.Linear(h, self.gates * h, bias=False)  # W_h*
        self.peephole = nn.Parameter(torch.zeros(self.gates - 1, h))  # W_ci, W_cf, [W_co]
        self.reset_composition()

    def reset_composition(self) -> None:
        h = self.hidden_dim
        with torch.no_grad():
            for g in range(self.gates):
                nn.init.xavier_uniform_(self.input.weight[g * h : (g + 1) * h])
                nn.init.orthogonal_(self.recurrent.weight[g * h : (g + 1) * h])
            self.input.bias.zero_()
            self.peephole.zero_()

    @property
    def output_dim(self) -> int:
        return self.hidden_dim

    def hyperparameters(self) -> dict[str, Any]:
        return {"output_gate": self.output_gate, "hidden_dim": self.hidden_dim}

    def forward(self, batch: TokenBatch) -> torch.Tensor:
        vectors, _ = self.embed_padded(batch)
        projected = self.input(vectors)  # W_x* x_t + b_* for every position at once
        peepholes = self.peephole.unbind(0)
        size = self.hidden_dim

        def cell(x_t: torch.Tensor, state: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor, ...]:
            h, c = state
            z = torch.addmm(x_t, h, self.recurrent.weight.t())
            i = torch.sigmoid(z[:, :size] + peepholes[0] * c)
            f = torch.sigmoid(z[:, size : 2 * size] + peepholes[1] * c)
            c = f * c + i * torch.tanh(z[:, 2 * size : 3 * size])
            if self.output_gate:
                o = torch.sigmoid(z[:, 3 * size :] + peepholes[2] * c)
                return o * torch.tanh(c), c
            return torch.tanh(c), c

        zeros = projected.new_zeros(len(batch), size)
        h, _ = run_recurrence(projected, batch.lengths, cell, (zeros, zeros))
        return h
