"""Vocabulary of a model: the words of the initial vectors, then training words above a count."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from parasent.text.tokenizer import PAD, UNK, pre_tokenize


def count_words(texts: Iterable[str]) -> Counter[str]:
    """Word counts after the model's normalisation and pre-tokenization."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(pre_tokenize(text))
    return counts


def build_vocabulary(
    initial_words: Sequence[str],
    counts: Counter[str],
    *,
    min_count: int = 1,
    max_new_words: int | None = None,
) -> list[str]:
    """Initial-vector words in their order, then unseen training words with ``count >= min_count``.

    New words are ordered by descending count, ties alphabetically, so that a vocabulary is
    a deterministic function of its inputs. ``[PAD]`` and ``[UNK]`` are not included: the
    tokenizer adds them as ids 0 and 1.
    """
    vocabulary: list[str] = []
    seen = {PAD, UNK}
    for word in initial_words:
        if word not in seen:
            seen.add(word)
            vocabulary.append(word)
    new = sorted(
        (word for word, count in counts.items() if count >= min_count and word not in seen),
        key=lambda word: (-counts[word], word),
    )
    if max_new_words is not None:
        new = new[:max_new_words]
    return vocabulary + new
