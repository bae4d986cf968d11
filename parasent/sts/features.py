"""Features of a sentence pair for STS regression (Hokamp & Arora 2016, Tables 4 and 6).

The DCU-SEManiacs ensemble ("fusion") combines the cosine of paraphrastic embedding models
with lexical features of their 2015 system and of TakeLab (Saric et al. 2012). Implemented
here, all from the text and a word-frequency list:

- ``ngram_overlap_{1,2,3}`` (word overlap): harmonic mean of |A n B| / |A| and |A n B| / |B|
  over the sets of word n-grams;
- ``weighted_word_match`` (TakeLab's weighted word overlap): with the information content
  ic(w) = ln(sum of all counts / count(w)), wwc(A, B) = sum_{w in A n B} ic(w) / sum_{w in B} ic(w),
  the harmonic mean of wwc(A, B) and wwc(B, A);
- ``cosine_tf`` and ``cosine_icf`` (the 2015 system's normalised cosine): cosine of the
  bag-of-words vectors, counts weighted by 1 and by ic(w) ("inverse collection frequency");
- ``number_log_count``, ``number_f1``, ``number_subset`` (TakeLab's number features):
  log(1 + |N1| + |N2|), the F1 of the two sets of numbers (1 when neither has one), and
  whether one set contains the other;
- ``relative_length_difference`` and ``relative_ic_difference``: |a - b| / max(a, b) of the
  word counts and of the summed information content;
- ``case_match``: F1 of the capitalised words after the first (names, acronyms);
- ``cos:NAME`` for every embedding model: the cosine of the two sentence vectors.

Not implemented (they need resources absent here): WordNet matches and part-of-speech
restricted word2vec similarities (nouns, verbs).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from parasent.core.inference import cosine_rows
from parasent.core.output import as_matrix
from parasent.text.tokenizer import pre_tokenize

LEXICAL_FEATURES = (
    "ngram_overlap_1",
    "ngram_overlap_2",
    "ngram_overlap_3",
    "weighted_word_match",
    "cosine_tf",
    "cosine_icf",
    "number_log_count",
    "number_f1",
    "number_subset",
    "relative_length_difference",
    "relative_ic_difference",
    "case_match",
)

_NUMBER = re.compile(r"(?<![\w.])[+-]?\d[\d,]*(?:\.\d+)?")
_RAW_WORD = re.compile(r"\w+")


@dataclass
class InformationContent:
    """ic(w) = ln(total / count(w)); a word missing from the counts gets the rarest count."""

    counts: Mapping[str, int]

    def __post_init__(self) -> None:
        if not self.counts:
            raise ValueError("information content needs word counts")
        self.total = float(sum(self.counts.values()))
        self.unseen = float(min(c for c in self.counts.values() if c > 0))

    def __call__(self, word: str) -> float:
        count = self.counts.get(word) or self.unseen
        return math.log(self.total / count)


def content_words(text: str) -> list[str]:
    """Lowercased tokens with at least one letter or digit (punctuation dropped)."""
    return [w for w in pre_tokenize(text) if any(ch.isalnum() for ch in w)]


def numbers(text: str) -> set[str]:
    """Numbers of the raw text, thousands separators removed ("1,000" == "1000")."""
    out = set()
    for match in _NUMBER.findall(text):
        value = match.replace(",", "").lstrip("+")
        try:
            out.add(repr(float(value)))
        except ValueError:
            continue
    return out


def capitalised(text: str) -> set[str]:
    words = _RAW_WORD.findall(text)
    return {w.lower() for w in words[1:] if w[0].isupper()}


def _harmonic(a: float, b: float) -> float:
    return 2 * a * b / (a + b) if a + b > 0 else 0.0


def _f1(a: set, b: set) -> float:
    if not a and not b:
        return 1.0
    return 2 * len(a & b) / (len(a) + len(b))


def ngram_overlap(a: list[str], b: list[str], n: int) -> float:
    grams_a = {tuple(a[i : i + n]) for i in range(len(a) - n + 1)}
    grams_b = {tuple(b[i : i + n]) for i in range(len(b) - n + 1)}
    if not grams_a or not grams_b:
        return 0.0
    shared = len(grams_a & grams_b)
    return _harmonic(shared / len(grams_a), shared / len(grams_b))


def _bag_cosine(a: Counter, b: Counter, weight) -> float:
    dot = sum(a[w] * b[w] * weight(w) ** 2 for w in a.keys() & b.keys())
    norm_a = math.sqrt(sum((c * weight(w)) ** 2 for w, c in a.items()))
    norm_b = math.sqrt(sum((c * weight(w)) ** 2 for w, c in b.items()))
    return dot / (norm_a * norm_b) if norm_a > 0 and norm_b > 0 else 0.0


def lexical_features(s1: str, s2: str, ic: InformationContent) -> list[float]:
    """The values of :data:`LEXICAL_FEATURES` for one pair."""
    a, b = content_words(s1), content_words(s2)
    set_a, set_b = set(a), set(b)
    ic_a, ic_b = sum(ic(w) for w in set_a), sum(ic(w) for w in set_b)
    shared_ic = sum(ic(w) for w in set_a & set_b)
    weighted_match = _harmonic(shared_ic / ic_b if ic_b else 0.0, shared_ic / ic_a if ic_a else 0.0)
    bag_a, bag_b = Counter(a), Counter(b)
    n1, n2 = numbers(s1), numbers(s2)
    return [
        ngram_overlap(a, b, 1),
        ngram_overlap(a, b, 2),
        ngram_overlap(a, b, 3),
        weighted_match,
        _bag_cosine(bag_a, bag_b, lambda w: 1.0),
        _bag_cosine(bag_a, bag_b, ic),
        math.log(1 + len(n1) + len(n2)),
        _f1(n1, n2),
        float(n1 <= n2 or n2 <= n1),
        abs(len(a) - len(b)) / max(len(a), len(b), 1),
        abs(ic_a - ic_b) / max(ic_a, ic_b, 1e-9),
        _f1(capitalised(s1), capitalised(s2)),
    ]


class PairFeatures:
    """Feature matrix of sentence pairs: the lexical features, then one cosine per model.

    ``models`` maps a name to anything with ``encode(sentences)``; ``lexical=False`` keeps
    only the embedding cosines.
    """

    def __init__(
        self, ic: InformationContent, models: Mapping[str, object] | None = None, *, lexical: bool = True
    ) -> None:
        self.ic = ic
        self.models = dict(models or {})
        self.lexical = lexical

    @property
    def names(self) -> list[str]:
        return (list(LEXICAL_FEATURES) if self.lexical else []) + [f"cos:{name}" for name in self.models]

    def transform(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        columns = []
        if self.lexical:
            columns.append(
                np.array([lexical_features(s1, s2, self.ic) for s1, s2 in pairs], dtype=np.float64)
            )
        if self.models:
            index: dict[str, int] = {}
            for s1, s2 in pairs:
                index.setdefault(s1, len(index))
                index.setdefault(s2, len(index))
            sentences = list(index)
            left = np.array([index[s1] for s1, _ in pairs], dtype=np.int64)
            right = np.array([index[s2] for _, s2 in pairs], dtype=np.int64)
            for model in self.models.values():
                vectors = as_matrix(model.encode(sentences), finite=True, texts=sentences)
                columns.append(cosine_rows(vectors[left], vectors[right])[:, None])
        if not columns:
            raise ValueError("no features: enable lexical features or give at least one model")
        matrix = np.hstack(columns) if len(pairs) else np.zeros((0, len(self.names)))
        return matrix
