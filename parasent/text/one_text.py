"""One text at a time, its tokens memoised: the path of ``encode("a sentence")``.

Why: a batch of one pays numpy's fixed cost per array operation (about 40 of them for a
sentence with bigrams and subword pieces: splitting, hashing, searching, merging), which is
most of the time of a short sentence. Here the text is split by one regular expression (the
word pipeline's split on ASCII, as :mod:`parasent.text.ascii_words` has it: lowercase, a word
is a run of ``[A-Za-z0-9_]``, every other non-space character a token of its own), and each
token's word id and units come from a bounded memo, its missing tokens filled in one call by
the batch path's own lookup (each hashed in Python, all found in one search: a text of words
not seen before costs little more than one seen before). A word model's bigrams and trigrams
are a fixed list, held whole as a dict (:class:`Whole`) rather than memoised. The ids are the
batch path's, token for token, in the same order, so the vector is the batch path's bit for
bit (``tests/text/test_one_text.py``).

Text that is not ASCII is split by :func:`parasent.text.unicode_words.tokens` (each
character's class as the pipeline has it) and goes through the same memo. Text that holds
the batch path's separator (NUL), a character that split does not serve, or is longer than
:data:`MAX_CHARACTERS` returns None: the caller takes the batch path. A memo never holds more
than :data:`MEMO_ENTRIES` entries, whatever one text brings.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Sequence
from typing import Generic, TypeVar

import numpy as np

MEMO_ENTRIES = 1 << 16  # tokens per memo (each under MAX_CHARACTERS); past this it starts afresh
MAX_CHARACTERS = 10_000  # a longer text takes the batch path, whose numpy split suits it better
_TOKEN = re.compile(r"[a-z0-9_]+|[^a-z0-9_ \t\n\r\x0b\x0c]")  # whitespace: WhitespaceSplit's six

# A list of n-grams up to this many keys is held whole as a dict for the one-text path (12,000
# bigrams: about 1 MB, built in a millisecond at the first text); a longer one is memoised.
WHOLE_KEYS = 1 << 18

Key = TypeVar("Key", bound=Hashable)
Value = TypeVar("Value")


def ascii_tokens(text: str) -> list[str] | None:
    """The word pipeline's tokens of an ASCII ``text`` (lowercased), or None for other text."""
    if len(text) > MAX_CHARACTERS or not text.isascii() or "\0" in text:
        return None
    return _TOKEN.findall(text.lower())


class Memo(Generic[Key, Value]):
    """``key -> value``, the missing keys of a call filled at once by ``fill`` (which returns
    their values in order, or None when it cannot: the caller falls back). Threads may share
    it: a full memo is replaced, never cleared under a reader."""

    def __init__(self, fill: Callable[[list[Key]], Sequence[Value] | None]) -> None:
        self._fill = fill
        self._entries: dict[Key, Value] = {}

    def lookup(self, keys: Sequence[Key]) -> list[Value] | None:
        entries = self._entries
        found = list(map(entries.get, keys))
        if None not in found:
            return found  # type: ignore[return-value]
        missing = list(dict.fromkeys(key for key, value in zip(keys, found, strict=True) if value is None))
        values = self._fill(missing)
        if values is None:
            return None
        filled = dict(zip(missing, values, strict=True))
        if len(entries) + len(filled) > MEMO_ENTRIES:
            entries = self._entries = {}
        if len(filled) <= MEMO_ENTRIES:  # never more than the bound, whatever one call brings
            entries.update(filled)
        return [filled[key] if value is None else value for key, value in zip(keys, found, strict=True)]


class Whole(Generic[Key, Value]):
    """Every key of a small fixed list held as a dict: what a :class:`Memo` would fill in is
    there from the start, so text never seen costs what seen text does."""

    def __init__(self, entries: dict[Key, Value]) -> None:
        self._entries = entries

    def listed(self, keys: Sequence[Key]) -> list[Value]:
        """The values of the ``keys`` that are listed, in order (the others skipped)."""
        return [value for value in map(self._entries.get, keys) if value is not None]


def within(units: list[int], size: int) -> np.ndarray | None:
    """``units`` as the int64 ids of one text, or None if one is outside ``0..size-1`` (a
    vocabulary file that does not fit its tokenizer: the batch path then names the problem)."""
    if units and (min(units) < 0 or max(units) >= size):
        return None
    return np.array(units, dtype=np.int64)
