"""Split ASCII text into words and look them up, in numpy alone (no Python object per word).

Why: splitting with ``re`` and looking words up in a dict holds the GIL for two thirds of
static encoding; numpy array operations release it, so with this lookup every encoding thread
runs at once (see :mod:`parasent.support.parallel_map`). The split is the word pipeline's on ASCII
(lowercase, ``\\w+|[^\\w\\s]`` after whitespace splitting, as in :mod:`parasent.text.tokenizer`):
a word is a run of ``[A-Za-z0-9_]``, every other non-space byte is a token of its own.

A token is found in the vocabulary by a 64-bit polynomial hash of its lowercased bytes,
computed for all tokens of a segment at once from prefix sums (h = sum_j (b_j + 1) P^j mod 2^64, and the
hash of bytes [s, e) is (H[e] - H[s]) P^-s, P odd so invertible mod 2^64). Two vocabulary
words with one hash are refused at build time; an unknown word taking a known word's hash has
a probability of about vocabulary / 2^64 (~1e-14 at 227k words) per word.

Vocabulary tokens are hashed as written (their UTF-8 bytes), text lowercased first: a token
with a capital letter never matches, as in the ``tokenizers`` pipeline, whose normalizer
lowercases the text and never the vocabulary. The same hashes of the UTF-8 bytes of words the
pipeline has already normalised (:func:`word_hashes`) find non-ASCII words, so a vocabulary
stored as sorted hashes (:mod:`parasent.text.vocabulary_index`) serves every text.
"""

from __future__ import annotations

import functools
import itertools
import threading
from collections.abc import Mapping

import numpy as np

from parasent.errors import HashCollision
from parasent.support.parallel_map import parts_for, run_together
from parasent.text.probing_table import ProbingTable

SEPARATOR_BYTE = 0  # joins texts (one after each): a bound between them, no token
SEGMENT_BYTES = 1 << 20  # bytes hashed at once: bounds the prefix sums and the powers kept
# Words looked up by binary search before a lookup builds its ProbingTable: building one over
# 227k words costs what searching about this many words saves (a short run never builds it)
TABLE_AFTER_WORDS = 1 << 19
# Bytes of joined texts each thread splits at the least (text_ids): the split's steps release
# the GIL, but a part of fewer bytes spends on handing the GIL over what it saves (the suite at
# batch 4,096, ~245 KB: 1.13-1.2x on two threads; at 1,024, ~60 KB: nothing)
PART_MIN_BYTES = 1 << 16
_BASE = np.uint64(0x9E3779B97F4A7C15)  # odd, so it has an inverse mod 2^64
_BASE_INVERSE = np.uint64(pow(int(_BASE), -1, 2**64))
_BASE_INT = int(_BASE)  # the same base as a Python integer (token_hash)
_MASK = (1 << 64) - 1


