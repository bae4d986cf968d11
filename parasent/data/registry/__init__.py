"""One record shape for every data set parasent reads (after mteb's task metadata).

Evaluation sets, supervised-task splits, training-pool sources, corpora and unlabelled-text
sources are each a :class:`DataRecord`: a name, the layout that says which reader opens the
files, the files (paths or globs under the data directory, in reading order) and their
split, and what a reader of a paper needs to know: score range, main metric, citation,
licence, and the sha256 of each file as the shared data holds it (a glob's digest covers
every matching file, see :func:`file_digest`). The declarations are in
:mod:`parasent.data.registry.catalog`; the readers, one per layout, in :mod:`parasent.data.registry.layouts`.
Adding a dataset is adding one record there. Where files can be downloaded is not a field
of the record: one download often holds the files of several records (a SemEval year's
archive, every set of that year), and some downloads feed no record (word vectors, word
frequencies), so :mod:`parasent.data.fetching.sources` declares each download once.

The package holds the registry's declarations too: the shared data's sets, suites, pools and
corpora (``catalog``) with their files' sha256 (``checksums``), and the reader each layout names
(``layouts``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from parasent.errors import DataNotFoundError
from parasent.support.regular_files import files_sha256, sha256_of

KINDS = ("similarity", "task", "pool", "corpus", "text")
GLOB_CHARS = "*?["


@dataclass(frozen=True)
class DataRecord:
    """A data set as the shared data holds it, and how to read it."""

    name: str
    kind: str  # one of KINDS: what the data are used for
    layout: str  # the reader (a key of parasent.data.registry.layouts.LAYOUTS)
    files: tuple[str, ...]  # paths or globs relative to the data directory, in reading order
    split: str = "test"
    group: str = ""  # the family the record belongs to (sts2014, sick2014, ...)
    description: str = ""
    score_range: tuple[float, float] | None = None
    main_metric: str | None = None
    citation: str = ""
    licence: str = "unstated"  # "unstated": the release says nothing the shared data keeps
    sha256: Mapping[str, str] = field(default_factory=dict)  # file or glob -> hex digest
    options: Mapping[str, Any] = field(default_factory=dict)  # the reader's keyword arguments

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.name}: unknown kind {self.kind!r} (known: {', '.join(KINDS)})")

    def paths(self, data_dir: str | Path) -> list[Path]:
        """The files, globs expanded (sorted); a glob that matches nothing is an error."""
        root = Path(data_dir)
        out: list[Path] = []
        for name in self.files:
            if any(ch in name for ch in GLOB_CHARS):
                found = sorted(root.glob(name))
                if not found:
                    raise DataNotFoundError(f"{self.name}: no files match {root / name}")
                out += found
            else:
                out.append(root / name)
        return out

    def read(self, data_dir: str | Path) -> Iterator[Any]:
        """The items of the record, read by the reader its layout names."""
        from parasent.data.registry.layouts import LAYOUTS

        try:
            reader = LAYOUTS[self.layout]
        except KeyError:
            raise ValueError(f"{self.name}: unknown layout {self.layout!r}") from None
        return reader(self.paths(data_dir), **self.options)

    def load(self, data_dir: str | Path) -> list[Any]:
        return list(self.read(data_dir))


R = TypeVar("R")


class Registry(Generic[R]):
    """Named declarations of one kind; a lookup that misses names what is known."""

    def __init__(self, what: str, items: Mapping[str, R] | None = None) -> None:
        self.what = what
        self._items: dict[str, R] = dict(items or {})

    def add(self, name: str, item: R) -> R:
        if name in self._items:
            raise ValueError(f"{self.what} {name!r} is declared twice")
        self._items[name] = item
        return item

    def __getitem__(self, name: str) -> R:
        try:
            return self._items[name]
        except KeyError:
            raise KeyError(f"unknown {self.what} {name!r} (known: {', '.join(self._items)})") from None

    def get(self, name: str, default: R | None = None) -> R | None:
        return self._items.get(name, default)

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def keys(self):
        return self._items.keys()

    def values(self):
        return self._items.values()

    def items(self):
        return self._items.items()


def file_digest(data_dir: str | Path, name: str) -> str:
    """The sha256 of a file; of a glob, the sha256 of its sorted ``relative-path  sha256``
    lines (one digest for the 2,000 files of a corpus folder)."""
    root = Path(data_dir)
    if not any(ch in name for ch in GLOB_CHARS):
        return sha256_of(root / name)
    paths = list(root.glob(name))
    if not paths:
        raise DataNotFoundError(f"no files match {root / name}")
    return files_sha256(root, paths)


def verify(record: DataRecord, data_dir: str | Path) -> list[str]:
    """What differs between the record's digests and the files: one line per file."""
    problems = []
    for name in record.files:
        expected = record.sha256.get(name)
        if expected is None:
            problems.append(f"{record.name}: {name}: no sha256 declared")
            continue
        try:
            actual = file_digest(data_dir, name)
        except (OSError, DataNotFoundError) as exc:
            problems.append(f"{record.name}: {name}: {exc}")
            continue
        if actual != expected:
            problems.append(f"{record.name}: {name}: sha256 {actual}, declared {expected}")
    return problems
