"""Character featurizers for the CHARAGRAM family (Wieting et al. 2016, CHARAGRAM supplement).

A sentence is read as one character sequence: lowercased (as the word models' text),
whitespace runs collapsed to one space, with a start and an end marker. Its features are
the character n-grams of the orders asked for, at every position, spaces and markers
included, so n-grams capture word boundaries and the beginning and end of the sentence:

* ``orders=(2, 3, 4)``: the n-grams whose counts CHARAGRAM multiplies by its matrix
  (a bag: an n-gram occurring k times appears k times);
* ``orders=(1,)``: the characters in order, for charCNN and charLSTM.

The ``tokenizers`` library cannot emit overlapping n-grams, so they are extracted here; the
vocabulary is kept as a standard ``tokenizers`` WordLevel model (``tokenizer.json``: applied
to the n-grams joined by spaces, it gives the same ids; a space inside an n-gram is written
``SPACE``). The extraction settings live in the model's ``config.json``
(``tokenizer.kind = "char_ngrams"``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from tokenizers import Tokenizer, models, pre_tokenizers

from parasent.errors import ModelFormatError
from parasent.text.tokenized import Tokenized
from parasent.text.tokenizer import (
    PAD,
    PAD_ID,
    UNK,
    UNK_ID,
    UNKNOWN_POLICIES,
    VocabularyTokenizer,
    read_tokenizer_file,
)

BOS = "\u27e8"  # start marker
EOS = "\u27e9"  # end marker
SPACE = "\u2581"  # a space inside an n-gram
_RESERVED = str.maketrans("", "", BOS + EOS + SPACE)

#: Featurizers by the name an encoder's registry entry gives: n-gram orders and what an
#: unseen feature becomes (CHARAGRAM has no column for it; a character model has [UNK]).
FEATURIZERS: dict[str, dict[str, Any]] = {
    "char_ngrams": {"orders": (2, 3, 4), "unknown": "skip"},
    "chars": {"orders": (1,), "unknown": "vector"},
}


def _configure(tokenizer: Tokenizer) -> Tokenizer:
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return tokenizer


class CharNgramTokenizer(VocabularyTokenizer):
    """Character n-grams to ids with a fixed vocabulary; ``[PAD]`` is 0, ``[UNK]`` 1.

    ``unknown="skip"`` drops n-grams outside the vocabulary, ``"vector"`` maps them to
    ``[UNK]``. Same interface as :class:`~parasent.text.tokenizer.WordTokenizer`.
    """

    kind = "char_ngrams"
    PATTERNS: frozenset[str] = frozenset()  # whitespace split alone
    CONFIG_KEYS = frozenset({"kind", "orders", "lowercase", "unknown", "vocab_size"})

    def __init__(
        self,
        tokenizer: Tokenizer,
        *,
        orders: Sequence[int] = (2, 3, 4),
        lowercase: bool = True,
        unknown: str = "skip",
    ) -> None:
        if unknown not in UNKNOWN_POLICIES:
            raise ValueError(f"unknown must be one of {UNKNOWN_POLICIES}, got {unknown!r}")
        self.orders = tuple(int(n) for n in orders)
        if not self.orders or min(self.orders) < 1:
            raise ValueError(f"n-gram orders must be positive, got {list(orders)}")
        vocab = tokenizer.get_vocab()
        if vocab.get(PAD) != PAD_ID or vocab.get(UNK) != UNK_ID:
            raise ModelFormatError(f"tokenizer must map {PAD} to {PAD_ID} and {UNK} to {UNK_ID}")
        self._tokenizer = tokenizer
        self._check_patterns()
        self._vocab = vocab
        self.lowercase = bool(lowercase)
        self.unknown = unknown

    # construction -----------------------------------------------------------------------
    @classmethod
    def from_vocabulary(cls, grams: Sequence[str], **options: Any) -> CharNgramTokenizer:
        """Ids from 2 in the given order; duplicates and specials are ignored."""
        vocab = {PAD: PAD_ID, UNK: UNK_ID}
        for gram in grams:
            if gram not in vocab:
                vocab[gram] = len(vocab)
        return cls(_configure(Tokenizer(models.WordLevel(vocab, unk_token=UNK))), **options)

    @classmethod
    def from_texts(
        cls,
        texts: Iterable[str],
        *,
        orders: Sequence[int] = (2, 3, 4),
        lowercase: bool = True,
        unknown: str = "skip",
        max_size: int | None = None,
        min_count: int = 1,
    ) -> CharNgramTokenizer:
        """The vocabulary of the n-grams in ``texts``: by descending count (ties in code point
        order), at least ``min_count``, at most ``max_size`` of them."""
        probe = cls.from_vocabulary([], orders=orders, lowercase=lowercase, unknown=unknown)
        counts: Counter[str] = Counter()
        for text in texts:
            counts.update(probe.grams(text))
        grams = sorted((g for g, c in counts.items() if c >= min_count), key=lambda g: (-counts[g], g))
        if max_size is not None:
            grams = grams[:max_size]
        return cls.from_vocabulary(grams, orders=orders, lowercase=lowercase, unknown=unknown)

    @classmethod
    def from_tokenizer(cls, tokenizer: Tokenizer, config: dict[str, Any]) -> CharNgramTokenizer:
        return cls(
            tokenizer,
            orders=config.get("orders", (2, 3, 4)),
            lowercase=config.get("lowercase", True),
            unknown=config.get("unknown", "skip"),
        )

    @classmethod
    def load(cls, directory: str | Path, config: dict[str, Any]) -> CharNgramTokenizer:
        return cls.from_tokenizer(read_tokenizer_file(directory), config)

    def config(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "orders": list(self.orders),
            "lowercase": self.lowercase,
            "unknown": self.unknown,
            "vocab_size": self.vocab_size,
        }

    # featurization ----------------------------------------------------------------------
    def sequence(self, text: str) -> str:
        """The marked character sequence of ``text`` (spaces written ``SPACE``)."""
        if self.lowercase:
            text = text.lower()
        return BOS + SPACE.join(text.translate(_RESERVED).split()) + EOS

    def grams(self, text: str) -> list[str]:
        """Every n-gram of every order, in order of order then position."""
        s = self.sequence(text)
        return [s[i : i + n] for n in self.orders for i in range(len(s) - n + 1)]

    def _encode_all(self, texts: Sequence[str], chunk: int = 8192) -> Tokenized:
        # A dict lookup per n-gram is several times faster than the tokenizers pipeline on
        # the space-joined n-grams (same vocabulary, read from tokenizer.json); chunks bound
        # the memory of the intermediate Python lists.
        get = self._vocab.get
        parts = []
        for start in range(0, len(texts), chunk):
            grams = [self.grams(text) for text in texts[start : start + chunk]]
            lengths = np.fromiter(map(len, grams), dtype=np.int64, count=len(grams))
            ids = np.fromiter(
                (get(g, UNK_ID) for gs in grams for g in gs), dtype=np.int64, count=int(lengths.sum())
            )
            offsets = np.zeros(len(grams) + 1, dtype=np.int64)
            np.cumsum(lengths, out=offsets[1:])
            parts.append(Tokenized(ids, offsets))
        return Tokenized.concatenate(parts) if len(parts) != 1 else parts[0]

    def encode_batch(self, texts: Sequence[str]) -> Tokenized:
        tokenized = self._encode_all(texts)
        return tokenized.without(UNK_ID) if self.unknown == "skip" else tokenized

    def tokens(self, text: str) -> list[str]:
        return self.grams(text)

    def oov_counts(self, texts: Iterable[str]) -> tuple[int, int]:
        """(n-grams outside the vocabulary, all n-grams) over ``texts``."""
        tokenized = self._encode_all(list(texts))
        return int(np.count_nonzero(tokenized.ids == UNK_ID)), len(tokenized.ids)
