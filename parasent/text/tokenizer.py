"""Word tokenization matching the papers' preprocessing, built on the ``tokenizers`` library.

Text is lowercased (no other normalisation, as in the papers), split on whitespace, and every punctuation or
symbol character becomes its own token (``\\w+|[^\\w\\s]``): "Dominick's" and the
pre-tokenized "dominick 's" both become ``dominick ' s``. Every model carries this
pipeline and its vocabulary as a standard ``tokenizer.json``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np
from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers

from parasent.errors import ModelFormatError
from parasent.text.tokenized import Tokenized

PAD = "[PAD]"
UNK = "[UNK]"
PAD_ID = 0
UNK_ID = 1
UNKNOWN_POLICIES = ("vector", "skip")
TOKENIZER_FILE = "tokenizer.json"


def _configure(tokenizer: Tokenizer) -> Tokenizer:
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Split(Regex(r"\w+|[^\w\s]"), behavior="isolated")]
    )
    return tokenizer


_SPLITTER = _configure(Tokenizer(models.WordLevel({PAD: PAD_ID, UNK: UNK_ID}, unk_token=UNK)))


def pre_tokenize(text: str) -> list[str]:
    """The words of ``text`` after normalisation, before any vocabulary lookup."""
    normalized = _SPLITTER.normalizer.normalize_str(text)
    return [word for word, _ in _SPLITTER.pre_tokenizer.pre_tokenize_str(normalized)]


def read_tokenizer_file(directory: str | Path) -> Tokenizer:
    """The ``tokenizer.json`` of a model directory, with a clear error if missing or broken."""
    path = Path(directory) / TOKENIZER_FILE
    if not path.is_file():
        raise ModelFormatError(f"{path}: missing (a model directory needs {TOKENIZER_FILE})")
    try:
        return Tokenizer.from_file(str(path))
    except Exception as exc:  # the tokenizers library raises plain Exceptions
        raise ModelFormatError(f"{path}: not a valid tokenizer file ({exc})") from exc


class VocabularyTokenizer:
    """What every parasent tokenizer shares: a ``tokenizers`` pipeline with a fixed vocabulary
    (``[PAD]`` 0, ``[UNK]`` 1), saved as the model directory's ``tokenizer.json``."""

    _tokenizer: Tokenizer

    def save(self, directory: str | Path) -> None:
        self._tokenizer.save(str(Path(directory) / TOKENIZER_FILE))

    @property
    def vocab_size(self) -> int:
        return self._tokenizer.get_vocab_size(with_added_tokens=True)

    @property
    def tokenizer(self) -> Tokenizer:
        return self._tokenizer

    def vocabulary(self) -> list[str]:
        """Tokens by id."""
        vocab = self._tokenizer.get_vocab()
        tokens = [""] * len(vocab)
        for token, index in vocab.items():
            tokens[index] = token
        return tokens

    def token_to_id(self, token: str) -> int | None:
        return self._tokenizer.token_to_id(token)


class WordTokenizer(VocabularyTokenizer):
    """Words to ids with a fixed vocabulary: ``[PAD]`` is id 0, ``[UNK]`` id 1, words from 2.

    ``unknown`` says what an out-of-vocabulary word becomes: ``"vector"`` maps it to the
    ``[UNK]`` row (a learned unknown-word vector, as in the papers' models); ``"skip"`` drops
    it (plain averaging of pretrained vectors, where no unknown vector exists).
    """

    kind = "words"

    def __init__(self, tokenizer: Tokenizer, *, unknown: str = "vector") -> None:
        if unknown not in UNKNOWN_POLICIES:
            raise ValueError(f"unknown must be one of {UNKNOWN_POLICIES}, got {unknown!r}")
        # token_to_id, not get_vocab(): building the whole dict costs ~0.1 s at 100k words.
        if tokenizer.token_to_id(PAD) != PAD_ID or tokenizer.token_to_id(UNK) != UNK_ID:
            raise ModelFormatError(f"tokenizer must map {PAD} to {PAD_ID} and {UNK} to {UNK_ID}")
        self._tokenizer = tokenizer
        self.unknown = unknown
        self._encode = getattr(tokenizer, "encode_batch_fast", tokenizer.encode_batch)

    @classmethod
    def from_vocabulary(cls, words: Sequence[str], *, unknown: str = "vector") -> WordTokenizer:
        """Build from words (ids from 2 in the given order); duplicates and specials are ignored."""
        vocab = {PAD: PAD_ID, UNK: UNK_ID}
        for word in words:
            if word not in vocab:
                vocab[word] = len(vocab)
        return cls(_configure(Tokenizer(models.WordLevel(vocab, unk_token=UNK))), unknown=unknown)

    @classmethod
    def load(cls, directory: str | Path, *, unknown: str = "vector") -> WordTokenizer:
        return cls(read_tokenizer_file(directory), unknown=unknown)

    def config(self) -> dict:
        return {"kind": self.kind, "unknown": self.unknown, "vocab_size": self.vocab_size}

    def _encode_all(self, texts: Sequence[str]) -> Tokenized:
        encodings = self._encode(list(texts), add_special_tokens=False)
        return Tokenized.from_lists([e.ids for e in encodings])

    def encode_batch(self, texts: Sequence[str]) -> Tokenized:
        """Ids of every text, unknown words kept as ``[UNK]`` or dropped per the policy."""
        tokenized = self._encode_all(texts)
        return tokenized.without(UNK_ID) if self.unknown == "skip" else tokenized

    def tokens(self, text: str) -> list[str]:
        return self._tokenizer.encode(text, add_special_tokens=False).tokens

    def oov_counts(self, texts: Iterable[str]) -> tuple[int, int]:
        """(unknown tokens, all tokens) over ``texts``."""
        tokenized = self._encode_all(list(texts))
        return int(np.count_nonzero(tokenized.ids == UNK_ID)), len(tokenized.ids)


def iter_batches(items: Sequence, size: int) -> Iterator[Sequence]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
