"""Word vectors in GloVe / word2vec text format: with or without a ``count dim`` header, gzip or not."""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from parasent.errors import DataFormatError, DataNotFoundError
from parasent.support.lines import LineReader, ReadReport

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


def resolve_vectors_path(vectors: str, data_dir: Path) -> Path:
    """A vectors (or frequency-list) file named as given, else under the data directory."""
    path = Path(vectors).expanduser()
    if path.is_file():
        return path
    if (Path(data_dir) / vectors).is_file():
        return Path(data_dir) / vectors
    raise DataNotFoundError(
        f"initial vectors {vectors!r}: not a file, nor under the data directory {data_dir}"
    )


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
    kept: dict[str, np.ndarray] = {}
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
        parsed = _vector_line(reader, number, fields, dim)
        if parsed is None:
            continue
        word, vector = parsed
        vector_lines += 1
        kept.setdefault(word.lower() if lowercase else word, vector)  # the first occurrence wins
        if max_words is not None and len(kept) >= max_words:
            break
    if dim is None:
        raise DataFormatError(path, max(last, 1), "no word vectors found")
    if announced is not None and max_words is None and vector_lines != announced:
        # Real releases get this count wrong (the shared GloVe file announces one vector too few);
        # the vectors themselves are fine, so this is a note, not an error.
        reader.report.notes.append(f"{path}: header announced {announced} vectors, found {vector_lines}")
    matrix = np.stack(list(kept.values())) if kept else np.zeros((0, dim), dtype=np.float32)
    return WordVectors(list(kept), matrix.astype(np.float32, copy=False))


def _vector_line(
    reader: LineReader, number: int, fields: list[str], dim: int
) -> tuple[str, np.ndarray] | None:
    """``word v1 .. v_dim`` (the word may contain spaces), or None after reporting why not."""
    if len(fields) < dim + 1:
        reader.fail(number, f"expected a word and {dim} numbers, found {len(fields)} field(s)")
        return None
    word = " ".join(fields[: len(fields) - dim])
    try:
        with np.errstate(over="ignore"):  # 1e308 becomes inf in float32: refused just below
            vector = np.asarray(fields[len(fields) - dim :], dtype=np.float32)
    except ValueError:
        reader.fail(number, f"vector of {word!r} has a field that is not a number")
        return None
    if not np.all(np.isfinite(vector)):
        reader.fail(number, f"vector of {word!r} has a non-finite value")
        return None
    return word, vector


def format_word_vectors(vectors: WordVectors, *, header: bool = True) -> Iterator[str]:
    """The lines of word2vec text format (``count dim`` first when ``header``)."""
    if header:
        yield f"{len(vectors.words)} {vectors.dim}\n"
    for word, row in zip(vectors.words, vectors.matrix, strict=True):
        yield word + " " + " ".join(f"{x:.6g}" for x in row) + "\n"


def write_word_vectors(
    path: str | Path, vectors: WordVectors, *, header: bool = True, overwrite: bool = True
) -> None:
    """Write word2vec text format (gzip when the name ends in ``.gz``), whole or not at all
    (:func:`~parasent.support.staging.staged_file`; without ``overwrite`` a file another process
    wrote there meanwhile is kept, and this write fails)."""
    from parasent.support.staging import staged_file

    path = Path(path)
    with staged_file(path, overwrite=overwrite) as tmp, open(tmp, "wb") as raw:
        # a gzip header names the final file (not the temporary one) and no time: the same bytes
        # for the same vectors
        stream = gzip.GzipFile(path.name, "wb", fileobj=raw, mtime=0) if path.suffix == ".gz" else raw
        with io.TextIOWrapper(stream, encoding="utf-8") as handle:
            handle.writelines(format_word_vectors(vectors, header=header))
