"""CSE, the convolutional sentence encoder of Jiao et al. (2018, Sec. 3.1).

A filter w of width h gives a feature per window of h words, c_i = f(w . x_{i:i+h-1} + b)
(Eq. 2), over every window of the sentence (Eq. 3); the feature map is pooled by its
**sum** (not the mean: the authors want sentences of different lengths but close meaning
to be matched by features of words and n-grams), and the pooled features of all filters
are concatenated (Eq. 4). Filters of width 1 see single words, so CSE generalises word
averaging: with only width-1 filters and a linear f, g(x) = W (sum_i x_i) + n b.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from torch import nn

from parasent.encoders.activations import activation, check_choice
from parasent.encoders.base import Encoder
from parasent.encoders.batch import TokenBatch
from parasent.encoders.windows import FlatWindows


def split_maps(total: int, parts: int) -> list[int]:
    """``total`` feature maps over ``parts`` filter widths, as evenly as possible (earlier widths
    take the remainder): 300 over 3 gives the paper's 100 each; 50 gives 17, 17, 16."""
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


class CSE(Encoder):
    """``widths`` (default 1, 2, 3, the paper's) with ``feature_maps`` each: an int for every
    width, a list per width, or by default the word dimension split across the widths, so
    that the sentence vector has the word vectors' dimension as the paper arranges
    (3 x 100 for 300d words). ``activation`` is linear (the paper's reported setting) or
    tanh. An empty sentence is the zero vector.
    """

    def __init__(
        self,
        vocab_size: int,
        embedding_dim: int,
        widths: Sequence[int] = (1, 2, 3),
        feature_maps: int | Sequence[int] | None = None,
        activation: str = "linear",
    ) -> None:
        super().__init__(vocab_size, embedding_dim)
        self.widths = [int(w) for w in widths]
        if not self.widths or min(self.widths) < 1:
            raise ValueError(f"widths must be positive filter widths, got {list(widths)}")
        if feature_maps is None:
            maps = split_maps(embedding_dim, len(self.widths))
        elif isinstance(feature_maps, int):
            maps = [feature_maps] * len(self.widths)
        else:
            maps = [int(m) for m in feature_maps]
        if len(maps) != len(self.widths) or min(maps) < 1:
            raise ValueError(f"feature_maps must give a positive count per width, got {feature_maps}")
        self.feature_maps = maps
        self.activation = check_choice("activation", activation, ("linear", "tanh"))
        # Conv1d modules hold the filters (weight (maps, D, width), bias); the convolution
        # itself runs on the flat layout of :mod:`parasent.encoders.windows`.
        self.convolutions = nn.ModuleList(
            nn.Conv1d(embedding_dim, m, w) for w, m in zip(self.widths, maps, strict=True)
        )

    @property
    def output_dim(self) -> int:
        return sum(self.feature_maps)

    def hyperparameters(self) -> dict[str, Any]:
        return {"widths": self.widths, "feature_maps": self.feature_maps, "activation": self.activation}

    def forward(self, batch: TokenBatch) -> torch.Tensor:
        windows = FlatWindows.build(batch, min_length=max(self.widths))
        vectors = self.embed(windows.ids)
        f = activation(self.activation)
        pooled = []
        for width, convolution in zip(self.widths, self.convolutions, strict=True):
            features = f(windows.convolve(vectors, convolution.weight, convolution.bias))
            pooled.append(windows.sum_pool(features, windows.valid(width)))
        return torch.cat(pooled, dim=1)
