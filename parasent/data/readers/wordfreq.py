"""Word frequency lists: ``word count`` per line, gzip or not (e.g. the shared English Wikipedia
unigram counts ``wordfreq/enwiki_vocab_min200.txt.gz``).

:func:`read_word_counts` gives the counts; :func:`read_word_frequencies` the same list sorted by
count, which gives the vocabulary of distilled word vectors and the unigram probabilities of
the SIF weights (Arora et al. 2017: ``a / (a + p(w))``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from parasent.errors import DataFormatError
from parasent.support.lines import LineReader, ReadReport, parse_count

# Counts are summed in int64: a total beyond this is a corrupt file, not a corpus (2^62 words).
MAX_TOTAL = 1 << 62


def read_word_counts(
    path: str | Path, *, lowercase: bool = True, lenient: bool = False, report: ReadReport | None = None
) -> dict[str, int]:
    """``{word: count}`` in file order; with ``lowercase`` the counts of case variants are summed."""
    reader = LineReader(path, lenient=lenient, report=report)
    counts: dict[str, int] = {}
    total = 0
    for number, text in reader:
        if not text.strip():
            continue
        fields = text.split()
        if len(fields) != 2:
            reader.fail(number, f"expected 'word count', found {len(fields)} field(s)")
            continue
        word, count_text = fields
        count = parse_count(reader, number, count_text, "count", MAX_TOTAL - total)
        if count is None:
            continue
        total += count
        if lowercase:
            word = word.lower()
        counts[word] = counts.get(word, 0) + count
    return counts


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
    """:func:`read_word_counts` sorted by descending count (ties keep file order)."""
    counts = read_word_counts(path, lowercase=lowercase, lenient=lenient, report=report)
    if not counts:
        raise DataFormatError(path, 1, "no 'word count' lines found")
    words = list(counts)
    array = np.fromiter(counts.values(), dtype=np.int64, count=len(words))
    order = np.argsort(-array, kind="stable")
    return WordFrequencies([words[i] for i in order], array[order])
