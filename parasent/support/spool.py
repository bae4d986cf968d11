"""Texts written once to an anonymous temporary file and read back by index or in order.

A corpus that is mined or deduplicated is read twice (encoded, then its pairs or kept lines
written with their texts), and it may come from stdin or a gzip stream that cannot be read
again: the texts go to disk as they arrive, and memory holds only one 8-byte offset per text,
not the texts (a million captions: 8 MB instead of ~150 MB of Python strings). The file has no
name (``tempfile.TemporaryFile``): it is gone when closed or when the process ends, even killed.
"""

from __future__ import annotations

import bisect
import tempfile
from array import array
from collections.abc import Iterator, Sequence
from types import TracebackType
from typing import Protocol

# texts decoded per read when iterating in order (bounded by bytes, not count)
READ_BYTES = 1 << 22
# in a read of texts by index, a gap this small between two wanted texts is read through
READ_GAP = 1 << 16


class TextSpool:
    """An append-only sequence of texts on disk: ``append``, then ``len``, ``[i]`` and ``iter``.
    A text may hold any character, line ends included (texts are delimited by offsets)."""

    def __init__(self, directory: str | None = None) -> None:
        self._file = tempfile.TemporaryFile(dir=directory)
        self._offsets = array("q", [0])
        self._dirty = False  # written since the last read: flush before reading
        self._at_end = True  # the file position is the end: no seek before writing

    def append(self, text: str) -> None:
        data = text.encode("utf-8", "surrogatepass")
        if not self._at_end:  # a read moved the position: texts are always added at the end
            self._file.seek(0, 2)
            self._at_end = True
        self._file.write(data)
        self._offsets.append(self._offsets[-1] + len(data))
        self._dirty = True

    def extend(self, texts: Iterator[str] | list[str]) -> None:
        for text in texts:
            self.append(text)

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def _read(self, start: int, stop: int) -> bytes:
        if self._dirty:
            self._file.flush()
            self._dirty = False
        self._file.seek(self._offsets[start])
        self._at_end = False
        return self._file.read(self._offsets[stop] - self._offsets[start])

    def __getitem__(self, index: int) -> str:
        if not -len(self) <= index < len(self):
            raise IndexError(f"text {index} of {len(self)}")
        index %= len(self)
        return self._read(index, index + 1).decode("utf-8", "surrogatepass")

    def take(self, indices: Sequence[int]) -> dict[int, str]:
        """The texts at ``indices`` (any order, repeats allowed) by index, read in file order:
        runs of texts that lie close together are read in one call (a gap of up to
        :data:`READ_GAP` bytes is read through rather than sought over)."""
        wanted = sorted(set(int(i) for i in indices))
        if wanted and not (0 <= wanted[0] and wanted[-1] < len(self)):
            raise IndexError(f"text {wanted[0] if wanted[0] < 0 else wanted[-1]} of {len(self)}")
        texts: dict[int, str] = {}
        run: list[int] = []
        for index in wanted:
            if run and (self._offsets[index] - self._offsets[run[-1] + 1] > READ_GAP
                        or self._offsets[index + 1] - self._offsets[run[0]] > READ_BYTES):  # fmt: skip
                self._take_run(run, texts)
                run = []
            run.append(index)
        if run:
            self._take_run(run, texts)
        return texts

    def _take_run(self, run: list[int], texts: dict[int, str]) -> None:
        data = self._read(run[0], run[-1] + 1)
        base = self._offsets[run[0]]
        for i in run:
            texts[i] = data[self._offsets[i] - base : self._offsets[i + 1] - base].decode(
                "utf-8", "surrogatepass"
            )

    def iter(self, start: int = 0, stop: int | None = None) -> Iterator[str]:
        """The texts ``start .. stop`` in order, read a few megabytes at a time."""
        stop = len(self) if stop is None else min(stop, len(self))
        while start < stop:
            # the texts that end within READ_BYTES of this one's start (at least one)
            limit = self._offsets[start] + READ_BYTES
            end = max(start + 1, bisect.bisect_right(self._offsets, limit, start + 1, stop + 1) - 1)
            data = self._read(start, end)
            base = self._offsets[start]
            for i in range(start, end):
                yield data[self._offsets[i] - base : self._offsets[i + 1] - base].decode(
                    "utf-8", "surrogatepass"
                )
            start = end

    def __iter__(self) -> Iterator[str]:
        return self.iter()

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> TextSpool:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


class SpooledTexts(Protocol):
    """A corpus read once into spools, as mining, dedup and the files they write read it
    (:class:`parasent.data.text_input.SpooledCorpus` is one): its texts, its records (the JSON
    Lines a deduplicated copy writes whole; the texts themselves for a plain text file), each
    text's line number, where it was read from and whether it is JSON Lines."""

    source: str
    jsonl: bool
    texts: TextSpool
    records: TextSpool
    lines: array

    def __len__(self) -> int: ...
