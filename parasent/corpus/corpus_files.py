"""The files ``parasent mine`` and ``parasent dedup`` write: mined pairs, kept lines, and
removed lines with the kept text that explains each.

Tables are tab-separated with a header row (``.tsv``, and ``-``: stdout) or JSON Lines
(``.jsonl``: one object a row, texts as they are). In a TSV field a backslash, tab, newline,
carriage return or NUL is written ``\\\\``, ``\\t``, ``\\n``, ``\\r``, ``\\0`` (a JSONL text may hold any of
them), so a row is always one line of five fields. Line numbers are those of the input file
(1 is its first line). Every file is written beside its name and renamed when whole
(:func:`parasent.support.staging.atomic_file`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING

import numpy as np

from parasent.corpus.dedup import KEPT, NEAR
from parasent.errors import OptionError

if TYPE_CHECKING:
    from parasent.corpus.dedup import Deduplicated
    from parasent.corpus.mining import MinedPairs
    from parasent.support.spool import SpooledTexts

TABLE_FORMATS = {".tsv": "tsv", ".jsonl": "jsonl"}
_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\x00": "\\0"})


def table_format(path: str) -> str:
    """``tsv`` or ``jsonl``, by the file's extension (``-``, stdout: tsv)."""
    if path == "-":
        return "tsv"
    suffix = Path(path).suffix.lower()
    if suffix not in TABLE_FORMATS:
        raise OptionError(f"{path}: name a .tsv or a .jsonl file (or - for stdout, tab-separated)")
    return TABLE_FORMATS[suffix]


def escape(text: str) -> str:
    """A text as one TSV field (backslash escapes for backslash, tab, newline, carriage return)."""
    return text.translate(_ESCAPES)


@contextmanager
def _opened(path: str, overwrite: bool) -> Iterator[IO[str]]:
    """stdout for ``-``; else a file written beside ``path`` and renamed when whole, which
    without ``overwrite`` never replaces a file another writer put there meanwhile."""
    from parasent.support.staging import atomic_file

    if path == "-":
        yield sys.stdout
        sys.stdout.flush()
        return
    with atomic_file(Path(path), "w", overwrite=overwrite, encoding="utf-8", newline="\n") as handle:
        yield handle


# rows written at a time: their texts are read from the spool together, each escaped once
CHUNK = 1 << 16


def cosines_shown(scores: np.ndarray) -> list[str]:
    """Cosines as written, six decimals, within [-1, 1]: float32 sums put two identical lines at
    1.000001, which no cosine is."""
    return [f"{s:.6f}" for s in np.clip(np.asarray(scores, dtype=np.float64), -1.0, 1.0).tolist()]


def _encoder(fmt: str):
    """How a text is written in a field: escaped for TSV, a JSON string for JSONL."""
    return escape if fmt == "tsv" else lambda text: json.dumps(text, ensure_ascii=False)


def _table(out: IO[str], fmt: str, names: list[str], chunks: Iterator[list[list[str]]]) -> int:
    """Write chunks of rows given as columns of fields already in the format's form (numbers
    as text, texts escaped or JSON strings), in ``names`` order: TSV with a header row, or
    one JSON object a row."""
    keys = [json.dumps(name) + ": " for name in names]
    if fmt == "tsv":
        out.write("\t".join(names) + "\n")
    count = 0
    for columns in chunks:
        rows = zip(*columns, strict=True)
        if fmt == "tsv":
            out.write("".join("\t".join(row) + "\n" for row in rows))
        else:
            out.write("".join("{" + ", ".join(map(str.__add__, keys, row)) + "}\n" for row in rows))
        count += len(columns[0])
    return count


def write_pairs(pairs: MinedPairs, corpus: SpooledTexts, path: str, *, overwrite: bool = True) -> int:
    """One row per pair, best first: score, the two line numbers, the two texts."""
    fmt = table_format(path)
    form = _encoder(fmt)
    lines = np.frombuffer(corpus.lines, dtype=np.int64) if len(corpus.lines) else np.zeros(0, np.int64)

    def rows() -> Iterator[list[list[str]]]:
        for start in range(0, len(pairs), CHUNK):
            first, second = pairs.first[start : start + CHUNK], pairs.second[start : start + CHUNK]
            texts = {i: form(t) for i, t in corpus.texts.take(np.union1d(first, second).tolist()).items()}
            scores = cosines_shown(pairs.scores[start : start + CHUNK])
            yield [
                scores,
                [str(n) for n in lines[first].tolist()],
                [str(n) for n in lines[second].tolist()],
                [texts[i] for i in first.tolist()],
                [texts[j] for j in second.tolist()],
            ]

    with _opened(path, overwrite) as out:
        return _table(out, fmt, ["score", "line_1", "line_2", "text_1", "text_2"], rows())


def write_kept(result: Deduplicated, corpus: SpooledTexts, path: str, *, overwrite: bool = True) -> int:
    """The kept lines, in order, as they were read (a JSON Lines record whole)."""
    kept = result.kept
    with _opened(path, overwrite) as out:
        count = 0
        for line, keep in zip(corpus.records.iter(), kept.tolist(), strict=True):
            if keep:
                out.write(line + "\n")
                count += 1
        return count


def write_removed(
    result: Deduplicated,
    corpus: SpooledTexts,
    path: str,
    other: SpooledTexts | None = None,
    *,
    overwrite: bool = True,
) -> int:
    """One row per removed text, in order: the score (1.0: an exact copy), how (exact or
    near), its line, the line of the kept text that explains it (in ``other`` with
    ``--against``), both texts."""
    fmt = table_format(path)
    form = _encoder(fmt)
    source = corpus if other is None else other
    removed = np.flatnonzero(result.status != KEPT)
    own_lines = np.frombuffer(corpus.lines, dtype=np.int64) if len(corpus.lines) else np.zeros(0, np.int64)
    by_lines = np.frombuffer(source.lines, dtype=np.int64) if len(source.lines) else np.zeros(0, np.int64)

    def rows() -> Iterator[list[list[str]]]:
        for start in range(0, len(removed), CHUNK):
            part = removed[start : start + CHUNK]
            by = result.by[part]
            texts = {i: form(t) for i, t in corpus.texts.take(part.tolist()).items()}
            kept = {i: form(t) for i, t in source.texts.take(by.tolist()).items()}
            kinds = [form("near") if s == NEAR else form("exact") for s in result.status[part].tolist()]
            yield [
                cosines_shown(result.score[part]),
                kinds,
                [str(n) for n in own_lines[part].tolist()],
                [str(n) for n in by_lines[by].tolist()],
                [texts[i] for i in part.tolist()],
                [kept[j] for j in by.tolist()],
            ]

    with _opened(path, overwrite) as out:
        return _table(out, fmt, ["score", "kind", "line", "kept_line", "text", "kept_text"], rows())
