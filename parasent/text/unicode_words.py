"""Split text of any script into the word pipeline's tokens in numpy: the ASCII split of
:mod:`parasent.text.ascii_words` carried to every character, each character's class learnt
from the pipeline itself.

Why: a text with one character outside ASCII (an accent, a curly quote, a dash) left the
numpy path for ``tokenizers``' pre-tokenizer and a Python string per word, 8-12x slower per
sentence (``bench/bench_encode.py``'s non-ASCII rows), so German, French or Greek text encoded
slower in parasent than in its peers.

How, for texts joined by NUL (a token of its own, as in the ASCII split):

- the text is lowercased by ``str.lower`` after Σ is mapped to σ: per character that is the
  Unicode lowercase mapping, as the pipeline's ``Lowercase`` normalizer (Rust's
  ``char::to_lowercase``), but for Python's final-sigma rule; each character's lowering is
  checked once against the normalizer itself (the two may know different Unicode versions),
  and a text holding one that differs keeps the pipeline;
- each character of the lowered text has a class: part of a word (``\\w``), space (split by
  ``WhitespaceSplit``) or a token of its own (``[^\\w\\s]``), learnt once per character by
  pre-tokenizing ``a c c b`` with the pipeline; a character that fits none (one that neither
  the whitespace split nor the regular expression takes) keeps its texts on the pipeline;
- tokens are runs of word characters and single characters of their own
  (:func:`parasent.text.ascii_words.spans`), and a token's key is the hash of its UTF-8
  bytes, found from the characters' UTF-8 widths: the key its word has in the vocabulary.

What is learnt is kept per code point (two bytes for each of the 1,114,112, allocated on first
use), so memory is bounded whatever the texts.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from parasent.text import ascii_words

UNICODE_SIZE = 0x110000
UNLEARNT, WORD, SPACE, ALONE, OTHER = 0, 1, 2, 3, 4  # a character's class; OTHER: the pipeline's
LOWERS_AS_PIPELINE, LOWERS_OTHERWISE = 1, 2


def lower(text: str) -> str:
    """``text`` lowercased character by character, as the pipeline's normalizer does (where
    :meth:`CharacterClasses.lowered_otherwise` says so): ``str.lower`` without its final sigma."""
    return text.replace("Σ", "σ").lower()


class CharacterClasses:
    """What the word pipeline does with each character, learnt on first sight from
    ``normalize`` (its normalizer on a string) and ``pre_tokenize`` (its pre-tokenizer: a
    string's tokens); thread-safe (a character learnt twice is learnt the same)."""

    def __init__(self, normalize: Callable[[str], str], pre_tokenize: Callable[[str], list[str]]) -> None:
        self._normalize, self._pre_tokenize = normalize, pre_tokenize
        self._lowering = np.zeros(UNICODE_SIZE, dtype=np.uint8)
        self._lowering[:128] = LOWERS_AS_PIPELINE
        self._classes = np.zeros(UNICODE_SIZE, dtype=np.uint8)
        word, space = ascii_words.word_and_space(np.arange(128, dtype=np.uint8))
        self._classes[:128] = np.where(word, WORD, np.where(space, SPACE, ALONE))
        self._learning = threading.Lock()

    def lowered_otherwise(self, points: np.ndarray) -> np.ndarray | None:
        """Which code points :func:`lower` lowers otherwise than the normalizer; None if none
        (ASCII is lowered alike, so only the others are looked at)."""
        high = np.flatnonzero(points >= 0x80)
        high_points = points[high]
        known = self._lowering[high_points]
        unlearnt = known == 0
        if unlearnt.any():
            for point in np.unique(high_points[unlearnt]).tolist():
                character = chr(point)
                same = self._normalize(character) == lower(character)
                self._lowering[point] = LOWERS_AS_PIPELINE if same else LOWERS_OTHERWISE
            known = self._lowering[high_points]
        differ = known != LOWERS_AS_PIPELINE
        if not differ.any():
            return None
        marked = np.zeros(len(points), dtype=bool)
        marked[high[differ]] = True
        return marked

    def classes(self, points: np.ndarray) -> np.ndarray:
        """The class of each code point of lowered text."""
        known = self._classes[points]
        unlearnt = known == UNLEARNT
        if unlearnt.any():
            with self._learning:
                for point in np.unique(points[unlearnt]).tolist():
                    self._classes[point] = self._learn(chr(point))
            known = self._classes[points]
        return known

    def _learn(self, character: str) -> int:
        probe = f"a{character}{character}b"
        try:
            tokens = self._pre_tokenize(probe)
        except Exception:  # refused: its texts keep the pipeline (whose pattern never backtracks)
            return OTHER
        if tokens == [probe]:
            return WORD
        if tokens == ["a", "b"]:
            return SPACE
        if tokens == ["a", character, character, "b"]:
            return ALONE
        return OTHER


@dataclass(frozen=True)
class Split:
    """The tokens of ``texts[kept]``, lowered and joined by NUL (one after each text): their
    bounds in code points of ``lowered`` and in bytes of ``data``, its UTF-8 encoding, and
    each text's number of tokens."""

    kept: np.ndarray
    lowered: str
    data: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    byte_starts: np.ndarray
    byte_ends: np.ndarray
    lengths: np.ndarray


def split(texts: list[str], classes: CharacterClasses) -> Split:
    """The tokens of every text this split serves: not those holding a NUL or a lone surrogate
    (the pipeline names the bad text), a character lowered otherwise than by the normalizer, or
    one of class OTHER."""
    kept = [i for i, text in enumerate(texts) if "\0" not in text]
    while True:
        whole = "\0".join([texts[i] for i in kept]) + "\0"
        try:
            lowered, points, kinds, refused = _classified(whole, classes)
        except UnicodeEncodeError:  # a lone surrogate
            kept = [i for i in kept if _encodable(texts[i])]
            continue
        if not refused:
            break
        kept = [i for j, i in enumerate(kept) if j not in refused]
    separator = points == 0
    starts, ends = ascii_words.spans(kinds == WORD, (kinds == ALONE) & ~separator)
    widths = 1 + (points >= 0x80).view(np.uint8)
    widths += (points >= 0x800).view(np.uint8)
    widths += (points >= 0x10000).view(np.uint8)
    offsets = np.zeros(len(widths) + 1, dtype=np.int64)
    np.cumsum(widths, out=offsets[1:])
    data = np.frombuffer(lowered.encode("utf-8"), dtype=np.uint8)
    lengths = ascii_words.tokens_per_text(starts, separator)
    return Split(
        np.array(kept, dtype=np.int64), lowered, data, starts, ends, offsets[starts], offsets[ends], lengths
    )


def tokens(text: str, classes: CharacterClasses) -> list[str] | None:
    """The pipeline's tokens of one ``text`` (lowered) as :func:`split` finds them, or None
    where it would not serve the text (the one-text path, :mod:`parasent.text.one_text`)."""
    if "\0" in text:
        return None
    try:
        lowered, _, kinds, refused = _classified(text, classes)
    except UnicodeEncodeError:  # a lone surrogate
        return None
    if refused:
        return None
    starts, ends = ascii_words.spans(kinds == WORD, kinds == ALONE)
    return [lowered[a:b] for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]


def words_at(found: Split, which: np.ndarray, ranks: np.ndarray) -> list[str]:
    """Token ``ranks[j]`` of the ``which[j]``-th kept text of ``found``, as a string."""
    index = (np.cumsum(found.lengths) - found.lengths)[which] + ranks
    lowered = found.lowered
    return [
        lowered[a:b] for a, b in zip(found.starts[index].tolist(), found.ends[index].tolist(), strict=True)
    ]


def _classified(whole: str, classes: CharacterClasses) -> tuple[str, np.ndarray, np.ndarray, set[int]]:
    """``whole`` lowered, its code points, their classes, and the texts (by rank between NULs)
    that hold a character lowered otherwise than by the normalizer or of class OTHER; a lone
    surrogate raises ``UnicodeEncodeError``."""
    lowered = lower(whole)
    points = np.frombuffer(lowered.encode("utf-32-le"), dtype="<u4")
    kinds = classes.classes(points)
    refused = _texts_of(points, kinds == OTHER)
    original = np.frombuffer(whole.encode("utf-32-le"), dtype="<u4")
    lowered_otherwise = classes.lowered_otherwise(original)
    if lowered_otherwise is not None:
        refused |= _texts_of(original, lowered_otherwise)
    return lowered, points, kinds, refused


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _texts_of(points: np.ndarray, marked: np.ndarray) -> set[int]:
    """The texts (by rank in a NUL-joined string's code points) holding a marked point."""
    if not marked.any():
        return set()
    text_of_point = np.cumsum(points == 0) - (points == 0)
    return set(np.unique(text_of_point[marked]).tolist())
