"""Which featurizer a model uses, by the ``tokenizer.kind`` of its ``config.json``.

``words``: :class:`~parasent.text.tokenizer.WordTokenizer` (word models); ``char_ngrams``:
:class:`~parasent.text.characters.CharNgramTokenizer` (CHARAGRAM, charCNN, charLSTM);
``word_bigrams``: :class:`~parasent.text.word_bigrams.WordBigramTokenizer` (words and
listed word bigrams, and trigrams if it lists any, averaged together); ``tokenizer``:
:class:`~parasent.text.pretrained.PretrainedTokenizer` (any ``tokenizers``
pipeline used as shipped, e.g. the WordPiece of an imported sentence-transformers model). All
keep their vocabulary in a standard ``tokenizer.json`` and share one interface
(``encode_batch``, ``vocab_size``, ``config``, ``save``, ``oov_counts``, ``tokenizer``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from tokenizers import Tokenizer

from parasent.errors import ModelFormatError
from parasent.text.characters import CharNgramTokenizer
from parasent.text.pretrained import PretrainedTokenizer
from parasent.text.tokenized import Tokenized
from parasent.text.tokenizer import WordTokenizer
from parasent.text.vocabulary_index import stored_index
from parasent.text.word_bigrams import WordBigramTokenizer

KINDS = ("words", "char_ngrams", "tokenizer", "word_bigrams")


class Featurizer(Protocol):
    kind: str
    unknown: str

    @property
    def vocab_size(self) -> int: ...

    @property
    def tokenizer(self) -> Tokenizer: ...

    def encode_batch(self, texts: Any) -> Tokenized: ...

    def config(self) -> dict[str, Any]: ...

    def save(self, directory: str | Path) -> None: ...

    def oov_counts(self, texts: Any) -> tuple[int, int]: ...


def _kind(config: dict[str, Any]) -> str:
    kind = config.get("kind", "words")
    if kind not in KINDS:
        raise ModelFormatError(f"unknown tokenizer kind {kind!r} (known: {', '.join(KINDS)})")
    return kind


def _checked(featurizer: Featurizer, config: dict[str, Any]) -> Featurizer:
    """``featurizer``, refused when ``config`` or its file is another kind's (each kind says how)."""
    check_kind = getattr(featurizer, "check_kind", None)
    if check_kind is not None:
        check_kind(config)
    return featurizer


def load_tokenizer(
    directory: str | Path, config: dict[str, Any], *, tokenizer_sha256: str | None = None
) -> Featurizer:
    """The featurizer of a model directory, given the ``tokenizer`` section of its config.
    ``tokenizer_sha256``: the sha256 of its ``tokenizer.json`` when the caller has it (else
    computed here for a word kind, to find a stored vocabulary index made from that file)."""
    return _checked(_load_tokenizer(directory, config, tokenizer_sha256), config)


def _load_tokenizer(
    directory: str | Path, config: dict[str, Any], tokenizer_sha256: str | None
) -> Featurizer:
    kind, unknown = _kind(config), config.get("unknown", "vector")
    if kind == "char_ngrams":
        return CharNgramTokenizer.load(directory, config)
    if kind == "tokenizer":
        return PretrainedTokenizer.load(directory, unknown=unknown)
    index = stored_index(directory, tokenizer_sha256)
    words = WordBigramTokenizer if kind == "word_bigrams" else WordTokenizer
    if index is not None:
        return words.from_index(index, directory, unknown=unknown)
    return words.load(directory, unknown=unknown)


def tokenizer_from_string(text: str, config: dict[str, Any]) -> Featurizer:
    """Rebuild a featurizer from a serialised ``tokenizers`` pipeline (as checkpoints store it)."""
    return _checked(_tokenizer_from_string(text, config), config)


def _tokenizer_from_string(text: str, config: dict[str, Any]) -> Featurizer:
    tokenizer = Tokenizer.from_str(text)
    if _kind(config) == "char_ngrams":
        return CharNgramTokenizer.from_tokenizer(tokenizer, config)
    if _kind(config) == "tokenizer":
        return PretrainedTokenizer(tokenizer, unknown=config.get("unknown", "vector"))
    if _kind(config) == "word_bigrams":
        return WordBigramTokenizer(tokenizer, unknown=config.get("unknown", "vector"))
    return WordTokenizer(tokenizer, unknown=config.get("unknown", "vector"))
