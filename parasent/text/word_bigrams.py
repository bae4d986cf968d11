"""Words and word bigrams as the units of an averaging model (``tokenizer.kind = "word_bigrams"``).

A word average cannot tell "not good" from "good not", nor give "new york" a vector of its
own: every word contributes the same row in every context. Word n-gram features were the
papers' answer to this within a bag model (CHARAGRAM-PHRASE's character n-grams, Wieting et
al. 2016; the word n-grams of sentencepiece and fastText averaging models). Here a sentence's
units are its words plus those of its adjacent word pairs that are in a fixed list of
frequent bigrams; the encoder is unchanged (the mean of the units' rows, Eq. 2), so inference
stays a numpy lookup-and-average. A bigram outside the list contributes nothing. Optionally a
second list holds frequent word trigrams (three adjacent words), units after the bigrams: a
phrase such as "not very good" then has a row of its own where its two bigrams overlap.

The vocabulary is one standard ``tokenizers`` WordLevel model (``tokenizer.json``): the words
(ids from 2) followed by the bigrams, written ``first + JOINER + second``, then the trigrams
(``first + JOINER + second + JOINER + third``). The word pipeline splits every punctuation or
symbol character into its own token, so no text ever yields a bigram's string as a word; the
pairs and triples are formed here, after the word ids.
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tokenizers import Tokenizer

from parasent.errors import ModelFormatError
from parasent.text.one_text import WHOLE_KEYS, Memo, Whole, within
from parasent.text.probing_table import ProbingTable
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
TRIGRAM_BITS = 21  # a triple of word ids (each < 2^21) as one int64 key: a << 42 | b << 21 | c
MAX_TRIGRAM_VOCAB = 1 << TRIGRAM_BITS  # a vocabulary with trigrams holds fewer tokens than this
_TRI = np.int64(TRIGRAM_BITS)
_TRI_LOW = np.int64(MAX_TRIGRAM_VOCAB - 1)  # key & _TRI_LOW: the third word's id
COUNT_CHUNK = 65_536  # texts per tokenization chunk while counting bigrams (and trigrams)
_NONE = np.zeros(0, dtype=np.int64)


def bigram_rows_of(tokenizer: object) -> np.ndarray:
    """The bigram rows of any featurizer: none unless it is a :class:`WordBigramTokenizer`."""
    if isinstance(tokenizer, WordBigramTokenizer):
        return tokenizer.bigram_ids
    return np.zeros(0, dtype=np.int64)


def trigram_rows_of(tokenizer: object) -> np.ndarray:
    """The trigram rows of any featurizer: none unless it is a :class:`WordBigramTokenizer`."""
    if isinstance(tokenizer, WordBigramTokenizer):
        return tokenizer.trigram_ids
    return np.zeros(0, dtype=np.int64)


def gram_rows_of(tokenizer: object) -> np.ndarray:
    """The rows of word n-grams (bigrams and trigrams, sorted): the units that are no word."""
    return np.sort(np.concatenate([bigram_rows_of(tokenizer), trigram_rows_of(tokenizer)]))


def check_trigram_vocabulary(vocab_size: int) -> None:
    """Trigram keys pack three ids in 21 bits each: a larger vocabulary cannot hold trigrams."""
    if vocab_size > MAX_TRIGRAM_VOCAB:
        raise ModelFormatError(
            f"a vocabulary with word trigrams holds at most {MAX_TRIGRAM_VOCAB} tokens, this one {vocab_size}"
        )


def pair_keys(tokenized: Tokenized) -> tuple[np.ndarray, np.ndarray]:
    """``(keys, sentence)``: the key of every adjacent pair of ids inside one sentence, and the
    sentence it belongs to."""
    ids, sentence = tokenized.ids, tokenized.token_sentences()
    inside = sentence[1:] == sentence[:-1]
    keys = (ids[:-1][inside] << _SHIFT) | ids[1:][inside]
    return keys, sentence[:-1][inside]


def triple_keys(tokenized: Tokenized) -> tuple[np.ndarray, np.ndarray]:
    """``(keys, sentence)``: the key of every three adjacent ids inside one sentence (ids under
    :data:`MAX_TRIGRAM_VOCAB`), and the sentence it belongs to."""
    ids, sentence = tokenized.ids, tokenized.token_sentences()
    inside = sentence[2:] == sentence[:-2]
    keys = (ids[:-2][inside] << (_TRI + _TRI)) | (ids[1:-1][inside] << _TRI) | ids[2:][inside]
    return keys, sentence[:-2][inside]


def triple_key(a: int, b: int, c: int) -> int:
    """The key :func:`triple_keys` gives the ids ``a b c`` (Python ints: the one-text path)."""
    return (a << (2 * TRIGRAM_BITS)) | (b << TRIGRAM_BITS) | c


@dataclass(frozen=True, eq=False)
class Listed:
    """A list of word n-grams: their keys (sorted), their rows, and which words begin / end
    one, so that most n-grams of a text fail a lookup of two booleans and skip the search;
    the rest are looked up in a hash table of the keys (one probe for most, against about 14
    reads of a binary search among 12,000 bigrams)."""

    keys: np.ndarray
    ids: np.ndarray
    begins: np.ndarray
    ends: np.ndarray
    shift: np.int64  # key >> shift: the first word's id
    low: np.int64  # key & low: the last word's id

    @functools.cached_property
    def table(self) -> ProbingTable:
        """The keys' hash table, built at the first lookup (a few milliseconds)."""
        return ProbingTable(self.keys, self.ids)

    @classmethod
    def of(cls, keys: np.ndarray, ids: np.ndarray, vocab_size: int, *, trigrams: bool = False) -> Listed:
        shift, low = (_TRI + _TRI, _TRI_LOW) if trigrams else (_SHIFT, _LOW)
        begins = np.zeros(vocab_size, dtype=bool)
        ends = np.zeros(vocab_size, dtype=bool)
        begins[keys >> shift] = True
        ends[keys & low] = True
        return cls(keys, ids, begins, ends, shift, low)

    def rows_of(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, found)``: the rows of the ``keys`` that are listed, and which those are."""
        found = self.begins[keys >> self.shift] & self.ends[keys & self.low]  # most stop here
        if not found.any():
            return np.zeros(0, dtype=np.int64), found
        candidates = np.flatnonzero(found)
        rows = self.table.find(keys[candidates], -1)
        listed = rows >= 0
        found[candidates[~listed]] = False
        return rows[listed], found

    def pairs_in(self, words: Tokenized) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, sentence)`` of the listed pairs of adjacent ids inside one sentence of
        ``words``, in order: what :func:`pair_keys` then :meth:`rows_of` give, with the two
        booleans of each word tested before any key is made (half the pairs fail them)."""
        ids, offsets = words.ids, words.offsets
        if len(ids) < 2:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        candidate = self.begins[ids[:-1]]
        candidate &= self.ends[ids[1:]]
        first_words = offsets[1:-1]
        first_words = first_words[(first_words > 0) & (first_words < len(ids))]
        candidate[first_words - 1] = False  # a pair across two sentences is no pair
        where = np.flatnonzero(candidate)
        rows = self.table.find((ids[where] << self.shift) | ids[where + 1], -1)
        listed = rows >= 0
        # each word's sentence laid out once: 4x faster than searching the offsets for each pair
        return rows[listed], words.token_sentences()[where[listed]]

    def rows_dict(self) -> dict[int, int]:
        """``key -> row`` of every listed n-gram, as Python integers."""
        return dict(zip(self.keys.tolist(), self.ids.tolist(), strict=True))

    def rows_or_minus_one(self, keys: list[int]) -> list[int]:
        """The row of each key, -1 for one that is not listed (what the one-text memos hold)."""
        rows, found = self.rows_of(np.array(keys, dtype=np.int64))
        out = np.full(len(keys), -1, dtype=np.int64)
        out[found] = rows
        return out.tolist()


