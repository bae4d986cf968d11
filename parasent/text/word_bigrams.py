"""Words and word bigrams as the units of an averaging model (``tokenizer.kind = "word_bigrams"``).

A word average cannot tell "not good" from "good not", nor give "new york" a vector of its
own: every word contributes the same row in every context. Word n-gram features were the
papers' answer to this within a bag model (CHARAGRAM-PHRASE's character n-grams, Wieting et
al. 2016; the word n-grams of sentencepiece and fastText averaging models). Here a sentence's
units are its words plus those of its adjacent word pairs that are in a fixed list of
frequent bigrams; the encoder is unchanged (the mean of the units' rows, Eq. 2), so inference
stays a numpy lookup-and-average. A bigram outside the list contributes nothing.

The vocabulary is one standard ``tokenizers`` WordLevel model (``tokenizer.json``): the words
(ids from 2) followed by the bigrams, written ``first + JOINER + second``. The word pipeline
splits every punctuation or symbol character into its own token, so no text ever yields a
bigram's string as a word; the pairs are formed here, after the word ids.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from tokenizers import Tokenizer

from parasent.errors import ModelFormatError
from parasent.text.one_text import Memo
from parasent.text.tokenized import Tokenized
from parasent.text.tokenizer import (
    UNK_ID,
    UNKNOWN_POLICIES,
    VocabularyTokenizer,
    WordTokenizer,
    read_tokenizer_file,
)
from parasent.text.vocabulary_index import VocabularyIndex
from parasent.text.word_pieces import forget_words

JOINER = "\u2581"  # between the two words of a bigram's token (never inside a word token)
_SHIFT = np.int64(32)  # a pair of word ids (each < 2^31) as one int64 key: first << 32 | second
_LOW = np.int64(0xFFFFFFFF)  # key & _LOW: the second word's id
_PAIR_SHIFT = int(_SHIFT)  # the same key of Python ints (encode_one)
COUNT_CHUNK = 65_536  # texts per tokenization chunk while counting bigrams


def bigram_rows_of(tokenizer: Any) -> np.ndarray:
    """The bigram rows of any featurizer: none unless it is a :class:`WordBigramTokenizer`."""
    if isinstance(tokenizer, WordBigramTokenizer):
        return tokenizer.bigram_ids
    return np.zeros(0, dtype=np.int64)


def pair_keys(tokenized: Tokenized) -> tuple[np.ndarray, np.ndarray]:
    """``(keys, sentence)``: the key of every adjacent pair of ids inside one sentence, and the
    sentence it belongs to."""
    ids, lengths = tokenized.ids, tokenized.lengths
    sentence = np.repeat(np.arange(len(tokenized), dtype=np.int64), lengths)
    inside = sentence[1:] == sentence[:-1]
    keys = (ids[:-1][inside] << _SHIFT) | ids[1:][inside]
    return keys, sentence[:-1][inside]


class WordBigramTokenizer(VocabularyTokenizer):
    """Word ids (as :class:`~parasent.text.tokenizer.WordTokenizer`) followed, per sentence, by
    the ids of its listed bigrams. ``unknown`` applies to words; a pair with an unknown word
    is never a listed bigram."""

    kind = "word_bigrams"
    PATTERNS = WordTokenizer.PATTERNS
    CONFIG_KEYS = frozenset({"kind", "unknown", "vocab_size", "bigrams", "pieces"})

    def __init__(self, tokenizer: Tokenizer, *, unknown: str = "vector") -> None:
        if unknown not in UNKNOWN_POLICIES:
            raise ValueError(f"unknown must be one of {UNKNOWN_POLICIES}, got {unknown!r}")
        self._words = WordTokenizer(tokenizer, unknown="vector")  # bigrams need the [UNK]s in place
        self._tokenizer = tokenizer
        self._check_patterns()
        self.unknown = unknown
        vocab = tokenizer.get_vocab()
        grams = [(token, index) for token, index in vocab.items() if JOINER in token]
        keys = np.empty(len(grams), dtype=np.int64)
        for n, (token, _) in enumerate(grams):
            first, _, second = token.partition(JOINER)
            a, b = vocab.get(first), vocab.get(second)
            if a is None or b is None or JOINER in second:
                raise ModelFormatError(f"bigram {token!r}: its words are not both in the vocabulary")
            keys[n] = (a << int(_SHIFT)) | b
        order = np.argsort(keys)
        self._set_bigrams(keys[order], np.array([index for _, index in grams], dtype=np.int64)[order])

    def _set_bigrams(self, keys: np.ndarray, bigram_ids: np.ndarray) -> None:
        self._one_text: Memo | None = None  # encode_one's memos, made at its first call
        self._one_pairs: Memo | None = None
        self._keys = keys
        self._bigram_ids = bigram_ids
        # words that begin / end some bigram: most pairs fail this test and skip the search
        self._begins = np.zeros(self.vocab_size, dtype=bool)
        self._ends = np.zeros(self.vocab_size, dtype=bool)
        self._begins[self._keys >> _SHIFT] = True
        self._ends[self._keys & _LOW] = True

    @classmethod
    def from_index(
        cls, index: VocabularyIndex, directory: str | Path, *, unknown: str = "vector"
    ) -> WordBigramTokenizer:
        """The tokenizer of ``directory`` from its stored vocabulary (see
        :meth:`WordTokenizer.from_index`): no ``tokenizer.json`` is read to encode."""
        if unknown not in UNKNOWN_POLICIES:
            raise ValueError(f"unknown must be one of {UNKNOWN_POLICIES}, got {unknown!r}")
        if not index.bigrams_valid:  # the pipeline's own reading says which bigram is wrong
            return cls.load(directory, unknown=unknown)
        tokenizer = cls.__new__(cls)
        tokenizer._words = WordTokenizer.from_index(index, directory, unknown="vector")
        tokenizer._source = lambda: tokenizer._words.tokenizer
        tokenizer.unknown = unknown
        tokenizer._set_bigrams(index.bigram_keys, index.bigram_ids)
        return tokenizer

    @property
    def vocab_size(self) -> int:
        return self._words.vocab_size

    def vocabulary_index(self, tokenizer_sha256: str) -> VocabularyIndex | None:
        """The stored form of this vocabulary (see :meth:`WordTokenizer.vocabulary_index`)."""
        return self._words.vocabulary_index(tokenizer_sha256)

    # construction -----------------------------------------------------------------------
    @classmethod
    def from_words(cls, words: WordTokenizer, bigrams: Sequence[tuple[str, str]]) -> WordBigramTokenizer:
        """``words``'s vocabulary followed by ``bigrams`` (pairs of its words), in that order."""
        vocabulary = words.vocabulary()[2:] + [a + JOINER + b for a, b in bigrams]
        built = WordTokenizer.from_vocabulary(vocabulary, unknown=words.unknown)
        return cls(built.tokenizer, unknown=words.unknown)

    @classmethod
    def from_texts(
        cls, words: WordTokenizer, texts: Iterable[str], *, max_bigrams: int, min_count: int = 2
    ) -> WordBigramTokenizer:
        """The ``max_bigrams`` most frequent adjacent pairs of known words in ``texts`` seen at
        least ``min_count`` times (ties by word ids), after ``words``'s vocabulary."""
        keys, counts = count_pairs(words, texts)
        keep = counts >= min_count
        keys, counts = keys[keep], counts[keep]
        chosen = keys[np.lexsort((keys, -counts))[:max_bigrams]]
        vocabulary = words.vocabulary()
        pairs = [(vocabulary[int(k >> _SHIFT)], vocabulary[int(k & _LOW)]) for k in chosen]
        return cls.from_words(words, pairs)

    @classmethod
    def load(cls, directory: str | Path, *, unknown: str = "vector") -> WordBigramTokenizer:
        return cls(read_tokenizer_file(directory), unknown=unknown)

    def config(self) -> dict[str, Any]:
        config = {
            "kind": self.kind,
            "unknown": self.unknown,
            "vocab_size": self.vocab_size,
            "bigrams": int(len(self._keys)),
        }
        if self.unknown == "pieces":
            config["pieces"] = self._words.piece_fallback().size
        return config

    def _shape_problem(self, config: dict) -> str | None:
        if not len(self._keys):
            return "it holds no word bigrams"
        declared = config.get("bigrams", len(self._keys))
        if declared != len(self._keys):
            return f"it holds {len(self._keys)} word bigrams, the config says {declared!r:.40}"
        return None

    @property
    def bigram_ids(self) -> np.ndarray:
        """The rows of the bigrams (the others are words, [PAD] and [UNK])."""
        return np.sort(self._bigram_ids)

    def bigram_counts(self, texts: Iterable[str]) -> np.ndarray:
        """``(vocab_size,)`` occurrences of each listed bigram in ``texts`` (0 on word rows)."""
        keys, counts = count_pairs(self._words, texts)
        out = np.zeros(self.vocab_size, dtype=np.int64)
        rows, found = self._rows_of(keys)
        out[rows] = counts[found]
        return out

    def keeping(self, bigram_rows: np.ndarray) -> tuple[WordBigramTokenizer, np.ndarray]:
        """``(tokenizer, rows)``: this vocabulary with only the bigrams of ``bigram_rows``, and the
        rows of the old table in the order of the new one (every word, then those bigrams)."""
        is_bigram = np.zeros(self.vocab_size, dtype=bool)
        is_bigram[self._bigram_ids] = True
        word_rows = np.flatnonzero(~is_bigram)
        bigram_rows = np.asarray(bigram_rows, dtype=np.int64)
        if not is_bigram[bigram_rows].all():
            raise ValueError("keeping() takes bigram rows only")
        vocabulary = self.vocabulary()
        words = WordTokenizer.from_vocabulary([vocabulary[i] for i in word_rows[2:]], unknown=self.unknown)
        pairs = [tuple(vocabulary[i].split(JOINER)) for i in bigram_rows]
        return WordBigramTokenizer.from_words(words, pairs), np.concatenate([word_rows, bigram_rows])

    # featurization ----------------------------------------------------------------------
    def _rows_of(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, found)``: the bigram rows of the ``keys`` that are listed, and which those are."""
        found = self._begins[keys >> _SHIFT] & self._ends[keys & _LOW]  # most pairs stop here
        if not found.any():
            return np.zeros(0, dtype=np.int64), found
        candidates = np.flatnonzero(found)
        where = np.minimum(np.searchsorted(self._keys, keys[candidates]), len(self._keys) - 1)
        listed = self._keys[where] == keys[candidates]
        found[candidates[~listed]] = False
        return self._bigram_ids[where[listed]], found

    def _bigrams(self, words: Tokenized) -> tuple[np.ndarray, np.ndarray]:
        """``(bigram ids, sentence)`` of the listed bigrams among the adjacent word pairs."""
        keys, sentence = pair_keys(words)
        rows, found = self._rows_of(keys)
        return rows, sentence[found]

    def encode_batch(self, texts: Sequence[str]) -> Tokenized:
        """Each sentence's word ids (unknown words kept, skipped or replaced by their pieces
        per the policy) then its listed bigrams' ids."""
        return self._units(self._words.encode_batch(texts), texts)

    def encode_batch_forgetting(self, texts: Sequence[str], rate: float, seed: int) -> Tokenized:
        """As :meth:`encode_batch`, a random share ``rate`` of the words treated as unknown
        (their bigrams go with them): the piece view of
        :func:`parasent.text.word_pieces.forget_words`."""
        texts = list(texts)
        return self._units(forget_words(self._words.encode_batch(texts), rate, seed, UNK_ID), texts)

    def _units(self, words: Tokenized, texts: Sequence[str]) -> Tokenized:
        grams, sentence = self._bigrams(words)  # a pair with an unknown word is no bigram
        if self.unknown == "skip":
            words = words.without(UNK_ID)
        elif self.unknown == "pieces":
            words = self._words.piece_fallback().replace(words, texts)
        return merge_units(words, grams, sentence)

    def encode_one(self, text: str) -> np.ndarray | None:
        """The ids :meth:`encode_batch` gives ``[text]`` (its words' units, then its listed
        bigrams), memoised per token and per pair (:mod:`parasent.text.one_text`); None where
        that path does not apply."""
        if self._one_text is None:
            self._one_text = Memo(functools.partial(self._words.token_entries, policy=self.unknown))
            self._one_pairs = Memo(self._pair_rows)
        entries = self._words.one_text_entries(text, self._one_text)
        if entries is None:
            return None
        units = [unit for _, word_units in entries for unit in word_units]
        if len(entries) > 1:
            keys = [(a << _PAIR_SHIFT) | b for (a, _), (b, _) in itertools.pairwise(entries)]
            units.extend(row for row in self._one_pairs.lookup(keys) if row >= 0)
        return np.array(units, dtype=np.int64)

    def _pair_rows(self, keys: list[int]) -> list[int]:
        """The bigram row of each pair key, -1 for a pair that is not listed."""
        rows, found = self._rows_of(np.array(keys, dtype=np.int64))
        out = np.full(len(keys), -1, dtype=np.int64)
        out[found] = rows
        return out.tolist()

    def tokens(self, text: str) -> list[str]:
        vocabulary = self.vocabulary()
        return [vocabulary[i] for i in self.encode_batch([text]).ids]

    def oov_counts(self, texts: Iterable[str]) -> tuple[int, int]:
        """(unknown words, all words) over ``texts``: bigrams are extra units, never unknown."""
        return self._words.oov_counts(texts)

    def coverage_counts(self, texts: Iterable[str]) -> tuple[int, int, int]:
        """(words, words in the vocabulary, unknown words with a known piece): bigrams aside."""
        texts = list(texts)
        words = self._words.encode_batch(texts)  # [UNK]s in place
        known = int(np.count_nonzero(words.ids != UNK_ID))
        pieces = self._words.piece_fallback().known_by_pieces(words, texts) if self.unknown == "pieces" else 0
        return len(words.ids), known, pieces


