"""Line-level reading shared by every reader: gzip transparency and ``path:line`` errors.

Readers are strict by default: the first malformed line raises :class:`DataFormatError`
naming the file and line. With ``lenient=True`` such lines are skipped and counted in a
:class:`ReadReport`, which the caller can print.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from parasent.errors import (
    CorruptFileError,
    DataFormatError,
    DataNotFoundError,
    ExpansionRefused,
    OptionError,
    SpecialFileError,
)
from parasent.support.pipes import is_pipe, pipe_copy
from parasent.support.regular_files import regular_size

# A longer line is refused (not read into memory): no data file of the formats read here has
# lines near this long, and a runaway line (a binary file, a missing newline) must fail fast.
MAX_LINE_BYTES = 1 << 20
BOM = "\ufeff"
WIDE_BOMS = (
    b"\xff\xfe",
    b"\xfe\xff",
    b"\x00\x00\xfe\xff",
)  # UTF-16 LE/BE (UTF-32 LE starts as 16 LE), UTF-32 BE
# What a truncated or corrupted gzip stream raises while being read.
GZIP_ERRORS = (EOFError, zlib.error, gzip.BadGzipFile)


# A gzip file that expands more than this many times is refused once it has given this many
# bytes: text compresses 3-6x (the shared data: at most 6x), while a file of blank lines
# compresses about 1000x, so 16 KB would hold 16 million lines that take seconds to read
# and, through ``encode``, a row each. ``PARASENT_MAX_GZIP_RATIO`` changes the ratio (0: no cap).
MAX_GZIP_RATIO = 100
GZIP_RATIO_FLOOR_BYTES = 1 << 20
GZIP_RATIO_VAR = "PARASENT_MAX_GZIP_RATIO"


def gzip_ratio_cap() -> float:
    """The ratio of :data:`MAX_GZIP_RATIO`, or the one ``$PARASENT_MAX_GZIP_RATIO`` sets (0: none)."""
    value = os.environ.get(GZIP_RATIO_VAR, "")
    try:
        ratio = float(value) if value.strip() else MAX_GZIP_RATIO
    except ValueError:
        raise OptionError(f"${GZIP_RATIO_VAR}={value!r} is not a number (0 lifts the cap)") from None
    if not ratio >= 0:
        raise OptionError(f"${GZIP_RATIO_VAR}={value!r} must be 0 (no cap) or a positive ratio")
    return ratio or float("inf")


class _Counted(io.RawIOBase):
    """A raw stream that counts the bytes read from it (the compressed side of a gzip file)."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw, self.count = raw, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = self.raw.readinto(buffer)
        self.count += n or 0
        return n

    def close(self) -> None:
        self.raw.close()
        super().close()


class _RatioGuard(io.RawIOBase):
    """The decompressed bytes of a gzip stream, refused once they exceed ``ratio`` times the
    compressed bytes read (past :data:`GZIP_RATIO_FLOOR_BYTES`): a decompression bomb costs
    what its first megabyte costs, checked once per block, not per line."""

    def __init__(self, path: Path, compressed: _Counted, ratio: float) -> None:
        self.path, self.compressed, self.ratio = path, compressed, ratio
        self.inflated = gzip.GzipFile(fileobj=compressed, mode="rb")
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = self.inflated.readinto(buffer)
        self.count += n
        if self.count > GZIP_RATIO_FLOOR_BYTES and self.count > self.ratio * max(self.compressed.count, 1):
            raise ExpansionRefused(
                f"gzip expands more than {self.ratio:g} times ({self.compressed.count} compressed bytes "
                f"gave {self.count}); refused as a decompression bomb (${GZIP_RATIO_VAR}=0 lifts the cap)",
            )
        return n

    def close(self) -> None:
        self.inflated.close()
        self.compressed.close()
        super().close()


def check_input_file(path: str | Path, *, stream_ok: bool = False) -> None:
    """Refuse a missing path, a directory, a device or (unless ``stream_ok``) a FIFO, each
    with its own message, before anything opens it."""
    path = Path(path)
    try:
        regular_size(path, stream_ok=stream_ok)
    except FileNotFoundError:
        raise DataNotFoundError(f"{path}: no such file") from None
    except NotADirectoryError:
        raise DataNotFoundError(f"{path}: no such file (a part of the path is a file)") from None
    except SpecialFileError as exc:
        if path.is_dir():
            raise DataNotFoundError(f"{path}: a directory, not a file") from None
        hint = " (to read a pipe, give it to '-' on stdin)" if not stream_ok and "FIFO" in str(exc) else ""
        raise SpecialFileError(f"{exc}{hint}") from None


def open_binary(path: str | Path, *, stream_ok: bool = False, copy_pipe: bool = False) -> IO[bytes]:
    """Open a file for reading bytes, decompressing it when it is gzip (by magic bytes, not
    name) under the expansion cap (:data:`MAX_GZIP_RATIO`). Only regular files are opened;
    ``stream_ok`` also reads a FIFO (a pipe given as a path, ``<(zcat file)``), once;
    ``copy_pipe`` reads a FIFO's copy (:func:`parasent.support.pipes.pipe_copy`), for a file
    read more than once."""
    path = Path(path)
    if copy_pipe and is_pipe(path):
        path = pipe_copy(path)
    check_input_file(path, stream_ok=stream_ok)
    handle = io.BufferedReader(io.FileIO(path, "rb"), buffer_size=1 << 16)
    if handle.peek(2)[:2] != b"\x1f\x8b":
        return handle
    ratio = gzip_ratio_cap()
    return io.BufferedReader(_RatioGuard(path, _Counted(handle), ratio), buffer_size=1 << 16)


