"""Word vectors in GloVe / word2vec text format: with or without a ``count dim`` header, gzip or not."""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from parasent.data.lines import LineReader, ReadReport
from parasent.errors import DataFormatError

# A declared dimension beyond this is a corrupt header, not a model (the largest releases have 300-1024).
MAX_DIM = 100_000


def _is_count(text: str) -> bool:
    """An ASCII decimal integer (``str.isdigit`` accepts '³', which ``int`` refuses)."""
    return text.isascii() and text.isdecimal()


@dataclass
class WordVectors:
    """A vocabulary and its ``(len(words), dim)`` float32 matrix, row i for ``words[i]``."""

    words: list[str]
    matrix: np.ndarray

    @property
    def dim(self) -> int:
        return int(self.matrix.shape[1])

    def __len__(self) -> int:
        return len(self.words)


def read_word_vectors(
    path: str | Path,
    *,
    lowercase: bool = True,
    max_words: int | None = None,
    lenient: bool = False,
    report: ReadReport | None = None,
) -> WordVectors:
    """Read a text vectors file.

    The first line is a header when it is exactly two integers. Without a header the
    dimension is that of the first vector line. A word may itself contain spaces (as in
    GloVe 840B): the last ``dim`` fields are the vector and the rest is the word. With
    ``lowercase`` (the papers' preprocessing lowercases text) words are lowercased and the
    first occurrence of each lowercased word is kept: files list frequent forms first.
    """
    reader = LineReader(path, lenient=lenient, report=report)
    words: list[str] = []
    rows: list[np.ndarray] = []
    seen: set[str] = set()
    dim: int | None = None
    announced: int | None = None
    last = 0
    vector_lines = 0
    for number, text in reader:
        last = number
        fields = text.rstrip().split(" ")
        if number == 1 and len(fields) == 2 and _is_count(fields[0]) and _is_count(fields[1]):
            announced, dim = int(fields[0]), int(fields[1])
            if not 0 < dim <= MAX_DIM:
                raise DataFormatError(path, 1, f"header dimension {fields[1]} is not in 1..{MAX_DIM}")
            continue
        if not text.strip():
            continue
        if dim is None:
            dim = len(fields) - 1
            if not 0 < dim <= MAX_DIM:
                reader.fail(number, "a vector line needs a word and at least one number")
                dim = None
                continue
        if len(fields) < dim + 1:
            reader.fail(number, f"expected a word and {dim} numbers, found {len(fields)} field(s)")
            continue
        word = " ".join(fields[: len(fields) - dim])
        try:
            with np.errstate(over="ignore"):  # 1e308 becomes inf in float32: refused just below
                vector = np.asarray(fields[len(fields) - dim :], dtype=np.float32)
        except ValueError:
            reader.fail(number, f"vector of {word!r} has a field that is not a number")
            continue
        if not np.all(np.isfinite(vector)):
            reader.fail(number, f"vector of {word!r} has a non-finite value")
            continue
        vector_lines += 1
        if lowercase:
            word = word.lower()
        if word in seen:
            continue
        seen.add(word)
        words.append(word)
        rows.append(vector)
        if max_words is not None and len(words) >= max_words:
            break
    if dim is None:
        raise DataFormatError(path, max(last, 1), "no word vectors found")
    if announced is not None and max_words is None and vector_lines != announced:
        # Real releases get this count wrong (the shared GloVe file announces one vector too few);
        # the vectors themselves are fine, so this is a note, not an error.
        reader.report.notes.append(f"{path}: header announced {announced} vectors, found {vector_lines}")
    matrix = np.stack(rows) if rows else np.zeros((0, dim), dtype=np.float32)
    return WordVectors(words, matrix.astype(np.float32, copy=False))


def write_word_vectors(path: str | Path, vectors: WordVectors, *, header: bool = True) -> None:
    """Write word2vec text format (gzip when the name ends in ``.gz``), atomically."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(tmp, "wt", encoding="utf-8") as handle:
        if header:
            handle.write(f"{len(vectors.words)} {vectors.dim}\n")
        for word, row in zip(vectors.words, vectors.matrix, strict=True):
            handle.write(word + " " + " ".join(f"{x:.6g}" for x in row) + "\n")
    tmp.replace(path)