def count_pairs(words: WordTokenizer, texts: Iterable[str]) -> tuple[np.ndarray, np.ndarray]:
    """``(keys, counts)`` of the adjacent pairs of known words in ``texts`` (tokenized in
    chunks, so memory follows the number of distinct pairs, not the text)."""
    totals: tuple[np.ndarray, np.ndarray] = (np.zeros(0, np.int64), np.zeros(0, np.int64))
    chunk: list[str] = []
    for text in texts:
        chunk.append(text)
        if len(chunk) == COUNT_CHUNK:
            totals = _add_counts(totals, words, chunk)
            chunk = []
    return _add_counts(totals, words, chunk) if chunk else totals


def _add_counts(
    totals: tuple[np.ndarray, np.ndarray], words: WordTokenizer, texts: list[str]
) -> tuple[np.ndarray, np.ndarray]:
    keys, _ = pair_keys(words.encode_batch(texts))
    first, second = keys >> _SHIFT, keys & _LOW
    known = (first > UNK_ID) & (second > UNK_ID)  # no [PAD] or [UNK] in a bigram
    keys, counts = np.unique(keys[known], return_counts=True)
    merged, inverse = np.unique(np.concatenate([totals[0], keys]), return_inverse=True)
    summed = np.zeros(len(merged), dtype=np.int64)
    np.add.at(summed, inverse, np.concatenate([totals[1], counts]))
    return merged, summed


