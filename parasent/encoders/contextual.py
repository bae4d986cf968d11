"""The contextual tier: an averaging model's rows, each moved and weighted by its context.

PARAGRAM-PHRASE averages rows that do not see each other, so "not good" and "good not", or a
word whose sense its neighbours decide, get one vector. The composition functions of Wieting
et al. (2016, Sec. 3) and CSE's convolutions (Jiao et al. 2018, Eq. 2-3) see the neighbours;
here a convolution of width ``width`` over each token's window, with the same zero padding at
the sentence's ends (Jiao et al. Eq. 1), gives a hidden state per token,

    h_i = GELU(b + sum_k W_k x^_{i+k-width//2})                         (CSE, Eq. 2)

(x^ a row at unit root mean square, :func:`rms_scaled`)
that *corrects* the averaging model's own rows instead of replacing them: each row moves by
``U h_i + c`` and is weighted by ``1 + v . h_i + a``, and the sentence vector is the mean

    g(s) = 1/n sum_i (1 + v . h_i + a) (x_i + U h_i + c)

over the n tokens the featurizer gives (words or their pieces, then the listed bigrams).
With ``attention`` A > 0 (``--encoder-option attention=32``), each hidden state also reads the
states within ``reach`` tokens of it in its sentence, one head of scaled dot-product attention
(Vaswani et al. 2017, Eq. 1) over the window,

    h'_i = h_i + sum_{|j-i| <= reach} softmax_j(q_i . k_j / sqrt(A)) v_j,   [q; k; v] = P h + p

so that a token's correction can depend on words beyond its convolution's window; the window
keeps the cost linear in the sentence's length. With
U, c, v and a at zero the model is exactly the averaging model it starts from (``g`` is
PARAGRAM-PHRASE's mean), so training starts from the default's quality and the convolution,
drawn at random, has a gradient from the first step (the calibration's lesson: a residual
branch zeroed *before* its nonlinearity never learns). The cost is two matrix products per
token (3 x D x H and H x D), about 50x below the teacher's per sentence.

The same forward runs in numpy (:mod:`parasent.core.composition`), which the core uses to
encode; this module is the training path. GELU is the tanh form, which numpy computes alike.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from parasent.core.composition import MAX_LAYERS, MAX_REACH, RMS_FLOOR
from parasent.encoders.base import Encoder
from parasent.encoders.batch import TokenBatch


class ContextualAveraging(Encoder):
    """``hidden`` convolution maps of ``width`` (odd) tokens over the rows; the sentence vector
    has the rows' dimension, so the model stays a drop-in for the averaging model it extends."""

    def __init__(
        self,
        vocab_size: int,
        embedding_dim: int,
        hidden: int = 128,
        width: int = 3,
        attention: int = 0,
        reach: int = 8,
        layers: int = 1,
    ) -> None:
        super().__init__(vocab_size, embedding_dim)
        wrong = [
            said
            for holds, said in (
                (hidden >= 1, f"hidden must be >= 1, got {hidden}"),
                (width >= 1 and width % 2 == 1, f"width must be odd, got {width}"),
                (attention >= 0, f"attention must be >= 0, got {attention}"),
                (0 <= reach <= MAX_REACH, f"reach must be in 0..{MAX_REACH}, got {reach}"),
                (1 <= layers <= MAX_LAYERS, f"layers must be in 1..{MAX_LAYERS}, got {layers}"),
            )
            if not holds
        ]
        if wrong:  # the value that is wrong, not every rule
            raise ValueError("; ".join(wrong))
        self.hidden = int(hidden)
        self.width = int(width)
        self.attention = int(attention)
        self.reach = int(reach)
        self.layers = int(layers)
        self.context = nn.Conv1d(embedding_dim, self.hidden, self.width)  # W_k (H, D, width), b
        # layers 2.. : h <- h + GELU(conv(h)), residual over the hidden states (CSE stacks, Eq. 2)
        self.deeper = nn.ModuleList(
            nn.Conv1d(self.hidden, self.hidden, self.width) for _ in range(self.layers - 1)
        )
        if self.attention:  # queries and keys of ``attention`` dims, values of H, over +-reach tokens
            self.attend = nn.Linear(self.hidden, 2 * self.attention + self.hidden)
        self.shift = nn.Linear(self.hidden, embedding_dim)  # U, c: zero, the start is the average
        self.gate = nn.Linear(self.hidden, 1)  # v, a: zero, every token weighs 1
        for layer in (self.shift, self.gate):
            nn.init.zeros_(layer.weight)
            nn.init.zeros_(layer.bias)

    def hyperparameters(self) -> dict[str, Any]:
        config = {"hidden": self.hidden, "width": self.width}
        if self.attention:
            config.update(attention=self.attention, reach=self.reach)
        if self.layers > 1:
            config["layers"] = self.layers
        return config

    def forward(self, batch: TokenBatch) -> torch.Tensor:
        return self.with_token_outputs(batch)[0]

    def with_token_outputs(self, batch: TokenBatch) -> tuple[torch.Tensor, torch.Tensor]:
        """The sentence vectors ``(B, D)`` and the terms of their means, each token's moved and
        weighted row ``(N, D)`` (what the per-token teacher term matches: objectives/distillation.py)."""
        vectors = self.embed(batch.ids)  # (N, D), flat
        owner = batch.sentence_of_token()
        hidden = F.gelu(self._convolve(rms_scaled(vectors), self.context, batch, owner), approximate="tanh")
        for layer in self.deeper:
            hidden = hidden + F.gelu(self._convolve(hidden, layer, batch, owner), approximate="tanh")
        if self.attention:
            hidden = hidden + self._attend(hidden, batch, owner)
        moved = vectors + self.shift(hidden)
        weighted = moved * (1.0 + self.gate(hidden))
        total = weighted.new_zeros(len(batch), weighted.shape[1]).index_add(0, owner, weighted)
        return total / batch.lengths.clamp(min=1).unsqueeze(1).to(total.dtype), weighted

    def _convolve(
        self, inputs: torch.Tensor, layer: nn.Conv1d, batch: TokenBatch, owner: torch.Tensor
    ) -> torch.Tensor:
        """``(N, H)``: each token's window of ``inputs``, zero beyond its sentence's ends,
        through the convolution ``layer`` (the rows enter the first at unit RMS, :func:`rms_scaled`)."""
        count = inputs.shape[0]
        weight = layer.weight  # (H, D, width)
        products = inputs @ weight.permute(1, 2, 0).reshape(inputs.shape[1], -1)  # (N, width * H)
        products = products.view(count, self.width, self.hidden)
        position = torch.arange(count, device=inputs.device)
        local = position - batch.offsets[owner]
        length = batch.lengths[owner]
        out = layer.bias.expand(count, self.hidden)
        for k in range(self.width):
            step = k - self.width // 2
            inside = (local + step >= 0) & (local + step < length)
            source = (position + step).clamp(0, max(count - 1, 0))
            out = out + products[source, k] * inside.unsqueeze(1).to(products.dtype)
        return out

    def _attend(self, hidden: torch.Tensor, batch: TokenBatch, owner: torch.Tensor) -> torch.Tensor:
        """``(N, H)``: each token's attention over the tokens within ``reach`` of it in its
        sentence (itself included), softmax(q_i . k_j / sqrt(A)) v_j (Vaswani et al. 2017, Eq. 1)."""
        count = hidden.shape[0]
        if count == 0:
            return hidden
        query, key, value = self.attend(hidden).split([self.attention, self.attention, self.hidden], dim=1)
        position = torch.arange(count, device=hidden.device)
        local = position - batch.offsets[owner]
        length = batch.lengths[owner]
        reach = min(self.reach, int(batch.lengths.max()) - 1)  # offsets no sentence reaches
        steps = range(-reach, reach + 1)
        sources = torch.stack([(position + step).clamp(0, max(count - 1, 0)) for step in steps], dim=1)
        inside = torch.stack([(local + step >= 0) & (local + step < length) for step in steps], dim=1)
        scores = (query.unsqueeze(1) * key[sources]).sum(dim=2) / self.attention**0.5
        weights = torch.softmax(scores.masked_fill(~inside, float("-inf")), dim=1)
        return (weights.unsqueeze(2) * value[sources]).sum(dim=1)


def rms_scaled(vectors: torch.Tensor) -> torch.Tensor:
    """Each row divided by its root mean square (a zero row stays zero). An averaging model's
    rows are small (the default's: RMS about 0.03, their norms the words' weights), so the
    convolution's pre-activations would sit at about 0.01, where GELU is linear and the branch
    could add nothing an average of neighbours does not; at unit RMS it starts nonlinear. The
    rows' own scale still reaches the sentence through the residual ``x_i`` of the mean."""
    rms = vectors.pow(2).mean(dim=1, keepdim=True).sqrt()
    return vectors / rms.clamp(min=float(RMS_FLOOR))