class AsciiWordLookup:
    """Token ids of ASCII text: ``text_ids(data)`` gives one id per token of texts joined by
    the separator byte (``unknown`` for words outside the vocabulary) and each text's count."""

    def __init__(self, vocabulary: Mapping[str, int], unknown: int) -> None:
        words = [(word, index) for word, index in vocabulary.items() if word]
        hashes = word_hashes([word for word, _ in words])
        order = np.argsort(hashes, kind="stable")
        keys = hashes[order]
        if len(keys) > 1 and bool((keys[1:] == keys[:-1]).any()):
            raise HashCollision("two vocabulary words share a 64-bit hash")
        values = np.fromiter((index for _, index in words), dtype=np.int64, count=len(words))[order]
        self._set(keys, values, unknown)

    @classmethod
    def from_sorted(cls, keys: np.ndarray, values: np.ndarray, unknown: int) -> AsciiWordLookup:
        """A lookup over hashes already sorted and unique (of :func:`word_hashes`), ``values``
        their ids: a stored vocabulary, used as it is (memory-mapped arrays are not copied)."""
        lookup = cls.__new__(cls)
        lookup._set(keys, values, unknown)
        return lookup

    def _set(self, keys: np.ndarray, values: np.ndarray, unknown: int) -> None:
        self._powers = (np.ones(1, dtype=np.uint64), np.ones(1, dtype=np.uint64))  # P^j, P^-j
        self._keys, self._values, self.unknown = keys, values, unknown
        self._last = len(keys) - 1
        self._table: ProbingTable | None = None
        self._searched = 0  # words found by binary search so far (approximate under threads)
        self._building = threading.Lock()

    def ids_of_tokens(self, tokens: list[str]) -> list[int]:
        """:meth:`ids_of_words` of a few tokens (the one-text path's new words): each hashed in
        Python (:func:`token_hash`), then one search, instead of the dozen array steps that hash
        a batch, whose fixed cost is most of the time for a handful of words."""
        hashes = [token_hash(token.encode("utf-8", "surrogatepass")) for token in tokens]
        return self._found(np.array(hashes, dtype=np.uint64)).tolist()

    def ids_of_words(self, words: list[str]) -> np.ndarray:
        """The id of each word already normalised by the pipeline (any Unicode; ``unknown``
        for words outside the vocabulary)."""
        return self._found(word_hashes(words, self))

    def text_ids(self, data: bytes) -> tuple[np.ndarray, np.ndarray]:
        """``(ids, lengths)`` of ASCII texts joined by the separator byte (one after each text):
        the id of every token in order (see the module docstring), and each text's number of
        tokens. Long data is cut at separators into parts of at least :data:`PART_MIN_BYTES`,
        split at once (:func:`parasent.support.parallel_map.parts_for`)."""
        parts = parts_for(len(data), PART_MIN_BYTES)
        if parts == 1:
            return self._text_ids(memoryview(data))
        cuts = [0]
        for part in range(1, parts):
            cuts.append(max(cuts[-1], data.find(b"\0", part * len(data) // parts) + 1))
        cuts.append(len(data))
        found: dict[int, tuple[np.ndarray, np.ndarray]] = {}

        def split(part: int) -> None:
            found[part] = self._text_ids(memoryview(data)[cuts[part] : cuts[part + 1]])

        run_together([functools.partial(split, part) for part in range(parts)])
        ids, lengths = zip(*(found[part] for part in range(parts)), strict=True)
        return np.concatenate(ids), np.concatenate(lengths)

    def _text_ids(self, data: memoryview) -> tuple[np.ndarray, np.ndarray]:
        values = np.frombuffer(data, dtype=np.uint8)
        starts, ends, lengths = text_bounds(values)
        return self.span_ids(values, starts, ends, lowercase=True), lengths

    def span_ids(
        self, values: np.ndarray, starts: np.ndarray, ends: np.ndarray, *, lowercase: bool = False
    ) -> np.ndarray:
        """The id of each token ``values[starts[j]:ends[j]]`` (bytes, hashed as written, or with
        ASCII capitals as their lowercase)."""
        return self._found(self._hashes(values, starts, ends, lowercase=lowercase))

    def _found(self, hashes: np.ndarray) -> np.ndarray:
        if self._last < 0:
            return np.full(len(hashes), self.unknown, dtype=np.int64)
        table = self._table if self._table is not None else self._table_to_use(len(hashes))
        if table is not None:
            return table.find(hashes, self.unknown)
        where = np.minimum(np.searchsorted(self._keys, hashes), self._last)
        return np.where(self._keys[where] == hashes, self._values[where], self.unknown)

    def _table_to_use(self, count: int) -> ProbingTable | None:
        """The hash table, built once :data:`TABLE_AFTER_WORDS` words have been searched."""
        self._searched += count
        if self._searched < TABLE_AFTER_WORDS:
            return None
        with self._building:  # threads encoding at once build it once
            if self._table is None:  # one-character tokens (punctuation) are the most frequent
                priority = np.where(np.isin(self._keys, one_character_keys()), -1, self._values)
                self._table = ProbingTable(self._keys, self._values, priority)
        return self._table

    def _hashes(
        self, values: np.ndarray, starts: np.ndarray, ends: np.ndarray, *, lowercase: bool = True
    ) -> np.ndarray:
        """Each token's hash, a segment of about :data:`SEGMENT_BYTES` at a time, so that the
        prefix sums and powers stay that size however long the batch."""
        hashes = np.empty(len(starts), dtype=np.uint64)
        cuts = np.searchsorted(starts, np.arange(SEGMENT_BYTES, len(values), SEGMENT_BYTES))
        bounds = [0, len(starts)] if not len(cuts) else np.unique(np.concatenate([[0], cuts, [len(starts)]]))
        for first, last in itertools.pairwise(bounds):
            if first == last:
                continue
            base = int(starts[first])
            segment = values[base : int(ends[last - 1])]
            powers, inverse_powers = self._powers_for(len(segment) + 1)
            weights = byte_weights(segment, lowercase=lowercase)
            weights *= powers[: len(segment)]
            prefix = np.empty(len(segment) + 1, dtype=np.uint64)
            prefix[0] = 0
            np.cumsum(weights, out=prefix[1:])
            local_starts, local_ends = starts[first:last] - base, ends[first:last] - base
            hashes[first:last] = (prefix[local_ends] - prefix[local_starts]) * inverse_powers[local_starts]
        return hashes

    def _powers_for(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        """P^j and P^-j for j < count. Kept up to two segments, as one pair that threads read
        once and replace whole, never by a shorter one; a longer single token gets its own,
        not kept."""
        powers, inverse_powers = self._powers
        if len(powers) >= count:
            return powers, inverse_powers
        size = max(count, min(2 * len(powers), 2 * SEGMENT_BYTES))
        powers = np.cumprod(np.r_[np.uint64(1), np.full(size - 1, _BASE, dtype=np.uint64)], dtype=np.uint64)
        inverse_powers = np.cumprod(
            np.r_[np.uint64(1), np.full(size - 1, _BASE_INVERSE, dtype=np.uint64)], dtype=np.uint64
        )
        if size <= 2 * SEGMENT_BYTES and size > len(self._powers[0]):
            self._powers = (powers, inverse_powers)
        return powers, inverse_powers


def text_bounds(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Start and end (exclusive) of each token of ASCII texts joined by the separator byte
    (runs of word bytes, and each other byte that is neither space nor the separator alone),
    and each text's number of tokens."""
    word, bound = word_and_space(values)
    separator = values == SEPARATOR_BYTE
    bound |= separator
    bound |= word
    starts, ends = spans(word, ~bound)
    return starts, ends, tokens_per_text(starts, separator)


def tokens_per_text(starts: np.ndarray, separator: np.ndarray) -> np.ndarray:
    """Each text's number of tokens, from the tokens' starts and a mark on the separator that
    closes each text."""
    return np.diff(np.searchsorted(starts, np.flatnonzero(separator)), prepend=0)


def word_and_space(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which bytes are word bytes (``[A-Za-z0-9_]``) and which are spaces (WhitespaceSplit's
    six), by comparisons: looking bytes up in a table widens the uint8 index to intp first,
    which makes it 7x the time of these few passes."""
    word = (values | np.uint8(32)) - np.uint8(97) <= 25  # a letter, either case (uint8 wraps)
    word |= values - np.uint8(48) <= 9  # a digit
    word |= values == 95  # _
    space = values - np.uint8(9) <= 4  # \t \n \v \f \r
    space |= values == 32
    return word, space


def byte_weights(values: np.ndarray, *, lowercase: bool) -> np.ndarray:
    """Each byte's weight in the hash, uint64: the byte plus one (so that byte 0 still moves the
    hash), an ASCII capital as its lowercase where ``lowercase`` (text; vocabulary tokens are
    hashed as written)."""
    if lowercase:
        capital = values - np.uint8(65) <= 25
        values = values | (capital.view(np.uint8) << np.uint8(5))
    weights = values.astype(np.uint64)
    weights += np.uint64(1)
    return weights


def spans(word: np.ndarray, alone: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (exclusive) of each token of a text whose characters are marked ``word``
    (runs of them make a token) or ``alone`` (a token each); the rest is space."""
    before = np.zeros(len(word), dtype=bool)  # np.r_ costs more than the rest for a short text
    before[1:] = word[:-1]
    after = np.zeros(len(word), dtype=bool)
    after[:-1] = word[1:]
    starts = ((word & ~before) | alone).nonzero()[0]
    ends = ((word & ~after) | alone).nonzero()[0] + 1
    return starts, ends


def words_at(texts: list[str], which: np.ndarray, ranks: np.ndarray) -> list[str]:
    """Token ``ranks[j]`` of ``texts[which[j]]``, lowercased, split as
    :meth:`AsciiWordLookup.text_ids` splits: the texts are ASCII without the separator byte.
    Only the wanted tokens become strings (the words of a batch that a piece fallback spells
    out, not every word)."""
    data = ("\0".join(texts) + "\0").lower().encode("ascii")
    starts, ends, lengths = text_bounds(np.frombuffer(data, dtype=np.uint8))
    index = (np.cumsum(lengths) - lengths)[which] + ranks
    return [
        data[a:b].decode("ascii") for a, b in zip(starts[index].tolist(), ends[index].tolist(), strict=True)
    ]


def word_hashes(words: list[str], lookup: AsciiWordLookup | None = None) -> np.ndarray:
    """The hash of each word's UTF-8 bytes as written (no lowercasing): the key of a vocabulary
    token, or of a word the pipeline has normalised. ``lookup`` lends its cached powers."""
    data = "".join(words).encode("utf-8", "surrogatepass")
    lengths = np.fromiter((len(w.encode("utf-8", "surrogatepass")) for w in words), np.int64, len(words))
    ends = np.cumsum(lengths)
    hasher = lookup if lookup is not None else AsciiWordLookup.from_sorted(_NO_KEYS, _NO_VALUES, 0)
    return hasher._hashes(np.frombuffer(data, dtype=np.uint8), ends - lengths, ends, lowercase=False)


def token_hash(data: bytes) -> int:
    """The hash :func:`word_hashes` gives the bytes ``data`` (sum_j (b_j + 1) P^j mod 2^64), in
    Python integers by Horner's rule: for one short token, faster than any array step."""
    total = 0
    for byte in reversed(data):
        total = (total * _BASE_INT + byte + 1) & _MASK
    return total


@functools.cache
def one_character_keys() -> np.ndarray:
    """The keys of the printable ASCII characters as tokens of their own."""
    return word_hashes([chr(byte) for byte in range(33, 127)])


_NO_KEYS = np.zeros(0, dtype=np.uint64)
_NO_VALUES = np.zeros(0, dtype=np.int64)
