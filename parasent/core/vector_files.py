"""Sentence vectors written to a file while they are encoded: ``.npy``, JSONL or text rows.

Lines are encoded one chunk at a time and each chunk is written before the next is read, so a
million sentences take the memory of one chunk. A file is written beside its path and renamed
over it at the end (:func:`parasent.support.staging.atomic_file`): an interrupted run leaves
the previous file whole. The ``.npy`` header's room is reserved first (zeros: no ``.npy`` reader
takes the file of a killed run for a result) and the header is written at the end, with the row
count: one pass over the input (stdin included).
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any, Protocol

import numpy as np

NPY_HEADER_BYTES = 128
#: output extension -> format
FORMATS = {".npy": "npy", ".jsonl": "jsonl", ".txt": "txt", ".tsv": "tsv"}
#: what each format holds, for help texts (the one list of them)
FORMAT_NOTES = {
    "npy": ".npy",
    "jsonl": ".jsonl ({text, embedding} per line)",
    "txt": ".txt (a vector per line, space-separated)",
    "tsv": ".tsv (tab-separated)",
}


def formats_named() -> str:
    """``.npy, .jsonl (...), .txt (...) or .tsv (...)``: the formats, in one phrase."""
    notes = list(FORMAT_NOTES.values())
    return ", ".join(notes[:-1]) + " or " + notes[-1]


TEXT_SEPARATORS = {"txt": " ", "tsv": "\t"}


class Progress(Protocol):
    """What counts the sentences written (a tqdm bar, or nothing)."""

    def update(self, n: int) -> Any: ...


class _Silent:
    def update(self, n: int) -> None:
        pass


def _chunks(lines: Iterator[str], size: int) -> Iterator[list[str]]:
    """Lists of at most ``size`` lines, read lazily."""
    while True:
        chunk = list(itertools.islice(lines, size))
        if not chunk:
            return
        yield chunk


def npy_header(rows: int, dim: int) -> bytes:
    """A version 1.0 ``.npy`` header of exactly :data:`NPY_HEADER_BYTES` bytes for float32 rows."""
    text = f"{{'descr': '<f4', 'fortran_order': False, 'shape': ({rows}, {dim}), }}"
    body = text.ljust(NPY_HEADER_BYTES - 10 - 1) + "\n"
    return b"\x93NUMPY\x01\x00" + len(body).to_bytes(2, "little") + body.encode("latin-1")


def _write_npy(out: IO[bytes], chunks: Iterable, dim: int, progress: Progress) -> int:
    out.write(bytes(NPY_HEADER_BYTES))  # not a header until the last write
    count = 0
    for chunk, vectors in chunks:
        out.write(np.ascontiguousarray(vectors, dtype="<f4").tobytes())
        count += len(chunk)
        progress.update(len(chunk))
    out.seek(0)
    out.write(npy_header(count, dim))
    return count


def _write_jsonl(out: IO[str], chunks: Iterable, progress: Progress) -> int:
    count = 0
    for chunk, vectors in chunks:
        for text, vector in zip(chunk, vectors, strict=True):
            out.write(json.dumps({"text": text, "embedding": [round(float(x), 6) for x in vector]}) + "\n")
        count += len(chunk)
        progress.update(len(chunk))
    return count


def _write_text_rows(out: IO[str], chunks: Iterable, separator: str, progress: Progress) -> int:
    count = 0
    for chunk, vectors in chunks:
        np.savetxt(out, np.asarray(vectors, dtype=np.float32), fmt="%.7g", delimiter=separator)
        count += len(chunk)
        progress.update(len(chunk))
    return count


class ZeroRowTally:
    """A ``watch`` for :func:`write_vectors`: the blank lines (a row each, so that row i is line
    i) and the rows of zeros among the other lines, lines of no unit the model knows (emoji only,
    a script it never saw), the first of those with its line number, so that none passes
    unsaid. ``first_line`` numbers the first line watched: a shard's place in its file
    (``encode --workers``)."""

    def __init__(self, first_line: int = 1) -> None:
        self.first_line, self.seen, self.blank, self.unknown = first_line, 0, 0, 0
        self.blank_zero = True  # every blank line's row zero (an averaging model; a DAN's is its bias)
        self.first_unknown: tuple[int, str] | None = None

    def __call__(self, texts: list[str], vectors: np.ndarray) -> None:
        zero = ~np.any(vectors, axis=1)
        blank = np.fromiter((not text.strip() for text in texts), dtype=bool, count=len(texts))
        self.blank += int(blank.sum())
        self.blank_zero = self.blank_zero and bool(zero[blank].all())
        unknown = np.flatnonzero(zero & ~blank)
        self.unknown += len(unknown)
        if self.first_unknown is None and len(unknown):
            row = int(unknown[0])
            self.first_unknown = (self.first_line + self.seen + row, texts[row])
        self.seen += len(texts)

    def add(self, later: ZeroRowTally) -> None:
        """Counts of the lines that follow these (the next shard's) added to these."""
        self.seen, self.blank, self.unknown = (
            self.seen + later.seen,
            self.blank + later.blank,
            self.unknown + later.unknown,
        )
        self.blank_zero = self.blank_zero and later.blank_zero
        self.first_unknown = self.first_unknown or later.first_unknown

    def notes(self) -> list[str]:
        """What a user is told of these rows, one line each (none when there are none)."""
        what = "zero vectors" if self.blank_zero else "the empty sentence's vector"
        notes = [f"{self.blank} blank line(s) encoded as {what} (one row per line)"] if self.blank else []
        if self.first_unknown is not None:
            number, text = self.first_unknown
            notes.append(
                f"{self.unknown} line(s) with no unit the model knows encoded as zero vectors "
                f"(the first, line {number}: {text.strip()[:40]!r})"
            )
        return notes


def _watched(
    watch: Callable[[list[str], np.ndarray], None] | None, texts: list[str], vectors: np.ndarray
) -> tuple[list[str], np.ndarray]:
    if watch is not None:
        watch(texts, vectors)
    return texts, vectors


def write_vectors(
    model: Any,
    lines: Iterator[str],
    output: str,
    fmt: str,
    *,
    batch_size: int,
    normalize: bool = False,
    progress: Progress | None = None,
    overwrite: bool = True,
    watch: Callable[[list[str], np.ndarray], None] | None = None,
) -> int:
    """Encode ``lines`` with ``model`` ``batch_size`` at a time into ``output`` (a path, written
    beside it and renamed at the end, or '-': stdout) in ``fmt`` (a value of :data:`FORMATS`);
    ``progress.update(n)`` counts sentences; ``watch(texts, vectors)`` sees every chunk. Without
    ``overwrite`` the file is claimed at the end: one that another process wrote there meanwhile
    is kept and this write fails (:class:`~parasent.errors.OutputExistsError`). Returns the count."""
    from parasent.support.staging import atomic_file

    progress = progress if progress is not None else _Silent()
    chunks = (
        _watched(watch, chunk, model.encode(chunk, batch_size=len(chunk), normalize_embeddings=normalize))
        for chunk in _chunks(lines, batch_size)
    )
    if fmt == "npy":
        with atomic_file(Path(output), "wb", overwrite=overwrite) as out:
            return _write_npy(out, chunks, model.dim, progress)

    def write(out: IO[str]) -> int:
        if fmt in TEXT_SEPARATORS:
            return _write_text_rows(out, chunks, TEXT_SEPARATORS[fmt], progress)
        return _write_jsonl(out, chunks, progress)

    if output == "-":
        return write(sys.stdout)
    with atomic_file(Path(output), "w", overwrite=overwrite, encoding="utf-8") as out:
        return write(out)
