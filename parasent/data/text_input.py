"""The texts of a corpus a user hands a command: one per line of a file or of stdin, gzip read
transparently (by its magic bytes), or one field of each record of a JSON Lines file.

Every line goes through :class:`~parasent.support.lines.LineReader` (UTF-8 checked, overlong lines
refused, gzip bombs capped), so a bad line is reported as ``path:line: reason``. Texts come with
their line numbers, so that what a command reports (a mined pair, a removed duplicate) names the
line a user can find in the file.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path

from parasent.errors import DataFormatError
from parasent.support.lines import LineReader

STDIN = "-"
JSONL_SUFFIXES = (".jsonl", ".ndjson", ".jsonl.gz", ".ndjson.gz")
DEFAULT_FIELD = "text"


def is_jsonl(source: str) -> bool:
    """Whether ``source`` names a JSON Lines file by its extension."""
    return str(source).lower().endswith(JSONL_SUFFIXES)


def line_reader(source: str) -> LineReader:
    """A reader of ``source``: ``-`` is stdin (its bytes; a text stream without bytes underneath,
    an embedding application's, is read as text), and a path given as a pipe, ``<(zcat f)``,
    is read once as a stream."""
    if source != STDIN:
        return LineReader(source, stream_ok=True)
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        stream = io.BytesIO(sys.stdin.read().encode("utf-8", "surrogateescape"))
    return LineReader("<stdin>", handle=stream)


def input_lines(source: str) -> Iterator[str]:
    """The lines of ``source`` ('-' = stdin) without their line ends: split on ``\\n`` only (a
    bare ``\\r`` is part of a sentence), so there is one output row per input line; a line that
    is not UTF-8 is an error naming the file and line."""
    for _, text in line_reader(source):  # '-': stdin; a pipe given as a path, <(zcat file), a stream
        yield text


def read_texts(source: str, *, field: str | None = None) -> Iterator[tuple[int, str, str]]:
    """``(line number, line, text)`` of every text of ``source`` (a path or ``-``). Plain text:
    every line is its text, blank ones included (line i is text i). JSON Lines (``field`` given,
    or a ``.jsonl`` name, whose field defaults to ``text``): the string ``field`` of each object,
    blank lines skipped; a line that is not an object holding that string is an error naming it."""
    reader = line_reader(source)
    if field is None and not is_jsonl(source):
        for number, line in reader:
            yield number, line, _no_nul(reader.path, number, line)
        return
    name = field or DEFAULT_FIELD
    for number, line in reader:
        if line.strip():
            yield number, line, _no_nul(reader.path, number, _field(reader.path, number, line, name))


def _no_nul(path: Path, number: int, text: str) -> str:
    """A text with a NUL byte is refused: no sentence holds one (a binary file does), and it
    would pass into every output written from the corpus."""
    if "\x00" in text:
        raise DataFormatError(path, number, "a NUL byte: a binary file, not one text per line")
    return text


class SpooledCorpus:
    """The texts of a corpus read once into a :class:`~parasent.support.spool.TextSpool` (and,
    for JSON Lines, the records themselves, which a deduplicated copy writes whole), with
    each text's line number: read twice, by index or in order, in memory of 16 bytes a text."""

    def __init__(self, source: str, *, field: str | None = None) -> None:
        from array import array

        from parasent.support.spool import TextSpool

        self.source = source
        self.jsonl = field is not None or is_jsonl(source)
        self.texts = TextSpool()
        self.records = TextSpool() if self.jsonl else self.texts
        self.lines = array("q")
        try:
            for number, line, text in read_texts(source, field=field):
                self.texts.append(text)
                if self.jsonl:
                    self.records.append(line)
                self.lines.append(number)
        except BaseException:
            self.close()
            raise

    def __len__(self) -> int:
        return len(self.lines)

    def close(self) -> None:
        self.texts.close()
        self.records.close()

    def __enter__(self) -> SpooledCorpus:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _field(path: Path, number: int, line: str, name: str) -> str:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise DataFormatError(path, number, f"not JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:  # a line of 100,000 nested arrays: Python's parser recurses per level
        raise DataFormatError(path, number, "JSON nested too deeply (a line is one flat object)") from None
    if not isinstance(record, dict):
        raise DataFormatError(
            path, number, f"a JSON {type(record).__name__}, not an object with a {name!r} field"
        )
    if name not in record:
        keys = ", ".join(map(repr, list(record)[:8])) or "none"
        raise DataFormatError(path, number, f"no field {name!r} (fields: {keys}; --field names another)")
    value = record[name]
    if not isinstance(value, str):
        raise DataFormatError(path, number, f"field {name!r} is a JSON {type(value).__name__}, not a string")
    return value
