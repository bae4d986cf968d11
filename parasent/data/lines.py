"""Line-level reading shared by every reader: gzip transparency and ``path:line`` errors.

Readers are strict by default: the first malformed line raises :class:`DataFormatError`
naming the file and line. With ``lenient=True`` such lines are skipped and counted in a
:class:`ReadReport`, which the caller can print.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from parasent.errors import DataFormatError, DataNotFoundError


def open_binary(path: str | Path) -> IO[bytes]:
    """Open a file for reading bytes, decompressing it when it is gzip (by magic bytes, not name)."""
    path = Path(path)
    if not path.is_file():
        raise DataNotFoundError(f"{path}: no such file")
    with open(path, "rb") as probe:
        magic = probe.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rb")
    return open(path, "rb")


@dataclass
class ReadReport:
    """What a lenient read skipped: a count and the first few reasons."""

    path: str = ""
    skipped: int = 0
    examples: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    recoded: int = 0  # lines that were not UTF-8 and were decoded with the fallback encoding

    def add(self, error: DataFormatError) -> None:
        self.skipped += 1
        if len(self.examples) < 5:
            self.examples.append(str(error))

    def summary(self) -> str:
        if not self.skipped:
            return f"{self.path}: no malformed lines"
        first = "; ".join(self.examples[:3])
        return f"{self.path}: skipped {self.skipped} malformed line(s) (first: {first})"


class LineReader:
    """Iterate ``(line_number, text)`` of a file, applying the strict/lenient policy.

    A reader calls :meth:`fail` for a malformed line: in strict mode it raises, in lenient
    mode it records the line and the reader ``continue``s.

    ``fallback_encoding`` (running text only, e.g. ``"latin-1"``) decodes a line that is not
    UTF-8 with that encoding instead of failing, and counts it in ``report.recoded``: old
    plain-text releases mix encodings, and a sentence is worth more than its one odd byte.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        lenient: bool = False,
        report: ReadReport | None = None,
        fallback_encoding: str | None = None,
    ) -> None:
        self.path = Path(path)
        self.lenient = lenient
        self.fallback_encoding = fallback_encoding
        self.report = report if report is not None else ReadReport()
        self.report.path = str(self.path)

    def __iter__(self) -> Iterator[tuple[int, str]]:
        # Decoding line by line keeps a bad byte sequence local to its line in lenient mode.
        with open_binary(self.path) as handle:
            for number, raw in enumerate(handle, start=1):
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    if self.fallback_encoding is not None:
                        self.report.recoded += 1
                        yield number, raw.decode(self.fallback_encoding, errors="replace").rstrip("\r\n")
                        continue
                    self.fail(number, f"not valid UTF-8 ({exc.reason} at byte {exc.start})")
                    continue
                yield number, text.rstrip("\r\n")

    def fail(self, line: int, reason: str) -> None:
        error = DataFormatError(self.path, line, reason)
        if not self.lenient:
            raise error
        self.report.add(error)


def parse_float(reader: LineReader, line: int, text: str, what: str) -> float | None:
    """Parse a finite float or report the line; returns None when the line was skipped."""
    try:
        value = float(text)
    except ValueError:
        reader.fail(line, f"{what} {text!r} is not a number")
        return None
    if value != value or value in (float("inf"), float("-inf")):
        reader.fail(line, f"{what} {text!r} is not a finite number")
        return None
    return value
