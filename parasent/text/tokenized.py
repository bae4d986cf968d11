"""Token ids of many sentences in one flat array plus offsets (CSR layout)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Tokenized:
    """Sentence i has tokens ``ids[offsets[i]:offsets[i + 1]]``.

    Flat storage keeps a corpus of a million sentences in two arrays instead of a million
    Python lists, and lets a batch be gathered with vectorised numpy (no per-sentence loop).
    """

    ids: np.ndarray  # int64, (total_tokens,)
    offsets: np.ndarray  # int64, (n + 1,)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @property
    def lengths(self) -> np.ndarray:
        return self.offsets[1:] - self.offsets[:-1]

    def token_sentences(self) -> np.ndarray:
        """The sentence of each token (int64, one per id)."""
        return np.repeat(np.arange(len(self), dtype=np.int64), self.lengths)

    def sentence(self, index: int) -> np.ndarray:
        return self.ids[self.offsets[index] : self.offsets[index + 1]]

    def take(self, indices: np.ndarray) -> Tokenized:
        """The sub-corpus of ``indices`` (in that order), gathered without a Python loop."""
        positions, offsets = self._gather(indices)
        return Tokenized(self.ids[positions], offsets)

    def positions(self, indices: np.ndarray) -> np.ndarray:
        """The token positions of the sentences ``indices``, in the order :meth:`take` gathers them."""
        return self._gather(indices)[0]

    def _gather(self, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        indices = np.asarray(indices, dtype=np.int64)
        starts = self.offsets[indices]
        lengths = self.offsets[indices + 1] - starts
        offsets = np.zeros(len(indices) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        positions = np.repeat(starts - offsets[:-1], lengths) + np.arange(offsets[-1], dtype=np.int64)
        return positions, offsets

    def head(self, limit: int) -> Tokenized:
        """Each sentence's first ``limit`` tokens (a limit on what is read: ``max_seq_length``)."""
        lengths = np.minimum(self.lengths, limit)
        if (lengths == self.lengths).all():
            return self
        offsets = np.zeros(len(self) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        positions = np.repeat(self.offsets[:-1] - offsets[:-1], lengths) + np.arange(
            offsets[-1], dtype=np.int64
        )
        return Tokenized(self.ids[positions], offsets)

    def with_sentences(self, which: np.ndarray, others: Tokenized) -> Tokenized:
        """This corpus with sentence ``which[k]`` (ascending) replaced by sentence k of
        ``others``: the runs between them and the replacements joined in one pass (few
        sentences replaced among many)."""
        pieces, previous = [], 0
        for k, i in enumerate(which.tolist()):
            pieces += (self.ids[previous : self.offsets[i]], others.sentence(k))
            previous = int(self.offsets[i + 1])
        pieces.append(self.ids[previous:])
        lengths = self.lengths
        lengths[which] = others.lengths
        offsets = np.zeros(len(self) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        return Tokenized(np.concatenate(pieces), offsets)

    def without(self, token_id: int) -> Tokenized:
        """Drop every occurrence of ``token_id`` (used to skip unknown words)."""
        keep = self.ids != token_id
        if keep.all():
            return self
        counts = np.bincount(self.token_sentences()[keep], minlength=len(self))
        offsets = np.zeros(len(self) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        return Tokenized(self.ids[keep], offsets)

    @staticmethod
    def from_lists(lists: list[list[int]]) -> Tokenized:
        lengths = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
        offsets = np.zeros(len(lists) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        ids = np.fromiter(itertools.chain.from_iterable(lists), dtype=np.int64, count=int(offsets[-1]))
        return Tokenized(ids, offsets)

    @staticmethod
    def concatenate(parts: list[Tokenized]) -> Tokenized:
        if not parts:
            return Tokenized(np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64))
        ids = np.concatenate([p.ids for p in parts])
        lengths = np.concatenate([p.lengths for p in parts])
        offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        return Tokenized(ids, offsets)
