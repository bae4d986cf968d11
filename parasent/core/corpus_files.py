"""The files ``parasent mine`` and ``parasent dedup`` write: mined pairs, kept lines, and
removed lines with the kept text that explains each.

Tables are tab-separated with a header row (``.tsv``, and ``-``: stdout) or JSON Lines
(``.jsonl``: one object a row, texts as they are). In a TSV field a backslash, tab, newline or
carriage return is written ``\\\\``, ``\\t``, ``\\n``, ``\\r`` (a JSONL text may hold any of
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

from parasent.core.dedup import KEPT, NEAR
from parasent.errors import OptionError

if TYPE_CHECKING:
    from parasent.core.dedup import Deduplicated
    from parasent.core.mining import MinedPairs
    from parasent.data.text_input import SpooledCorpus

TABLE_FORMATS = {".tsv": "tsv", ".jsonl": "jsonl"}
_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


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
def _opened(path: str) -> Iterator[IO[str]]:
    from parasent.support.staging import atomic_file

    if path == "-":
        yield sys.stdout
        sys.stdout.flush()
        return
    with atomic_file(Path(path), "w", encoding="utf-8", newline="\n") as handle:
        yield handle


def _rows(out: IO[str], fmt: str, names: list[str], rows: Iterator[list]) -> int:
    """Write ``rows`` (values in the order of ``names``) as TSV with a header, or JSONL."""
    count = 0
    if fmt == "tsv":
        out.write("\t".join(names) + "\n")
    for row in rows:
        if fmt == "tsv":
            out.write("\t".join(escape(v) if isinstance(v, str) else _number(v) for v in row) + "\n")
        else:
            out.write(json.dumps(dict(zip(names, row, strict=True)), ensure_ascii=False) + "\n")
        count += 1
    return count


def _number(value: object) -> str:
    return f"{value:.6f}" if isinstance(value, float) else str(value)


def write_pairs(pairs: MinedPairs, corpus: SpooledCorpus, path: str) -> int:
    """One row per pair, best first: score, the two line numbers, the two texts."""
    fmt = table_format(path)
    names = ["score", "line_1", "line_2", "text_1", "text_2"]

    def rows() -> Iterator[list]:
        for score, i, j in zip(
            pairs.scores.tolist(), pairs.first.tolist(), pairs.second.tolist(), strict=True
        ):
            yield [round(float(score), 6), corpus.lines[i], corpus.lines[j], corpus.texts[i], corpus.texts[j]]

    with _opened(path) as out:
        return _rows(out, fmt, names, rows())


def write_kept(result: Deduplicated, corpus: SpooledCorpus, path: str) -> int:
    """The kept lines, in order, as they were read (a JSON Lines record whole)."""
    kept = result.kept
    with _opened(path) as out:
        count = 0
        for line, keep in zip(corpus.records.iter(), kept.tolist(), strict=True):
            if keep:
                out.write(line + "\n")
                count += 1
        return count


def write_removed(
    result: Deduplicated, corpus: SpooledCorpus, path: str, other: SpooledCorpus | None = None
) -> int:
    """One row per removed text, in order: the score (1.0: an exact copy), how (exact or
    near), its line, the line of the kept text that explains it (in ``other`` with
    ``--against``), both texts."""
    fmt = table_format(path)
    names = ["score", "kind", "line", "kept_line", "text", "kept_text"]
    source = corpus if other is None else other
    removed = np.flatnonzero(result.status != KEPT)

    def rows() -> Iterator[list]:
        for index in removed.tolist():
            by = int(result.by[index])
            kind = "near" if result.status[index] == NEAR else "exact"
            score = round(float(result.score[index]), 6)
            yield [score, kind, corpus.lines[index], source.lines[by], corpus.texts[index], source.texts[by]]

    with _opened(path) as out:
        return _rows(out, fmt, names, rows())
