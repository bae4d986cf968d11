"""``parasent prepare``: pair files tokenized once, streaming, into memory-mapped shards.

Two passes over the input, each holding one chunk of pairs at a time:

1. the no-leakage rule of the standard protocol and the filters of the in-memory path
   (empty sides, scored pairs below ``min_score``, duplicate pairs), and the word counts
   of the kept pairs (for the vocabulary). What is kept is one bit per pair read;
   duplicates are found with sorted arrays of 64-bit pair hashes (8 bytes per kept pair,
   the only state that grows with the corpus; :class:`HashSet`);
2. tokenization of the kept pairs, written shard by shard (:mod:`parasent.data.training_text.shards`).

The vocabulary is the in-memory path's: the initial vectors' words, then training words
with ``count >= min_count`` (:func:`~parasent.text.vocab.build_vocabulary`).
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from parasent.data.training_text.leakage import leakage_key
from parasent.data.training_text.pools import PoolReport, TrainingPair, read_pair_file
from parasent.data.training_text.shards import (
    SHARDS_FORMAT,
    TOKEN_COUNTS,
    TOKENIZER,
    owned_by_shards,
    sentence_hashes,
    tokenizer_hash,
    write_manifest,
    write_shard,
)
from parasent.support.lines import ReadReport
from parasent.support.staging import check_replaceable, staged_directory
from parasent.text.tokenized import Tokenized
from parasent.text.tokenizer import WordTokenizer, pre_tokenize
from parasent.text.vocab import build_vocabulary

CHUNK_PAIRS = 50_000
DEFAULT_SHARD_PAIRS = 1_000_000
_ASCII_WORDS = re.compile(r"\w+|[^\w\s]", re.ASCII)


def pair_hash(pair: TrainingPair) -> int:
    """64-bit hash of the unordered pair of lowercased, stripped sides (the duplicate rule)."""
    a, b = sorted((pair.s1.strip().lower(), pair.s2.strip().lower()))
    digest = hashlib.blake2b(f"{a}\x00{b}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def count_words_fast(texts: Sequence[str], counts: Counter) -> None:
    """Add the words of ``texts`` (the model's pre-tokenization) to ``counts``; ASCII texts in
    one regex pass (the tokenizer's own fast path), others through the ``tokenizers`` pipeline."""
    ascii_texts = [t for t in texts if t.isascii()]
    counts.update(_ASCII_WORDS.findall("\n".join(ascii_texts).lower()))
    for text in texts:
        if not text.isascii():
            counts.update(pre_tokenize(text))


class HashSet:
    """A set of 64-bit hashes as sorted runs whose sizes at least halve from one to the next
    (a binary counter of runs): adding a chunk merges only runs of similar size, so adding N
    hashes costs O(N log N) in all, where re-sorting one array per chunk grows quadratically
    (it slowed a 10M-pair prepare to half speed); a lookup searches the O(log N) runs."""

    def __init__(self) -> None:
        self.runs: list[np.ndarray] = []

    def __len__(self) -> int:
        return sum(len(run) for run in self.runs)

    def contains(self, keys: np.ndarray) -> np.ndarray:
        """Whether each of ``keys`` is in the set."""
        found = np.zeros(len(keys), dtype=bool)
        for run in self.runs:
            position = np.minimum(np.searchsorted(run, keys), len(run) - 1)
            found |= run[position] == keys
        return found

    def add(self, keys: np.ndarray) -> None:
        """Add ``keys`` (distinct and not already in the set)."""
        if not len(keys):
            return
        self.runs.append(np.sort(keys.astype(np.uint64)))
        while len(self.runs) > 1 and len(self.runs[-2]) <= 2 * len(self.runs[-1]):
            last = self.runs.pop()
            self.runs[-1] = np.sort(np.concatenate([self.runs[-1], last]), kind="stable")


@dataclass
class FilterPass:
    """Pass 1: which pairs are kept (one bool array per chunk), the report, the word counts."""

    forbidden: set[str]
    min_score: float | None = None
    count: bool = True
    report: PoolReport = field(default_factory=PoolReport)
    keep: list[np.ndarray] = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)
    _seen: HashSet = field(default_factory=HashSet)

    def chunk(self, pairs: list[TrainingPair]) -> None:
        report = self.report
        candidates, hashes = [], []
        for i, pair in enumerate(pairs):
            report.read[pair.source] += 1
            report.kept[pair.source] += 0
            report.leaked[pair.source] += 0
            if not pair.s1.strip() or not pair.s2.strip():
                report.empty += 1
            elif self.min_score is not None and pair.score is not None and pair.score < self.min_score:
                report.below_score[pair.source] += 1
            elif leakage_key(pair.s1) in self.forbidden or leakage_key(pair.s2) in self.forbidden:
                report.leaked[pair.source] += 1
            else:
                candidates.append(i)
                hashes.append(pair_hash(pair))
        keys = np.array(hashes, dtype=np.uint64)
        _, first = np.unique(keys, return_index=True)
        fresh = np.zeros(len(keys), dtype=bool)
        fresh[first] = True
        fresh &= ~self._seen.contains(keys)
        self._seen.add(keys[fresh])
        keep = np.zeros(len(pairs), dtype=bool)
        keep[np.asarray(candidates, dtype=np.int64)[fresh]] = True
        report.duplicates += int(len(keys) - fresh.sum())
        for i in np.flatnonzero(keep):
            report.kept[pairs[i].source] += 1
        self.keep.append(np.packbits(keep))
        if self.count:
            count_words_fast(
                [s for i in np.flatnonzero(keep) for s in (pairs[i].s1, pairs[i].s2)], self.counts
            )


class ShardSink:
    """Pass 2: kept pairs, tokenized chunk by chunk, cut into shards of ``shard_pairs``."""

    def __init__(self, directory: Path, tokenizer, shard_pairs: int) -> None:
        self.directory = directory
        self.tokenizer = tokenizer
        self.shard_pairs = shard_pairs
        self.shards: list[dict] = []
        self.token_counts = np.zeros(tokenizer.vocab_size, dtype=np.int64)
        self._parts: list[tuple[Tokenized, np.ndarray]] = []
        self._pending = 0

    def add(self, pairs: list[TrainingPair]) -> None:
        texts = [s for pair in pairs for s in (pair.s1, pair.s2)]
        if not texts:
            return
        tokenized = self.tokenizer.encode_batch(texts)
        self.token_counts += np.bincount(tokenized.ids, minlength=len(self.token_counts))
        hashes = sentence_hashes(texts)
        start = 0
        while start < len(pairs):
            take = min(self.shard_pairs - self._pending, len(pairs) - start)
            rows = np.arange(2 * start, 2 * (start + take))
            self._parts.append((tokenized.take(rows), hashes[rows]))
            self._pending += take
            start += take
            if self._pending == self.shard_pairs:
                self.flush()

    def flush(self) -> None:
        if not self._pending:
            return
        sentences = Tokenized.concatenate([p[0] for p in self._parts])
        ids = np.concatenate([p[1] for p in self._parts])
        self.shards.append(write_shard(self.directory, len(self.shards), sentences, ids))
        self._parts, self._pending = [], 0


def _chunks(pairs: Iterable[TrainingPair], size: int) -> Iterator[list[TrainingPair]]:
    iterator = iter(pairs)
    while chunk := list(itertools.islice(iterator, size)):
        yield chunk


@dataclass
class PrepareResult:
    directory: Path
    manifest: dict


def prepare_pairs(
    inputs: Sequence[tuple[str | Path, str]],
    out_dir: str | Path,
    *,
    forbidden: set[str],
    vocabulary_words: Sequence[str] = (),
    tokenizer: WordTokenizer | None = None,
    min_count: int = 1,
    unknown: str = "vector",
    min_score: float | None = None,
    shard_pairs: int = DEFAULT_SHARD_PAIRS,
    lenient: bool = False,
    progress: Callable[[int], None] | None = None,
    overwrite: bool = False,
    guard: str | None = None,
    domain_tests: Sequence[str] = (),
) -> PrepareResult:
    """Filter, tokenize and shard the pairs of ``inputs`` (``(path, format)``) into ``out_dir``
    (an earlier prepared directory there is replaced; one holding other files only with
    ``overwrite``, refused before any pair is read).

    Without ``tokenizer``, the vocabulary is built from ``vocabulary_words`` (the initial
    vectors' words) and the kept pairs' words with ``count >= min_count``. ``progress`` is
    called with the number of pairs read in each chunk of each pass. The directory is
    written whole or not at all. ``guard`` and ``domain_tests``: the leakage guard's state that
    made ``forbidden`` and the domain test splits it filtered out, recorded in the manifest
    (``train --prepared`` takes the set under that guard only; the model records it); without
    ``guard`` the manifest does not say, and a run takes the set under any guard, keeping no
    domain test split out in its record.
    """
    if shard_pairs < 1:
        raise ValueError(f"shard_pairs must be >= 1, got {shard_pairs}")
    check_replaceable(Path(out_dir), model=False, overwrite=overwrite, owns=owned_by_shards)
    reports = [ReadReport() for _ in inputs]

    def stream() -> Iterator[TrainingPair]:
        for (path, fmt), report in zip(inputs, reports, strict=True):
            yield from read_pair_file(path, fmt, lenient=lenient, report=report)

    filtering = FilterPass(forbidden, min_score=min_score, count=tokenizer is None)
    for chunk in _chunks(stream(), CHUNK_PAIRS):
        filtering.chunk(chunk)
        if progress:
            progress(len(chunk))
    filtering.report.min_score = min_score
    filtering.report.guard, filtering.report.domain_tests = guard or "unrecorded", list(domain_tests)
    if not sum(filtering.report.kept.values()):
        from parasent.errors import DataNotFoundError

        named = ", ".join(str(path) for path, _ in inputs)
        raise DataNotFoundError(
            f"{named}: no pair to prepare (none read, or every one dropped as leaked, duplicate or empty)"
        )
    filtering.report.skipped = [r.summary() for r in reports if r.skipped]
    if tokenizer is None:
        words = build_vocabulary(vocabulary_words, filtering.counts, min_count=min_count)
        tokenizer = WordTokenizer.from_vocabulary(words, unknown=unknown)
    reports = [ReadReport() for _ in inputs]  # the second pass reads the same lines again
    with staged_directory(out_dir, overwrite=overwrite, owns=owned_by_shards) as staging:
        sink = ShardSink(staging, tokenizer, shard_pairs)
        for chunk, packed in zip(_chunks(stream(), CHUNK_PAIRS), filtering.keep, strict=True):
            keep = np.unpackbits(packed, count=len(chunk)).astype(bool)
            sink.add([pair for pair, kept in zip(chunk, keep, strict=True) if kept])
            if progress:
                progress(len(chunk))
        sink.flush()
        tokenizer.save(staging)
        np.save(staging / TOKEN_COUNTS, sink.token_counts)
        manifest = _manifest(staging, sink, tokenizer, inputs, filtering.report)
        if guard is not None:  # what a run checks its own guard against (shards.prepared_guard)
            manifest.update(leakage_guard=guard, domain_tests=list(domain_tests))
        write_manifest(staging, manifest)
    return PrepareResult(Path(out_dir), manifest)


def _manifest(
    staging: Path,
    sink: ShardSink,
    tokenizer: WordTokenizer,
    inputs: Sequence[tuple[str | Path, str]],
    report: PoolReport,
) -> dict[str, Any]:
    """What ``manifest.json`` says of the shards written to ``staging``."""
    return {
        "format": SHARDS_FORMAT,
        "pairs": sum(s["pairs"] for s in sink.shards),
        "sentences": 2 * sum(s["pairs"] for s in sink.shards),
        "tokens": sum(s["tokens"] for s in sink.shards),
        "shard_pairs": sink.shard_pairs,
        "shards": sink.shards,
        "tokenizer_sha256": tokenizer_hash((staging / TOKENIZER).read_text(encoding="utf-8")),
        "tokenizer_config": tokenizer.config(),
        "inputs": [[str(path), fmt] for path, fmt in inputs],
        "filter": report.to_dict(),
    }
