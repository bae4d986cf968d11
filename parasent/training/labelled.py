"""Labelled examples (one or two sentences and a target) tokenized once, as a batch source
for the Trainer: the same epoch order and resume contract as :class:`PairData`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from parasent.encoders.batch import TokenBatch
from parasent.text.tokenized import Tokenized
from parasent.training.batching import BatchSource, training_tokens


@dataclass
class LabelledBatch:
    """``sides`` holds one :class:`TokenBatch` per input sentence (1 for SST, 2 for SICK)."""

    sides: list[TokenBatch]
    targets: torch.Tensor  # float scores or long class indices

    def __len__(self) -> int:
        return int(self.targets.shape[0])

    def token_ids(self) -> torch.Tensor:
        """Every token id of the batch (for the lazy pull of word vectors)."""
        return torch.cat([side.ids for side in self.sides])


class LabelledData(BatchSource):
    """Unique sentences in one CSR array, examples as ``(n, sides)`` indices, and targets."""

    def __init__(self, sentences: Tokenized, index: np.ndarray, targets: np.ndarray) -> None:
        if index.ndim != 2 or len(index) != len(targets):
            raise ValueError("index must have shape (n, sides) with one row per target")
        self.sentences = sentences
        self.index = index.astype(np.int64, copy=False)
        self.targets = targets

    @classmethod
    def from_sides(cls, sides: Sequence[Sequence[str]], targets: np.ndarray, tokenizer) -> LabelledData:
        """``sides[k][i]`` is sentence k of example i; identical sentences are tokenized once."""
        unique: dict[str, int] = {}
        index = np.empty((len(targets), len(sides)), dtype=np.int64)
        for k, side in enumerate(sides):
            if len(side) != len(targets):
                raise ValueError(f"side {k} has {len(side)} sentences for {len(targets)} targets")
            for i, text in enumerate(side):
                index[i, k] = unique.setdefault(text, len(unique))
        return cls(training_tokens(tokenizer.encode_batch(list(unique))), index, np.asarray(targets))

    def __len__(self) -> int:
        return len(self.index)

    def batch(
        self,
        rows: np.ndarray,
        device: torch.device | str | None = None,
        rng: np.random.Generator | None = None,
    ) -> LabelledBatch:
        sides = [
            TokenBatch.from_tokenized(self.sentences.take(self.index[rows, k]), device)
            for k in range(self.index.shape[1])
        ]
        return LabelledBatch(sides, torch.from_numpy(np.ascontiguousarray(self.targets[rows])).to(device))

    def fingerprint_parts(self) -> list:
        return [self.index, self.targets, self.sentences.ids, self.sentences.offsets]
