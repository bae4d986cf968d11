"""Paraphrase pairs tokenized once, batched without per-example Python work."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from parasent.encoders.batch import TokenBatch
from parasent.text.featurizers import Featurizer
from parasent.text.tokenized import Tokenized
from parasent.training.batching import BatchSource, training_tokens


@dataclass
class PairBatch:
    """Both sides of a batch of pairs, with the id of each unique sentence (for negative masking)."""

    left: TokenBatch
    right: TokenBatch
    left_ids: torch.Tensor
    right_ids: torch.Tensor
    negatives: Any = None  # negatives chosen beforehand (mega-batch), else chosen in the batch
    scores: torch.Tensor | None = None  # each pair's gold score (NaN: none) when the objective ranks them
    sources: torch.Tensor | None = None  # each pair's source (a file): scores compare within one

    def __len__(self) -> int:
        return len(self.left)


class PairData(BatchSource):
    """Unique sentences in one CSR array and pairs as ``(n, 2)`` indices into it.

    The epoch order is a permutation drawn from ``(seed, epoch)`` alone, so that a run
    resumed at any batch of any epoch sees exactly the batches an uninterrupted run sees.

    ``length_buckets = k > 0`` batches by length for sequence encoders, whose step costs one
    recurrence per position of the longest sentence in the batch: the shuffled pairs are cut
    into chunks of ``k`` batches, each chunk is sorted by pair length (the longer side) and
    cut into batches, and the order of the batches is shuffled. Batches then hold pairs of
    similar length (so in-batch negatives do too); ``0`` keeps the paper's random batches.
    """

    def __init__(
        self,
        sentences: Tokenized,
        pairs: np.ndarray,
        texts: Sequence[str] | None = None,
        length_buckets: int = 0,
        scores: np.ndarray | None = None,
        sources: np.ndarray | None = None,
    ) -> None:
        if pairs.ndim != 2 or pairs.shape[1] != 2:
            raise ValueError("pairs must have shape (n, 2)")
        self.sentences = sentences
        self.pairs = pairs.astype(np.int64, copy=False)
        self.texts = texts
        self.length_buckets = int(length_buckets)
        self.scores = scores
        self.sources = (
            sources if sources is not None or scores is None else np.zeros(len(pairs), dtype=np.int64)
        )

    @classmethod
    def from_pairs(cls, pairs: Sequence, tokenizer: Featurizer, *, scores: bool = False) -> PairData:
        """``pairs`` have ``s1`` and ``s2``; identical sentences share one id. With ``scores``,
        each pair's ``score`` (NaN where it has none) rides along in its batch."""
        index: dict[str, int] = {}
        ids = np.empty((len(pairs), 2), dtype=np.int64)
        for i, pair in enumerate(pairs):
            ids[i, 0] = index.setdefault(pair.s1, len(index))
            ids[i, 1] = index.setdefault(pair.s2, len(index))
        texts = list(index)
        gold = sources = None
        if scores:
            gold = np.array([np.nan if p.score is None else p.score for p in pairs], dtype=np.float32)
            names: dict[str, int] = {}
            sources = np.array([names.setdefault(p.source, len(names)) for p in pairs], dtype=np.int64)
        return cls(training_tokens(tokenizer.encode_batch(texts)), ids, texts, scores=gold, sources=sources)

    def __len__(self) -> int:
        return len(self.pairs)

    def order(self, epoch: int, seed: int, batch_size: int | None = None) -> np.ndarray:
        """Pair indices of an epoch; consecutive ``batch_size`` slices are its batches."""
        order = np.random.default_rng([seed, epoch]).permutation(len(self))
        if not self.length_buckets or batch_size is None:
            return order
        lengths = self.sentences.lengths[self.pairs].max(axis=1)[order]
        chunk = self.length_buckets * batch_size
        for start in range(0, len(order), chunk):
            part = slice(start, start + chunk)
            order[part] = order[part][np.argsort(lengths[part], kind="stable")]
        full = len(order) // batch_size  # a last, partial batch stays last
        shuffled = np.random.default_rng([seed, epoch, 1]).permutation(full)
        batches = order[: full * batch_size].reshape(full, batch_size)[shuffled].ravel()
        return np.concatenate([batches, order[full * batch_size :]])

    def batch(
        self,
        indices: np.ndarray,
        device: torch.device | str | None = None,
        rng: np.random.Generator | None = None,
    ) -> PairBatch:
        left, right = self.pairs[indices, 0], self.pairs[indices, 1]
        return PairBatch(
            TokenBatch.from_tokenized(self.sentences.take(left), device),
            TokenBatch.from_tokenized(self.sentences.take(right), device),
            torch.from_numpy(left).to(device),
            torch.from_numpy(right).to(device),
            scores=None if self.scores is None else torch.from_numpy(self.scores[indices]).to(device),
            sources=None if self.sources is None else torch.from_numpy(self.sources[indices]).to(device),
        )

    def fingerprint_parts(self) -> list:
        """The pairs and their token ids (and any length bucketing): a resumed run must match."""
        parts: list = [f"length_buckets={self.length_buckets}"] if self.length_buckets else []
        if self.scores is not None:
            parts += [self.scores, self.sources]
        return [*parts, self.pairs, self.sentences.ids, self.sentences.offsets]
