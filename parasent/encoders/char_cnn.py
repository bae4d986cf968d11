"""charCNN, the character convolutional baseline of the CHARAGRAM supplement: character
embeddings, convolution filters of several widths with a filter activation (relu or tanh,
tuned there), max pooling over positions, and a fully connected layer with tanh or linear
activation (tuned there) giving the sentence vector."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import torch
from torch import nn

from parasent.encoders.activations import activation, check_choice
from parasent.encoders.base import Encoder
from parasent.encoders.batch import TokenBatch
from parasent.encoders.windows import FlatWindows


class CharCNN(Encoder):
    """The supplement names the tuned activations but not the filter widths or counts; the
    defaults here are widths 2, 3, 4 (the n-gram orders of CHARAGRAM) with ``feature_maps``
    filters each (default: the character embedding dimension), and an output of
    ``output_dim`` (default: the character embedding dimension). Character embeddings start
    random, N(0, 1/D). Sequences shorter than a filter are zero-padded to one window.
    """

    def __init__(
        self,
        vocab_size: int,
        embedding_dim: int,
        widths: Sequence[int] = (2, 3, 4),
        feature_maps: int | None = None,
        filter_activation: str = "relu",
        output_activation: str = "tanh",
        output_dim: int | None = None,
    ) -> None:
        super().__init__(vocab_size, embedding_dim)
        self.widths = [int(w) for w in widths]
        if not self.widths or min(self.widths) < 1:
            raise ValueError(f"widths must be positive filter widths, got {list(widths)}")
        self.feature_maps = int(feature_maps or embedding_dim)
        self.filter_activation = check_choice("filter_activation", filter_activation, ("relu", "tanh"))
        self.output_activation = check_choice("output_activation", output_activation, ("tanh", "linear"))
        self._output_dim = int(output_dim or embedding_dim)
        self.convolutions = nn.ModuleList(nn.Conv1d(embedding_dim, self.feature_maps, w) for w in self.widths)
        self.output = nn.Linear(self.feature_maps * len(self.widths), self._output_dim)
        self.randomize_embeddings(1.0 / math.sqrt(embedding_dim))

    @property
    def output_dim(self) -> int:
        return self._output_dim

    def hyperparameters(self) -> dict[str, Any]:
        return {
            "widths": self.widths,
            "feature_maps": self.feature_maps,
            "filter_activation": self.filter_activation,
            "output_activation": self.output_activation,
            "output_dim": self._output_dim,
        }

    def forward(self, batch: TokenBatch) -> torch.Tensor:
        windows = FlatWindows.build(batch, min_length=max(self.widths))
        vectors = self.embed(windows.ids)
        f = activation(self.filter_activation)
        pooled = []
        for width, convolution in zip(self.widths, self.convolutions, strict=True):
            features = f(windows.convolve(vectors, convolution.weight, convolution.bias))
            pooled.append(windows.max_pool(features, windows.valid(width)))
        return activation(self.output_activation)(self.output(torch.cat(pooled, dim=1)))