def merge_units(words: Tokenized, grams: np.ndarray, sentence: np.ndarray) -> Tokenized:
    """Sentence i's units: its words, then the bigram ids whose ``sentence`` is i."""
    if not len(grams):
        return words
    if len(words) == 1:  # one sentence: its words, then its bigrams
        ids = np.concatenate([words.ids[int(words.offsets[0]) : int(words.offsets[1])], grams])
        return Tokenized(ids, np.array([0, len(ids)], dtype=np.int64))
    extra = np.bincount(sentence, minlength=len(words))
    offsets = np.zeros(len(words) + 1, dtype=np.int64)
    np.cumsum(words.lengths + extra, out=offsets[1:])
    ids = np.empty(int(offsets[-1]), dtype=np.int64)
    word_sentence = np.repeat(np.arange(len(words), dtype=np.int64), words.lengths)
    word_rank = np.arange(len(words.ids), dtype=np.int64) - words.offsets[word_sentence]
    ids[offsets[word_sentence] + word_rank] = words.ids
    gram_start = np.zeros(len(words) + 1, dtype=np.int64)
    np.cumsum(extra, out=gram_start[1:])
    gram_rank = np.arange(len(grams), dtype=np.int64) - gram_start[sentence]
    ids[offsets[sentence] + words.lengths[sentence] + gram_rank] = grams
    return Tokenized(ids, offsets)
