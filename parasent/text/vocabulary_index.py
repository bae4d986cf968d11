"""A word vocabulary stored for lookup: sorted hashes and ids, memory-mapped (``vocabulary.safetensors``).

Why: a word-and-bigram vocabulary of 300k tokens is a ``tokenizer.json`` that ``tokenizers``
parses whole (~0.6 s) before the first sentence, and the hashed lookup of the ASCII fast path
(:mod:`parasent.text.ascii_words`) and the bigram keys were then built from a Python dict of
it (~0.5 s more). Written beside it when a model is saved, this file holds what encoding
needs, in arrays that are mapped, not parsed: the words' 64-bit hashes (sorted) and ids, the
bigram keys (sorted) and ids, the trigram keys and ids (only where the vocabulary has
trigrams: the file then says format 2, which a parasent that knows no trigrams ignores and
reads ``tokenizer.json``, refusing it plainly), the subword pieces' tokens and ids. Loading reads its header;
the ``tokenizers`` pipeline is built only when something asks for it (saving, listing the
vocabulary, an export).

It is a cache of ``tokenizer.json``, never a second source of truth: it records the sha256 of
the ``tokenizer.json`` it was computed from and is used only when that file is the same, and a
missing, stale or malformed index is ignored (the vocabulary is then read from
``tokenizer.json``, as models saved before it existed are). It is written only for the word
pipeline exactly as parasent builds it (see :meth:`VocabularyIndex.build`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from parasent.errors import HashCollision, ParasentError
from parasent.support.mmap_weights import map_safetensors, read_header
from parasent.support.regular_files import exists, regular_size, sha256_of
from parasent.text.ascii_words import word_hashes
from parasent.text.word_pieces import is_piece_token

INDEX_FILE = "vocabulary.safetensors"
TOKENIZER_FILE = "tokenizer.json"  # tokenizer.TOKENIZER_FILE (that module imports this one)
INDEX_FORMAT = "1"
TRIGRAM_INDEX_FORMAT = "2"  # an index with trigram arrays (format 1 has none)
BIGRAM_JOINER = "\u2581"  # word_bigrams.JOINER (a lower layer cannot import it from there)
_SHIFT = 32  # a bigram's key: first word id << 32 | second word id, as in word_bigrams
_TRI_BITS = 21  # a trigram's key: a << 42 | b << 21 | c, as word_bigrams.TRIGRAM_BITS
_MAX_INDEX_BYTES = 1 << 31


@dataclass(frozen=True)
class VocabularyIndex:
    """The arrays of a stored vocabulary (see the module docstring)."""

    vocab_size: int
    word_hashes: np.ndarray  # uint64, sorted, unique: tokens that can be a word of the pipeline
    word_ids: np.ndarray  # int64, their ids
    bigram_keys: np.ndarray  # int64, sorted: first << 32 | second
    bigram_ids: np.ndarray  # int64, their ids
    piece_bytes: np.ndarray  # uint8: the "[p]" tokens' UTF-8 bytes, one after another
    piece_lengths: np.ndarray  # int64: each token's bytes
    piece_ids: np.ndarray  # int64, their ids
    last_token_is_bigram: bool
    tokenizer_sha256: str
    trigram_keys: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # int64, sorted
    trigram_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # int64, their ids

    @classmethod
    def build(cls, vocabulary: dict[str, int], tokenizer_sha256: str) -> VocabularyIndex:
        """The index of a word vocabulary (token -> id). Bigram and trigram tokens (``a▁b``,
        ``a▁b▁c``) and piece tokens (``[p]...``) are no word the pipeline yields (``▁`` and
        ``[`` are tokens of their own), so they are kept apart. Raises :class:`HashCollision`
        when two words share a hash (then no index is written)."""
        bigrams, trigrams, pieces, words = [], [], [], []
        for token, index in vocabulary.items():
            if is_piece_token(token):
                pieces.append((token, index))
            elif len(token) > 1 and token.count(BIGRAM_JOINER) == 2:
                trigrams.append((token, index))
            elif len(token) > 1 and BIGRAM_JOINER in token:
                bigrams.append((token, index))
            elif token:
                words.append((token, index))
        hashes = word_hashes([token for token, _ in words])
        order = np.argsort(hashes, kind="stable")
        hashes = hashes[order]
        if len(hashes) > 1 and bool((hashes[1:] == hashes[:-1]).any()):
            raise HashCollision("two vocabulary words share a 64-bit hash")
        word_ids = np.array([index for _, index in words], dtype=np.int64)[order]
        keys = np.empty(len(bigrams), dtype=np.int64)
        for n, (token, _) in enumerate(bigrams):
            first, _, second = token.partition(BIGRAM_JOINER)
            a, b = vocabulary.get(first), vocabulary.get(second)
            keys[n] = -1 if a is None or b is None or BIGRAM_JOINER in second else (a << _SHIFT) | b
        bigram_order = np.argsort(keys, kind="stable")
        trigram_keys, trigram_ids = _trigram_keys(trigrams, vocabulary)
        last = max(vocabulary.items(), key=lambda item: item[1])[0] if vocabulary else ""
        encoded = [token.encode("utf-8") for token, _ in pieces]
        return cls(
            vocab_size=len(vocabulary),
            word_hashes=hashes,
            word_ids=word_ids,
            bigram_keys=keys[bigram_order],
            bigram_ids=np.array([index for _, index in bigrams], dtype=np.int64)[bigram_order],
            piece_bytes=np.frombuffer(b"".join(encoded), dtype=np.uint8).copy(),
            piece_lengths=np.array([len(e) for e in encoded], dtype=np.int64),
            piece_ids=np.array([index for _, index in pieces], dtype=np.int64),
            last_token_is_bigram=len(last) > 1 and BIGRAM_JOINER in last,
            tokenizer_sha256=tokenizer_sha256,
            trigram_keys=trigram_keys,
            trigram_ids=trigram_ids,
        )

    @property
    def bigrams_valid(self) -> bool:
        """Whether every bigram's two words and every trigram's three are in the vocabulary (a
        key of -1 marks one that is not, or a vocabulary too large for trigram keys)."""
        return all(not len(keys) or int(keys[0]) >= 0 for keys in (self.bigram_keys, self.trigram_keys))

    def pieces(self) -> dict[str, int]:
        """The piece tokens and their ids (decoded when the first unknown word needs them)."""
        data = self.piece_bytes.tobytes()
        ends = np.cumsum(self.piece_lengths).tolist()
        tokens = [data[a:b].decode("utf-8") for a, b in zip([0, *ends[:-1]], ends, strict=True)]
        return dict(zip(tokens, self.piece_ids.tolist(), strict=True))

    def save(self, directory: str | Path) -> Path:
        from parasent.support.mmap_weights import save_sorted

        tensors = {
            "word_hashes": self.word_hashes,
            "word_ids": self.word_ids,
            "bigram_keys": self.bigram_keys,
            "bigram_ids": self.bigram_ids,
            "piece_bytes": self.piece_bytes,
            "piece_lengths": self.piece_lengths,
            "piece_ids": self.piece_ids,
        }
        if len(self.trigram_keys):  # an index without trigrams is the format-1 file it always was
            tensors.update(trigram_keys=self.trigram_keys, trigram_ids=self.trigram_ids)
        metadata = {
            "format": TRIGRAM_INDEX_FORMAT if len(self.trigram_keys) else INDEX_FORMAT,
            "vocab_size": str(self.vocab_size),
            "last_token_is_bigram": json.dumps(self.last_token_is_bigram),
            "tokenizer_sha256": self.tokenizer_sha256,
        }
        path = Path(directory) / INDEX_FILE
        save_sorted(tensors, path, metadata)  # the same bytes from every build of one vocabulary
        return path


def stored_index(directory: str | Path, tokenizer_sha256: str | None = None) -> VocabularyIndex | None:
    """The index of the ``tokenizer.json`` of ``directory`` (its sha256 computed unless given),
    or None (see :func:`read_index`)."""
    if not exists(Path(directory) / INDEX_FILE):
        return None
    if tokenizer_sha256 is None:
        try:
            tokenizer_sha256 = sha256_of(Path(directory) / TOKENIZER_FILE)
        except (OSError, ParasentError):
            return None
    return read_index(directory, tokenizer_sha256)


def read_index(directory: str | Path, tokenizer_sha256: str) -> VocabularyIndex | None:
    """The index beside ``tokenizer.json`` whose sha256 is ``tokenizer_sha256``; None when
    there is none, it was computed from another file, or it is not a well-formed index."""
    path = Path(directory) / INDEX_FILE
    try:
        if not exists(path) or regular_size(path) > _MAX_INDEX_BYTES:
            return None
        metadata = _metadata(path)
        if metadata.get("format") not in (INDEX_FORMAT, TRIGRAM_INDEX_FORMAT):
            return None
        if metadata.get("tokenizer_sha256") != tokenizer_sha256:
            return None
        tensors = map_safetensors(path)
        return _checked(tensors, metadata)
    except (OSError, ValueError, KeyError, TypeError, ParasentError, RecursionError):
        return None  # WeightsFormatError is a ValueError


def _metadata(path: Path) -> dict:
    """The ``__metadata__`` of a safetensors header (read before anything is mapped)."""
    header, _ = read_header(path, max_bytes=1 << 20)
    metadata = header.get("__metadata__")
    return metadata if isinstance(metadata, dict) else {}


def _trigram_keys(
    trigrams: list[tuple[str, int]], vocabulary: dict[str, int]
) -> tuple[np.ndarray, np.ndarray]:
    """The keys (sorted, -1 first for a trigram of unknown words or a vocabulary too large for
    its key) and ids of the trigram tokens."""
    keys = np.empty(len(trigrams), dtype=np.int64)
    fits = len(vocabulary) <= 1 << _TRI_BITS
    for n, (token, _) in enumerate(trigrams):
        ids = [vocabulary.get(word) for word in token.split(BIGRAM_JOINER)]
        if None in ids or not fits:
            keys[n] = -1
        else:
            keys[n] = (ids[0] << (2 * _TRI_BITS)) | (ids[1] << _TRI_BITS) | ids[2]  # type: ignore[operator]
    order = np.argsort(keys, kind="stable")
    return keys[order], np.array([index for _, index in trigrams], dtype=np.int64)[order]


def _trigram_tensors(tensors: dict[str, np.ndarray], metadata: dict) -> tuple[np.ndarray, np.ndarray] | None:
    """The trigram arrays of a format-2 index (none in format 1); None when they are malformed."""
    if metadata.get("format") != TRIGRAM_INDEX_FORMAT:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    keys, ids = tensors["trigram_keys"], tensors["trigram_ids"]
    if keys.dtype != np.int64 or ids.dtype != np.int64 or keys.ndim != 1 or keys.shape != ids.shape:
        return None
    if len(keys) > 1 and not bool((keys[1:] >= keys[:-1]).all()):
        return None
    return keys, ids


def _checked(tensors: dict[str, np.ndarray], metadata: dict) -> VocabularyIndex | None:
    """The index, if its arrays are what :meth:`VocabularyIndex.save` writes (else None)."""
    vocab_size = int(metadata["vocab_size"])
    trigrams = _trigram_tensors(tensors, metadata)
    if trigrams is None:
        return None
    hashes, word_ids = tensors["word_hashes"], tensors["word_ids"]
    keys, bigram_ids = tensors["bigram_keys"], tensors["bigram_ids"]
    blob, lengths, piece_ids = tensors["piece_bytes"], tensors["piece_lengths"], tensors["piece_ids"]
    shapes_ok = (
        hashes.dtype == np.uint64
        and all(a.dtype == np.int64 for a in (word_ids, keys, bigram_ids, lengths, piece_ids))
        and blob.dtype == np.uint8
        and hashes.shape == word_ids.shape
        and keys.shape == bigram_ids.shape
        and lengths.shape == piece_ids.shape
        and all(a.ndim == 1 for a in (hashes, keys, lengths, blob))
    )
    if not shapes_ok or int(lengths.sum()) != len(blob) or (len(lengths) and int(lengths.min()) < 0):
        return None
    if len(hashes) > 1 and not bool((hashes[1:] > hashes[:-1]).all()):
        return None  # not sorted and unique: a search would miss words
    if len(keys) > 1 and not bool((keys[1:] >= keys[:-1]).all()):
        return None
    for ids in (word_ids, bigram_ids, piece_ids, trigrams[1]):
        if len(ids) and (int(ids.min()) < 0 or int(ids.max()) >= vocab_size):
            return None
    return VocabularyIndex(
        vocab_size=vocab_size,
        word_hashes=hashes,
        word_ids=word_ids,
        bigram_keys=keys,
        bigram_ids=bigram_ids,
        piece_bytes=blob,
        piece_lengths=lengths,
        piece_ids=piece_ids,
        last_token_is_bigram=json.loads(metadata["last_token_is_bigram"]) is True,
        tokenizer_sha256=metadata["tokenizer_sha256"],
        trigram_keys=trigrams[0],
        trigram_ids=trigrams[1],
    )