def count_lines(path: str | Path) -> int:
    """The lines of a regular file (gzip decompressed), for a progress bar's total: a read of
    the bytes that holds one block at a time (a last line without its newline counts)."""
    count, last = 0, b"\n"
    with open_binary(path) as handle:
        try:
            while block := handle.read(1 << 20):
                count += block.count(b"\n")
                last = block[-1:]
        except GZIP_ERRORS as exc:
            raise CorruptFileError(path, count, f"corrupt gzip ({exc})") from None
        except ExpansionRefused as exc:
            raise CorruptFileError(path, count, str(exc)) from None
    return count + (last != b"\n")


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
        handle: IO[bytes] | None = None,
        stream_ok: bool = False,
        copy_pipe: bool = False,
    ) -> None:
        self.path = Path(path)
        self.stream_ok = stream_ok  # a FIFO path is read as a stream (see open_binary)
        self.copy_pipe = copy_pipe  # a FIFO path is read through its copy (a file read twice)
        self.handle = handle  # an open binary stream to read instead of the file (stdin), not closed
        self.lenient = lenient
        self.fallback_encoding = fallback_encoding
        self.report = report if report is not None else ReadReport()
        self.report.path = str(self.path)

    def __iter__(self) -> Iterator[tuple[int, str]]:
        return self.lines()

    def lines(self, *, placeholders: bool = False) -> Iterator[tuple[int, str | None]]:
        """``(number, text)`` of every line; a line skipped in lenient mode is left out, or
        yielded as ``(number, None)`` with ``placeholders`` (parallel files stay aligned).

        A corrupt or truncated gzip stream raises :class:`CorruptFileError` (no later line can
        be read, so it is fatal even in lenient mode); a leading byte-order mark is dropped.
        """
        number = 0
        with (
            open_binary(self.path, stream_ok=self.stream_ok, copy_pipe=self.copy_pipe)
            if self.handle is None
            else contextlib.nullcontext(self.handle) as handle
        ):
            try:
                while True:
                    raw = handle.readline(MAX_LINE_BYTES + 1)
                    if not raw:
                        return
                    number += 1
                    text = self._decode(number, raw, handle)
                    if text is None:
                        if placeholders:
                            yield number, None
                        continue
                    if number == 1 and text.startswith(BOM):
                        text = text[1:]
                    yield number, text
            except GZIP_ERRORS as exc:
                raise CorruptFileError(self.path, number, f"corrupt gzip ({exc})") from None
            except ExpansionRefused as exc:
                raise CorruptFileError(self.path, number, str(exc)) from None

    def _decode(self, number: int, raw: bytes, handle: IO[bytes]) -> str | None:
        """The text of one raw line, or None when the line was skipped (lenient mode)."""
        # Decoding line by line keeps a bad byte sequence local to its line in lenient mode.
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            while True:  # skip the rest of the overlong line without holding it in memory
                rest = handle.readline(MAX_LINE_BYTES)
                if not rest or rest.endswith(b"\n"):
                    break
            self.fail(number, f"line longer than {MAX_LINE_BYTES} bytes")
            return None
        if number == 1 and raw.startswith(WIDE_BOMS):  # never a line of latin-1 (the fallback)
            raise DataFormatError(
                self.path,
                1,
                "UTF-16 or UTF-32 text (its byte-order mark); parasent reads UTF-8: convert the file "
                "(iconv -f UTF-16 -t UTF-8)",
            )
        try:
            return raw.decode("utf-8").rstrip("\r\n")
        except UnicodeDecodeError as exc:
            if self.fallback_encoding is not None:
                self.report.recoded += 1
                return raw.decode(self.fallback_encoding, errors="replace").rstrip("\r\n")
            self.fail(number, f"not valid UTF-8 ({exc.reason} at byte {exc.start})")
            return None

    def fail(self, line: int, reason: str) -> None:
        error = DataFormatError(self.path, line, reason)
        if not self.lenient:
            raise error
        self.report.add(error)


def parse_float(
    reader: LineReader,
    line: int,
    text: str,
    what: str,
    bounds: tuple[float, float] | None = None,
) -> float | None:
    """Parse a finite float (within ``bounds``, inclusive, when given) or report the line;
    returns None when the line was skipped."""
    try:
        value = float(text)
    except ValueError:
        reader.fail(line, f"{what} {text!r} is not a number")
        return None
    if value != value or value in (float("inf"), float("-inf")):
        reader.fail(line, f"{what} {text!r} is not a finite number")
        return None
    if bounds is not None and not bounds[0] <= value <= bounds[1]:
        reader.fail(line, f"{what} {text!r} is outside [{bounds[0]:g}, {bounds[1]:g}]")
        return None
    return value


def parse_count(reader: LineReader, line: int, text: str, what: str, limit: int) -> int | None:
    """Parse a non-negative ASCII integer no larger than ``limit``, or report the line."""
    if not (text.isascii() and text.isdecimal()):
        negative = text.startswith("-") and text[1:].isascii() and text[1:].isdecimal()
        reader.fail(line, f"{what} {text} is negative" if negative else f"{what} {text!r} is not an integer")
        return None
    if len(text) > len(str(limit)) or int(text) > limit:
        reader.fail(line, f"{what} {text} is larger than {limit}")
        return None
    return int(text)