def one_text_rows(listed: Listed) -> Callable[[list[int]], list[int] | None]:
    """The rows of the listed keys among ``keys``, in order, for the one-text path: the list
    held whole (a dict) when it is short, as every model's is; memoised per key otherwise, so
    memory stays bounded (None when the memo cannot fill)."""
    if len(listed.keys) <= WHOLE_KEYS:
        return Whole(listed.rows_dict()).listed
    memo = Memo(listed.rows_or_minus_one)

    def rows(keys: list[int]) -> list[int] | None:
        found = memo.lookup(keys)
        return None if found is None else [row for row in found if row >= 0]

    return rows


def listed_grams(vocab: dict[str, int]) -> tuple[np.ndarray, ...]:
    """``(bigram keys, bigram ids, trigram keys, trigram ids)`` of the JOINER tokens of
    ``vocab``, each list sorted by key: every word of an n-gram must be a token of ``vocab``."""
    bigrams: list[tuple[int, int]] = []
    trigrams: list[tuple[int, int]] = []
    for token, index in vocab.items():
        if JOINER not in token:
            continue
        parts = token.split(JOINER)
        ids = [vocab.get(part) for part in parts]
        if len(parts) == 3 and None not in ids:
            check_trigram_vocabulary(len(vocab))
            trigrams.append((triple_key(*ids), index))  # type: ignore[arg-type]
        elif len(parts) == 2 and None not in ids:
            bigrams.append(((ids[0] << int(_SHIFT)) | ids[1], index))  # type: ignore[operator]
        elif len(parts) == 2:
            raise ModelFormatError(f"bigram {token!r}: its words are not both in the vocabulary")
        elif len(parts) == 3:
            raise ModelFormatError(f"trigram {token!r}: its words are not all in the vocabulary")
        else:
            raise ModelFormatError(f"{token!r} joins more than three words (n-grams are bigrams or trigrams)")
    return (*_sorted_keys(bigrams), *_sorted_keys(trigrams))


