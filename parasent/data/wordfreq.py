"""Word-frequency lists, ``word count`` per line (gzip or not), most frequent first or not.

The shared ``wordfreq/enwiki_vocab_min200.txt.gz`` (English Wikipedia unigram counts) is one;
it gives the vocabulary of distilled word vectors and the unigram probabilities of the SIF
weights (Arora et al. 2017: ``a / (a + p(w))``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from parasent.data.lines import LineReader, ReadReport
from parasent.errors import DataFormatError


@dataclass
class WordFrequencies:
    """Words in descending count order and their counts (int64)."""

    words: list[str]
    counts: np.ndarray

    def __len__(self) -> int:
        return len(self.words)

    @property
    def total(self) -> int:
        return int(self.counts.sum())

    def top(self, n: int) -> list[str]:
        return self.words[:n]

    def probabilities(self) -> dict[str, float]:
        """``p(w) = count(w) / total`` for every listed word."""
        total = float(self.total) or 1.0
        return {w: float(c) / total for w, c in zip(self.words, self.counts, strict=True)}


def read_word_frequencies(
    path: str | Path,
    *,
    lowercase: bool = True,
    lenient: bool = False,
    report: ReadReport | None = None,
) -> WordFrequencies:
    """Read a ``word count`` list; with ``lowercase``, counts of case variants are summed.

    The result is sorted by descending count (ties keep file order), whatever the file's order.
    """
    reader = LineReader(path, lenient=lenient, report=report)
    index: dict[str, int] = {}
    counts: list[int] = []
    for number, text in reader:
        if not text.strip():
            continue
        fields = text.split()
        if len(fields) != 2:
            reader.fail(number, f"expected 'word count', found {len(fields)} field(s)")
            continue
        word, count_text = fields
        try:
            count = int(count_text)
        except ValueError:
            reader.fail(number, f"count {count_text!r} of {word!r} is not an integer")
            continue
        if count < 0:
            reader.fail(number, f"count {count} of {word!r} is negative")
            continue
        if lowercase:
            word = word.lower()
        slot = index.setdefault(word, len(index))
        if slot == len(counts):
            counts.append(count)
        else:
            counts[slot] += count
    if not index:
        raise DataFormatError(path, 1, "no 'word count' lines found")
    words = list(index)
    array = np.asarray(counts, dtype=np.int64)
    order = np.argsort(-array, kind="stable")
    return WordFrequencies([words[i] for i in order], array[order])
