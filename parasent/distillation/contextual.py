"""Contextual word vectors: the mean of a teacher's token embeddings of a word over a corpus.

A mean-pooling teacher's sentence embedding is the (normalised) mean of its contextual token
embeddings; the static vector that best stands in for word w across its occurrences, in the
least-squares sense, is the average of w's contextual embeddings (the "aggregated" static
embeddings of Bommasani et al. 2020, *Interpreting Pretrained Contextualized Representations
via Reductions to Static Embeddings*, Sec. 3). The teacher pass that produces the sentence
targets of the regression objective yields these for free: each word of parasent's tokenizer
takes the mean of the embeddings of the teacher tokens (word pieces) that start inside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from parasent.text.tokenizer import _SPLITTER
from parasent.text.word_pieces import piece_token


def word_spans(text: str) -> list[tuple[str, int, int]]:
    """parasent's words of ``text`` (lowercased) with their character spans in ``text``."""
    return [
        (word.lower(), start, end) for word, (start, end) in _SPLITTER.pre_tokenizer.pre_tokenize_str(text)
    ]


def word_means(
    text: str, tokens: np.ndarray, offsets: Sequence[tuple[int, int]]
) -> tuple[list[str], np.ndarray]:
    """parasent's words of ``text`` and, for each, the mean of the teacher tokens (``tokens``,
    ``(T, dim)`` with character ``offsets``) that start inside it: the word's contextual state
    in this text. Special tokens have an empty span and are ignored; a word no token starts in
    (cut by the teacher's length limit) has a row of NaN."""
    offsets = np.asarray(offsets, dtype=np.int64).reshape(-1, 2)
    real = offsets[:, 1] > offsets[:, 0]
    starts = offsets[:, 0]
    spans = word_spans(text)
    means = np.full((len(spans), tokens.shape[1]), np.nan, dtype=np.float32)
    for row, (_, start, end) in enumerate(spans):
        inside = real & (starts >= start) & (starts < end)
        if inside.any():
            means[row] = tokens[inside].mean(axis=0)
    return [word for word, _, _ in spans], means


@dataclass
class ContextualSums:
    """Per-word sums of contextual vectors and occurrence counts, grown as text is added."""

    words: list[str]
    sums: np.ndarray  # (len(words), dim) float32
    counts: np.ndarray  # (len(words),) int64

    @classmethod
    def empty(cls, dim: int) -> ContextualSums:
        return cls([], np.zeros((0, dim), dtype=np.float32), np.zeros(0, dtype=np.int64))

    def __post_init__(self) -> None:
        self._index = {w: i for i, w in enumerate(self.words)}
        self._size = len(self.words)

    def _row(self, word: str) -> int:
        row = self._index.get(word)
        if row is None:
            row = self._index[word] = len(self.words)
            self.words.append(word)
            if row >= len(self.sums):
                grow = max(1024, len(self.sums))
                self.sums = np.concatenate([self.sums, np.zeros((grow, self.sums.shape[1]), np.float32)])
                self.counts = np.concatenate([self.counts, np.zeros(grow, np.int64)])
        return row

    def add(
        self,
        text: str,
        tokens: np.ndarray,
        offsets: Sequence[tuple[int, int]],
        pieces: Sequence[str] | None = None,
    ) -> None:
        """Add one text: ``tokens`` (T, dim) with character ``offsets`` (T, 2); special tokens
        have an empty span and are ignored. With ``pieces`` (the T tokens' pieces), each
        piece's token embedding is summed too, under its vocabulary token (``[p]##tr``): the
        contextual mean of a piece is its row's start, as a word's is
        (:mod:`parasent.text.word_pieces`)."""
        words, means = word_means(text, tokens, offsets)
        for word, mean in zip(words, means, strict=True):
            if not np.isnan(mean[0]):
                row = self._row(word)
                self.sums[row] += mean
                self.counts[row] += 1
        if pieces is not None:
            spans = np.asarray(offsets, dtype=np.int64).reshape(-1, 2)
            real = spans[:, 1] > spans[:, 0]
            for index in np.flatnonzero(real):
                row = self._row(piece_token(pieces[index]))
                self.sums[row] += tokens[index]
                self.counts[row] += 1

    def merge(self, other: ContextualSums) -> ContextualSums:
        """Add ``other``'s sums and counts (of other texts) into these; returns self."""
        if len(other.words) and self.sums.shape[1] != other.sums.shape[1]:
            if len(self.words):
                raise ValueError(f"cannot add {other.sums.shape[1]}-d sums to {self.sums.shape[1]}-d ones")
            self.sums = np.zeros((0, other.sums.shape[1]), dtype=np.float32)
        rows = np.array([self._row(word) for word in other.words], dtype=np.int64)
        np.add.at(self.sums, rows, other.sums[: len(rows)])
        np.add.at(self.counts, rows, other.counts[: len(rows)])
        return self

    def trimmed(self) -> ContextualSums:
        n = len(self.words)
        return ContextualSums(list(self.words), self.sums[:n].copy(), self.counts[:n].copy())

    def in_word_order(self) -> ContextualSums:
        """These sums with their rows sorted by word (a stored file's order)."""
        n = len(self.words)
        order = sorted(range(n), key=self.words.__getitem__)
        return ContextualSums([self.words[i] for i in order], self.sums[order], self.counts[order])

    def vectors(self, min_count: int = 1) -> dict[str, np.ndarray]:
        """Unit-length mean contextual vector of every word seen at least ``min_count`` times."""
        out = {}
        for word, row in self._index.items():
            if self.counts[row] >= min_count:
                mean = self.sums[row] / self.counts[row]
                norm = float(np.linalg.norm(mean))
                if norm > 0:
                    out[word] = (mean / norm).astype(np.float32)
        return out
