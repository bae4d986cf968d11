"""Any ``tokenizers`` pipeline as a model tokenizer (e.g. the WordPiece of a sentence-transformers
static-embedding model); :mod:`parasent.text.featurizers` loads it by its kind, ``tokenizer``.

Parasent's own :class:`WordTokenizer` fixes ``[PAD]`` = 0 and ``[UNK]`` = 1; a pretrained
tokenizer keeps its ids as they are. Special tokens are never added (an averaging model
averages the text's own tokens, as sentence-transformers' ``StaticEmbedding`` does).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from parasent.errors import ModelFormatError
from parasent.support.path_names import native_path
from parasent.support.regular_files import exists, regular_size
from parasent.text.tokenized import Tokenized
from parasent.text.tokenizer import TOKENIZER_FILE, WORD_PATTERN, WordTokenizer

# The patterns of the pretrained pipelines parasent imports and distils from: BERT's WordPiece
# (and model2vec's and sentence-transformers' static models built on it) has none; these are
# parasent's own word split (its exports, read back), XLM-R / T5's whitespace collapsing and the
# split patterns of Llama 3 and Qwen 2 (GPT-2 and RoBERTa split with ByteLevel's built-in
# pattern, which is no pattern from the file).
PRETRAINED_PATTERNS = frozenset(
    {
        WORD_PATTERN,
        " {2,}",
        r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
        r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    }
)


class PretrainedTokenizer(WordTokenizer):
    """A tokenizer used as shipped: its own normalisation, pre-tokenization, model and ids."""

    kind = "tokenizer"
    PATTERNS = PRETRAINED_PATTERNS
    CONFIG_KEYS = frozenset({"kind", "unknown", "vocab_size"})

    def __init__(self, tokenizer: Tokenizer, *, unknown: str = "vector") -> None:
        if unknown not in ("vector", "skip"):
            raise ValueError(f"unknown must be 'vector' or 'skip', got {unknown!r}")
        tokenizer.no_padding()
        tokenizer.no_truncation()
        self._tokenizer = tokenizer
        self._check_patterns()
        self.unknown = unknown
        self._encode = getattr(tokenizer, "encode_batch_fast", tokenizer.encode_batch)
        self.unk_id = self._find_unk_id(tokenizer)

    @staticmethod
    def _find_unk_id(tokenizer: Tokenizer) -> int | None:
        model_unk = getattr(tokenizer.model, "unk_token", None)
        for candidate in ([model_unk] if model_unk else []) + ["[UNK]", "<unk>", "<UNK>"]:
            token_id = tokenizer.token_to_id(candidate)
            if token_id is not None:
                return token_id
        return None

    @classmethod
    def load(cls, directory: str | Path, *, unknown: str = "vector") -> PretrainedTokenizer:
        path = Path(directory) / TOKENIZER_FILE
        if not exists(path):
            raise ModelFormatError(f"{path}: missing (a model directory needs {TOKENIZER_FILE})")
        regular_size(path)  # a FIFO or a device is never opened
        try:
            tokenizer = Tokenizer.from_file(native_path(path))
        except Exception as exc:  # the tokenizers library raises plain Exceptions
            raise ModelFormatError(f"{path}: not a valid tokenizer file ({exc})") from exc
        try:
            return cls(tokenizer, unknown=unknown)
        except ModelFormatError as exc:  # name the file
            text = str(exc)
            raise ModelFormatError(
                f"{path.parent}/{text}" if text.startswith(TOKENIZER_FILE) else f"{path}: {text}"
            ) from None

    def _shape_problem(self, config: dict) -> str | None:
        return "it holds word bigrams" if self._last_token_is_bigram() else None

    def encode_batch(self, texts: Sequence[str]) -> Tokenized:
        """Ids of every text; ``unknown="skip"`` drops the unknown token (as model2vec does)."""
        tokenized = self._encode_all(texts)
        if self.unknown == "skip" and self.unk_id is not None:
            return tokenized.without(self.unk_id)
        return tokenized

    def oov_counts(self, texts: Iterable[str]) -> tuple[int, int]:
        tokenized = self._encode_all(list(texts))
        unknown = 0 if self.unk_id is None else int(np.count_nonzero(tokenized.ids == self.unk_id))
        return unknown, len(tokenized.ids)
