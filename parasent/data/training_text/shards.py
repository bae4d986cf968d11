"""Tokenized paraphrase pairs on disk: memory-mapped shards and a JSON manifest.

A prepared directory (written by ``parasent prepare``) holds ``tokenizer.json``,
``manifest.json`` and, per shard ``k``, three ``.npy`` arrays:

- ``shard-k.ids.npy``: int32 token ids of every sentence of the shard, flat;
- ``shard-k.offsets.npy``: int64, ``2n + 1`` offsets; pair ``i`` is sentence ``2i`` (left)
  and ``2i + 1`` (right), sentence ``j`` is ``ids[offsets[j]:offsets[j + 1]]``;
- ``shard-k.sentence_ids.npy``: int64, ``2n`` 64-bit hashes of the exact sentence texts,
  so that a sentence repeated anywhere in the corpus is recognised (never its own negative)
  without a corpus-wide dictionary of strings.

``.npy`` rather than safetensors because ``numpy.load(mmap_mode="r")`` maps it: a reader
touches only the pages of the rows it gathers, and closing a shard gives its pages back, so
memory follows the shard size, not the corpus size.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from parasent.errors import DataFormatError, DataNotFoundError
from parasent.support.regular_files import read_regular_json
from parasent.text.tokenized import Tokenized

MANIFEST = "manifest.json"
TOKENIZER = "tokenizer.json"
TOKEN_COUNTS = "token_counts.npy"
SHARDS_FORMAT = 1
ARRAYS = ("ids", "offsets", "sentence_ids")
ARRAY_DTYPES = {"ids": np.int32, "offsets": np.int64, "sentence_ids": np.int64}  # as write_shard saves them


def text_hash(text: str) -> int:
    """A stable signed 64-bit hash of ``text`` (blake2b), used as a sentence id."""
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little", signed=True)


def owned_by_shards(entry: str) -> bool:
    """Whether a directory entry is one a prepared directory holds (what it may replace)."""
    return entry in (MANIFEST, TOKENIZER, TOKEN_COUNTS) or entry.startswith("shard-")


def check_shard_array(path: Path, array: str, shard: dict[str, Any]) -> None:
    """A shard file's ``.npy`` header and size against what its manifest entry says it holds
    (read before training, so that a truncated or overwritten file is named at the start, not
    as a bare numpy error hundreds of steps in)."""
    expected = {"ids": shard["tokens"], "offsets": 2 * shard["pairs"] + 1, "sentence_ids": 2 * shard["pairs"]}
    dtype = np.dtype(ARRAY_DTYPES[array])
    try:
        with open(path, "rb") as handle:
            version = np.lib.format.read_magic(handle)
            one = version == (1, 0)
            header = np.lib.format.read_array_header_1_0 if one else np.lib.format.read_array_header_2_0
            shape, fortran, held = header(handle)
            start = handle.tell()
        size = path.stat().st_size
    except (ValueError, OSError) as exc:
        raise DataFormatError(path, 1, f"not a .npy array ({exc}): a damaged shard") from None
    if (
        held != dtype
        or fortran
        or shape != (expected[array],)
        or size != start + expected[array] * dtype.itemsize
    ):
        raise DataFormatError(
            path, 1, f"not the {expected[array]} {dtype} values manifest.json lists for it (a damaged shard)"
        )


def shard_name(index: int) -> str:
    return f"shard-{index:05d}"


def write_shard(directory: Path, index: int, sentences: Tokenized, sentence_ids: np.ndarray) -> dict:
    """Write one shard (sentences interleaved left, right) and return its manifest entry."""
    if len(sentences) % 2 or len(sentence_ids) != len(sentences):
        raise ValueError("a shard holds pairs: an even number of sentences, one id each")
    name = shard_name(index)
    np.save(directory / f"{name}.ids.npy", sentences.ids.astype(np.int32, copy=False))
    np.save(directory / f"{name}.offsets.npy", sentences.offsets.astype(np.int64, copy=False))
    np.save(directory / f"{name}.sentence_ids.npy", sentence_ids.astype(np.int64, copy=False))
    return {"name": name, "pairs": len(sentences) // 2, "tokens": int(len(sentences.ids))}


@dataclass
class Shard:
    """One shard, memory-mapped: ``take`` gathers pairs without reading the rest."""

    sentences: Tokenized
    sentence_ids: np.ndarray

    def take(self, rows: np.ndarray) -> tuple[Tokenized, Tokenized, np.ndarray, np.ndarray]:
        """Left and right sentences of pairs ``rows``, and their sentence ids."""
        left, right = 2 * rows, 2 * rows + 1
        return (
            self.sentences.take(left),
            self.sentences.take(right),
            np.asarray(self.sentence_ids[left]),
            np.asarray(self.sentence_ids[right]),
        )


def prepared_guard(directory: str | Path) -> tuple[str | None, list[str]]:
    """The leakage guard a prepared set was filtered by (``parasent prepare --leakage-guard``) and
    the domain test splits its pairs were filtered of; ``(None, [])`` for a set that does not say (prepared by an
    older parasent, or by ``prepare_pairs`` without ``guard``) or cannot be read (opening it says why)."""
    try:
        manifest = read_regular_json(Path(directory) / MANIFEST)
    except (OSError, ValueError, DataFormatError, DataNotFoundError):
        return None, []
    guard = manifest.get("leakage_guard") if isinstance(manifest, dict) else None
    if not isinstance(guard, str):
        return None, []
    return guard, [str(name) for name in manifest.get("domain_tests") or []]


@dataclass
class PreparedCorpus:
    """The manifest of a prepared directory; shards are opened (mapped) on demand."""

    directory: Path
    manifest: dict[str, Any]
    shard_pairs: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.shard_pairs = np.array([s["pairs"] for s in self.manifest["shards"]], dtype=np.int64)

    @classmethod
    def open(cls, directory: str | Path) -> PreparedCorpus:
        directory = Path(directory)
        path = directory / MANIFEST
        if not path.is_file():
            raise DataNotFoundError(f"{path}: missing (prepare the directory with `parasent prepare`)")
        try:
            manifest = read_regular_json(path)
        except json.JSONDecodeError as exc:
            raise DataFormatError(path, exc.lineno, f"not valid JSON ({exc.msg})") from exc
        if manifest.get("format") != SHARDS_FORMAT:
            raise DataFormatError(path, 1, f"prepared format {manifest.get('format')} is not {SHARDS_FORMAT}")
        for shard in manifest["shards"]:
            for array in ARRAYS:
                if not (directory / f"{shard['name']}.{array}.npy").is_file():
                    raise DataNotFoundError(f"{directory / shard['name']}.{array}.npy: missing shard file")
                check_shard_array(directory / f"{shard['name']}.{array}.npy", array, shard)
        return cls(directory, manifest)

    @property
    def num_pairs(self) -> int:
        return int(self.shard_pairs.sum())

    @property
    def num_shards(self) -> int:
        return len(self.shard_pairs)

    def shard(self, index: int) -> Shard:
        """Shard ``index`` as memory maps (pages are read when rows are gathered)."""
        name = self.manifest["shards"][index]["name"]
        arrays = [np.load(self.directory / f"{name}.{a}.npy", mmap_mode="r") for a in ARRAYS]
        offsets = np.asarray(arrays[1])
        if offsets[0] != 0 or offsets[-1] != len(arrays[0]) or np.any(np.diff(offsets) < 0):
            path = self.directory / f"{name}.offsets.npy"
            raise DataFormatError(path, 1, "offsets that do not cut its ids into sentences (a damaged shard)")
        return Shard(Tokenized(arrays[0], arrays[1]), arrays[2])

    def summary(self) -> str:
        """One line on the directory for the training log."""
        manifest = self.manifest
        leaked = sum(manifest["filter"]["leaked"].values())
        return (
            f"prepared {self.directory}: {manifest['pairs']} pairs in {len(manifest['shards'])} shard(s), "
            f"{manifest['tokens']} tokens; {leaked} leaked and {manifest['filter']['duplicates']} duplicate "
            "pair(s) dropped at prepare"
        )

    def token_counts(self) -> np.ndarray:
        """How often each vocabulary id occurs in the prepared sentences."""
        return np.load(self.directory / TOKEN_COUNTS)

    def fingerprint(self) -> str:
        """What a resumed run must see unchanged: the manifest (counts, shards, tokenizer hash)."""
        blob = json.dumps(self.manifest, sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


def tokenizer_hash(serialized: str) -> str:
    """sha256 of the text of a ``tokenizer.json`` (what the manifest records)."""
    return hashlib.sha256(serialized.encode("utf-8")).hexdigest()


def write_manifest(directory: Path, manifest: dict[str, Any]) -> None:
    (directory / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def sentence_hashes(texts: Sequence[str]) -> np.ndarray:
    return np.fromiter(map(text_hash, texts), dtype=np.int64, count=len(texts))