def _sorted_keys(grams: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    keys = np.array([key for key, _ in grams], dtype=np.int64)
    order = np.argsort(keys)
    return keys[order], np.array([index for _, index in grams], dtype=np.int64)[order]


class WordBigramTokenizer(VocabularyTokenizer):
    """Word ids (as :class:`~parasent.text.tokenizer.WordTokenizer`) followed, per sentence, by
    the ids of its listed bigrams, then those of its listed trigrams (if the vocabulary has
    any). ``unknown`` applies to words; a pair or triple with an unknown word is never listed."""

    kind = "word_bigrams"
    PATTERNS = WordTokenizer.PATTERNS
    CONFIG_KEYS = frozenset({"kind", "unknown", "vocab_size", "bigrams", "trigrams", "pieces"})

    def __init__(self, tokenizer: Tokenizer, *, unknown: str = "vector") -> None:
        if unknown not in UNKNOWN_POLICIES:
            raise ValueError(f"unknown must be one of {UNKNOWN_POLICIES}, got {unknown!r}")
        self._words = WordTokenizer(tokenizer, unknown="vector")  # bigrams need the [UNK]s in place
        self._tokenizer = tokenizer
        self._check_patterns()
        self.unknown = unknown
        self._set_grams(*listed_grams(tokenizer.get_vocab()))

    def _set_grams(
        self,
        keys: np.ndarray,
        bigram_ids: np.ndarray,
        trigram_keys: np.ndarray = _NONE,
        trigram_ids: np.ndarray = _NONE,
    ) -> None:
        self._one_text: Memo | None = None  # encode_one's lookups, made at its first call
        self._one_pairs: Callable[[list[int]], list[int] | None] | None = None
        self._one_triples: Callable[[list[int]], list[int] | None] | None = None
        self._keys = keys
        self._bigram_ids = bigram_ids
        self._pairs = Listed.of(keys, bigram_ids, self.vocab_size)
        self._triples: Listed | None = None  # a model without trigrams never forms triples
        if len(trigram_keys):
            check_trigram_vocabulary(self.vocab_size)
            self._triples = Listed.of(trigram_keys, trigram_ids, self.vocab_size, trigrams=True)

    @classmethod
    def from_index(
        cls, index: VocabularyIndex, directory: str | Path, *, unknown: str = "vector"
    ) -> WordBigramTokenizer:
        """The tokenizer of ``directory`` from its stored vocabulary (see
        :meth:`WordTokenizer.from_index`): no ``tokenizer.json`` is read to encode."""
        if unknown not in UNKNOWN_POLICIES:
            raise ValueError(f"unknown must be one of {UNKNOWN_POLICIES}, got {unknown!r}")
        if not index.bigrams_valid:  # the pipeline's own reading says which n-gram is wrong
            return cls.load(directory, unknown=unknown)
        tokenizer = cls.__new__(cls)
        tokenizer._words = WordTokenizer.from_index(index, directory, unknown="vector")
        tokenizer._source = lambda: tokenizer._words.tokenizer
        tokenizer._source_file = tokenizer._words._source_file
        tokenizer.unknown = unknown
        tokenizer._set_grams(index.bigram_keys, index.bigram_ids, index.trigram_keys, index.trigram_ids)
        return tokenizer

    @property
    def vocab_size(self) -> int:
        return self._words.vocab_size

    def vocabulary_index(self, tokenizer_sha256: str) -> VocabularyIndex | None:
        """The stored form of this vocabulary (see :meth:`WordTokenizer.vocabulary_index`)."""
        return self._words.vocabulary_index(tokenizer_sha256)

    # construction -----------------------------------------------------------------------
    @classmethod
    def from_words(
        cls,
        words: WordTokenizer,
        bigrams: Sequence[tuple[str, str]],
        trigrams: Sequence[tuple[str, str, str]] = (),
    ) -> WordBigramTokenizer:
        """``words``'s vocabulary followed by ``bigrams`` (pairs of its words), then ``trigrams``
        (triples of its words), in that order."""
        vocabulary = words.vocabulary()[2:] + [JOINER.join(gram) for gram in [*bigrams, *trigrams]]
        built = WordTokenizer.from_vocabulary(vocabulary, unknown=words.unknown)
        return cls(built.tokenizer, unknown=words.unknown)

    @classmethod
    def from_texts(
        cls,
        words: WordTokenizer,
        texts: Iterable[str],
        *,
        max_bigrams: int,
        min_count: int = 2,
        max_trigrams: int = 0,
    ) -> WordBigramTokenizer:
        """The ``max_bigrams`` most frequent adjacent pairs of known words in ``texts`` seen at
        least ``min_count`` times (ties by word ids), after ``words``'s vocabulary; then the
        ``max_trigrams`` most frequent triples (counted in the same pass), chosen alike."""
        vocabulary = words.vocabulary()
        if not max_trigrams:
            pairs = _most_frequent(*count_pairs(words, texts), max_bigrams, min_count)
            return cls.from_words(words, [_words_of(vocabulary, k) for k in pairs])
        pair_counts, triple_counts = count_grams(words, texts)
        pairs = _most_frequent(*pair_counts, max_bigrams, min_count)
        triples = _most_frequent(*triple_counts, max_trigrams, min_count)
        return cls.from_words(
            words,
            [_words_of(vocabulary, k) for k in pairs],
            [_words_of(vocabulary, k, trigram=True) for k in triples],
        )

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
        if self._triples is not None:  # a model without trigrams writes the config it always did
            config["trigrams"] = int(len(self._triples.keys))
        if self.unknown == "pieces":
            config["pieces"] = self._words.piece_fallback().size
        return config

    def _shape_problem(self, config: dict) -> str | None:
        trigrams = len(self.trigram_ids)
        if not len(self._keys) and not trigrams:
            return "it holds no word bigrams"
        for what, held in (("bigrams", len(self._keys)), ("trigrams", trigrams)):
            declared = config.get(what, held)
            if declared != held:
                return f"it holds {held} word {what}, the config says {declared!r:.40}"
        return None

    @property
    def bigram_ids(self) -> np.ndarray:
        """The rows of the bigrams (the others are words, [PAD], [UNK] and trigrams)."""
        return np.sort(self._bigram_ids)

    @property
    def trigram_ids(self) -> np.ndarray:
        """The rows of the trigrams (none for a model without)."""
        return _NONE.copy() if self._triples is None else np.sort(self._triples.ids)

    def bigram_counts(self, texts: Iterable[str]) -> np.ndarray:
        """``(vocab_size,)`` occurrences of each listed bigram in ``texts`` (0 on word rows)."""
        keys, counts = count_pairs(self._words, texts)
        out = np.zeros(self.vocab_size, dtype=np.int64)
        rows, found = self._pairs.rows_of(keys)
        out[rows] = counts[found]
        return out

    def gram_counts(self, texts: Iterable[str]) -> np.ndarray:
        """``(vocab_size,)`` occurrences of each listed bigram and trigram in ``texts`` (one
        pass; 0 on word rows)."""
        if self._triples is None:
            return self.bigram_counts(texts)
        out = np.zeros(self.vocab_size, dtype=np.int64)
        for listed, (keys, counts) in zip(
            (self._pairs, self._triples), count_grams(self._words, texts), strict=True
        ):
            rows, found = listed.rows_of(keys)
            out[rows] = counts[found]
        return out

    def keeping(
        self, bigram_rows: np.ndarray, trigram_rows: np.ndarray | None = None
    ) -> tuple[WordBigramTokenizer, np.ndarray]:
        """``(tokenizer, rows)``: this vocabulary with only the bigrams of ``bigram_rows`` and the
        trigrams of ``trigram_rows`` (None: all of them), and the rows of the old table in the
        order of the new one (every word, then those bigrams, then those trigrams)."""
        trigram_rows = self.trigram_ids if trigram_rows is None else np.asarray(trigram_rows, dtype=np.int64)
        is_bigram = np.zeros(self.vocab_size, dtype=bool)
        is_bigram[self._bigram_ids] = True
        is_trigram = np.zeros(self.vocab_size, dtype=bool)
        is_trigram[self.trigram_ids] = True
        word_rows = np.flatnonzero(~is_bigram & ~is_trigram)
        bigram_rows = np.asarray(bigram_rows, dtype=np.int64)
        if not is_bigram[bigram_rows].all() or not is_trigram[trigram_rows].all():
            raise ValueError("keeping() takes bigram rows, then trigram rows, only")
        vocabulary = self.vocabulary()
        words = WordTokenizer.from_vocabulary([vocabulary[i] for i in word_rows[2:]], unknown=self.unknown)
        pairs = [tuple(vocabulary[i].split(JOINER)) for i in bigram_rows]
        triples = [tuple(vocabulary[i].split(JOINER)) for i in trigram_rows]
        tokenizer = WordBigramTokenizer.from_words(words, pairs, triples)  # type: ignore[arg-type]
        return tokenizer, np.concatenate([word_rows, bigram_rows, trigram_rows])

    # featurization ----------------------------------------------------------------------
    def _bigrams(self, words: Tokenized) -> tuple[np.ndarray, np.ndarray]:
        """``(ids, sentence)`` of the listed bigrams among the adjacent word pairs, then (with
        trigrams) of the listed trigrams, grouped by sentence: bigrams before trigrams."""
        if self._triples is None:
            return self._pairs.pairs_in(words)
        keys, sentence = pair_keys(words)
        rows, found = self._pairs.rows_of(keys)
        triples, of_sentence = triple_keys(words)
        trigram_rows, trigram_found = self._triples.rows_of(triples)
        sentences = np.concatenate([sentence[found], of_sentence[trigram_found]])
        order = np.argsort(sentences, kind="stable")  # each sentence: its bigrams, then its trigrams
        return np.concatenate([rows, trigram_rows])[order], sentences[order]

    def encode_batch(self, texts: Sequence[str]) -> Tokenized:
        """Each sentence's word ids (unknown words kept, skipped or replaced by their pieces
        per the policy) then its listed bigrams' ids, then its listed trigrams' ids."""
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
        bigrams and trigrams): words memoised per token, the n-gram lists held whole
        (:mod:`parasent.text.one_text`); None where that path does not apply."""
        if self._one_text is None:  # the n-gram rows first: another thread tests _one_text alone
            self._one_pairs = one_text_rows(self._pairs)
            if self._triples is not None:
                self._one_triples = one_text_rows(self._triples)
            self._one_text = Memo(functools.partial(self._words.token_entries, policy=self.unknown))
        entries = self._words.one_text_entries(text, self._one_text)
        if entries is None:
            return None
        units = list(itertools.chain.from_iterable(map(operator.itemgetter(1), entries)))
        if len(entries) > 1:
            ids = list(map(operator.itemgetter(0), entries))
            rows = self._one_pairs([(a << _PAIR_SHIFT) | b for a, b in zip(ids, ids[1:], strict=False)])
            if rows is None:
                return None
            units += rows
            if len(entries) > 2 and self._one_triples is not None:
                rows = self._one_triples(
                    [triple_key(*abc) for abc in zip(ids, ids[1:], ids[2:], strict=False)]
                )
                if rows is None:
                    return None
                units += rows
        return within(units, self.vocab_size)

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


Counts = tuple[np.ndarray, np.ndarray]  # (keys, counts): distinct keys, sorted, and their counts


def count_pairs(words: WordTokenizer, texts: Iterable[str]) -> Counts:
    """``(keys, counts)`` of the adjacent pairs of known words in ``texts`` (tokenized in
    chunks, so memory follows the number of distinct pairs, not the text)."""
    totals: Counts = (np.zeros(0, np.int64), np.zeros(0, np.int64))
    for chunk in _chunks(texts):
        totals = _add_counts(totals, *_known_pairs(words.encode_batch(chunk)))
    return totals


def count_grams(words: WordTokenizer, texts: Iterable[str]) -> tuple[Counts, Counts]:
    """The counts of the adjacent pairs and of the adjacent triples of known words in
    ``texts``, in one pass over the same chunks (memory follows the distinct pairs and
    triples, not the text). ``words`` must fit trigram keys (:data:`MAX_TRIGRAM_VOCAB`)."""
    check_trigram_vocabulary(words.vocab_size)
    pairs: Counts = (np.zeros(0, np.int64), np.zeros(0, np.int64))
    triples: Counts = (np.zeros(0, np.int64), np.zeros(0, np.int64))
    for chunk in _chunks(texts):
        tokenized = words.encode_batch(chunk)
        pairs = _add_counts(pairs, *_known_pairs(tokenized))
        triples = _add_counts(triples, *_known_triples(tokenized))
    return pairs, triples


def _chunks(texts: Iterable[str]) -> Iterable[list[str]]:
    """``texts`` in lists of :data:`COUNT_CHUNK` (the last one shorter, none empty)."""
    chunk: list[str] = []
    for text in texts:
        chunk.append(text)
        if len(chunk) == COUNT_CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _known_pairs(tokenized: Tokenized) -> Counts:
    keys, _ = pair_keys(tokenized)
    first, second = keys >> _SHIFT, keys & _LOW
    known = (first > UNK_ID) & (second > UNK_ID)  # no [PAD] or [UNK] in a bigram
    return np.unique(keys[known], return_counts=True)


def _known_triples(tokenized: Tokenized) -> Counts:
    keys, _ = triple_keys(tokenized)
    first, second, third = keys >> (_TRI + _TRI), (keys >> _TRI) & _TRI_LOW, keys & _TRI_LOW
    known = (first > UNK_ID) & (second > UNK_ID) & (third > UNK_ID)  # no [PAD] or [UNK] in a trigram
    return np.unique(keys[known], return_counts=True)


def _add_counts(totals: Counts, keys: np.ndarray, counts: np.ndarray) -> Counts:
    merged, inverse = np.unique(np.concatenate([totals[0], keys]), return_inverse=True)
    summed = np.zeros(len(merged), dtype=np.int64)
    np.add.at(summed, inverse, np.concatenate([totals[1], counts]))
    return merged, summed


def _most_frequent(keys: np.ndarray, counts: np.ndarray, limit: int, min_count: int) -> np.ndarray:
    """The ``limit`` keys counted most often, at least ``min_count`` times (ties by key)."""
    keep = counts >= min_count
    keys, counts = keys[keep], counts[keep]
    return keys[np.lexsort((keys, -counts))[:limit]]


def _words_of(vocabulary: list[str], key: np.int64, *, trigram: bool = False) -> tuple[str, ...]:
    """The words of a pair's key, or of a triple's."""
    if trigram:
        return (
            vocabulary[int(key >> (_TRI + _TRI))],
            vocabulary[int((key >> _TRI) & _TRI_LOW)],
            vocabulary[int(key & _TRI_LOW)],
        )
    return vocabulary[int(key >> _SHIFT)], vocabulary[int(key & _LOW)]


def merge_units(words: Tokenized, grams: np.ndarray, sentence: np.ndarray) -> Tokenized:
    """Sentence i's units: its words, then the bigram ids whose ``sentence`` is i (``sentence``
    ascending). The k-th gram of the batch lands at ``words.offsets[sentence[k] + 1] + k``: after
    its sentence's words, moved on by the k grams before it; the words fill the other places,
    in order."""
    if not len(grams):
        return words
    if len(words) == 1:  # one sentence: its words, then its bigrams
        ids = np.concatenate([words.ids[int(words.offsets[0]) : int(words.offsets[1])], grams])
        return Tokenized(ids, np.array([0, len(ids)], dtype=np.int64))
    gram_at = words.offsets[sentence + 1] + np.arange(len(grams), dtype=np.int64)
    is_word = np.ones(len(words.ids) + len(grams), dtype=bool)
    is_word[gram_at] = False
    ids = np.empty(len(is_word), dtype=np.int64)
    ids[gram_at] = grams
    ids[is_word] = words.ids
    # each sentence's bounds, moved on by the grams of the sentences before it
    offsets = np.zeros(len(words) + 1, dtype=np.int64)
    np.cumsum(np.bincount(sentence, minlength=len(words)), out=offsets[1:])
    offsets += words.offsets
    return Tokenized(ids, offsets)
