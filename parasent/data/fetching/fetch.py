"""``parasent data fetch`` / ``list``: the public data sets of :mod:`parasent.data.fetching.sources`,
downloaded, unpacked into the readers' layout, and verified against their sha256.

A target's sha256 is of its bytes; a glob's, of its files' sorted ``relative-path  sha256``
lines (one digest for a folder of 2,000 files). A download is untrusted input: it is bounded
and resumed by :mod:`parasent.data.fetching.download`, its archive's members are checked by
:mod:`parasent.support.archives` before a byte is written, only the members the record
declares are extracted, all into a staging folder under ``.downloads``, and the targets are
renamed into place only once every one of them is verified: a present target is a complete
one, and nothing is ever written outside the data directory.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import struct
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from parasent.data.fetching.download import DEADLINE, check_download, receive
from parasent.data.fetching.sources import BY_NAME, Source
from parasent.data.registry.checksums import SHA256 as CHECKSUMS  # the dataset registry's digests
from parasent.errors import ArchiveError, ChecksumError, FetchError
from parasent.support.archives import Archive, ExpansionBudget, open_archive, safe_member_name
from parasent.support.regular_files import files_sha256, is_regular, sha256_of
from parasent.support.staging import clean_leftovers, fsync_directory, fsync_file, swap_in_directory

DOWNLOADS = ".downloads"  # under the data directory: the archives, kept for re-extraction
GLOB_CHARS = "*?["


def is_glob(target: str) -> bool:
    return any(ch in target for ch in GLOB_CHARS)


def glob_folder(target: str) -> str:
    """The folder a glob target's files are extracted into (its part before any pattern)."""
    head = target[: min(target.index(ch) for ch in GLOB_CHARS if ch in target)]
    return head.rsplit("/", 1)[0]


def target_digest(root: Path, target: str) -> str:
    """sha256 of a file, or of a glob's sorted ``relative-path  sha256`` lines."""
    if not is_glob(target):
        return sha256_of(root / target)
    return files_sha256(root, root.glob(target))


def gzip_9n(data: bytes) -> bytes:
    """What ``gzip -9n`` writes: deflate level 9 (memLevel 9), no name, time 0, OS unix."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
    body = compressor.compress(data) + compressor.flush()
    header = bytes([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 2, 3])
    return header + body + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)


@dataclass
class Status:
    source: str
    target: str
    state: str  # present, missing, corrupt, unverified (no checksum known)


def status(root: Path, names: list[str] | None = None) -> Iterator[Status]:
    """Each target of the named sources (default: all of them, derived ones included)."""
    for source in _sources(names or list(BY_NAME)):
        for target in source.targets:
            expected = CHECKSUMS.get(target)
            if not (any(root.glob(target)) if is_glob(target) else (root / target).exists()):
                state = "missing"
            elif expected is None:
                state = "unverified"
            else:
                state = "present" if target_digest(root, target) == expected else "corrupt"
            yield Status(source.name, target, state)


def _sources(names: list[str] | None) -> list[Source]:
    from parasent.data.fetching.sources import DEFAULT

    unknown = [n for n in names or [] if n not in BY_NAME]
    if unknown:
        raise FetchError(f"unknown data set(s) {', '.join(unknown)} (known: {', '.join(BY_NAME)})")
    return [BY_NAME[n] for n in (names or DEFAULT)]


def _sts_file(inputs: Path, scores: Path, out: Path) -> None:
    """``STS.input`` (sent1, sent2, maybe more columns) + ``STS.gs`` -> ``score\\ts1\\ts2``, line by line."""
    with (
        open(inputs, encoding="utf-8") as pairs,
        open(scores, encoding="utf-8") as gold,
        open(out, "x", encoding="utf-8", newline="") as sink,
    ):
        for pair in pairs:
            fields = pair.rstrip("\r\n").split("\t")
            score = next(gold, "").strip()
            sink.write(f"{score}\t{fields[0]}\t{fields[1] if len(fields) > 1 else ''}\n")


def _gzip_file(source: Path, out: Path) -> None:
    """``gzip -9n`` of ``source`` into ``out`` in blocks (the same bytes as :func:`gzip_9n`)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
    crc, size = 0, 0
    with open(source, "rb") as handle, open(out, "xb") as sink:
        sink.write(bytes([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 2, 3]))
        while block := handle.read(1 << 20):
            crc, size = zlib.crc32(block, crc), size + len(block)
            sink.write(compressor.compress(block))
        sink.write(compressor.flush() + struct.pack("<II", crc, size & 0xFFFFFFFF))


def _place(source: Path, out: Path, transform: str) -> None:
    """``source`` (a staged file, consumed) as target ``out``, transformed."""
    out.parent.mkdir(parents=True, exist_ok=True)
    if transform == "gzip":
        _gzip_file(source, out)
        source.unlink()
    else:
        os.replace(source, out)


def matches(path: str, pattern: str) -> bool:
    """Whether relative ``path`` is one of the files glob ``pattern`` names (part by part)."""
    parts, wanted = path.split("/"), pattern.split("/")
    return len(parts) == len(wanted) and all(
        fnmatch.fnmatchcase(p, w) for p, w in zip(parts, wanted, strict=True)
    )


class _Staging:
    """Where one source's targets are made: ``staged`` mirrors the data directory's layout,
    ``raw`` holds members as extracted (each a fresh file under a checked name)."""

    def __init__(self, root: Path, source: Source) -> None:
        self.source = source
        self.top = root / DOWNLOADS / f".{source.name}.tmp-{os.getpid()}"
        shutil.rmtree(self.top, ignore_errors=True)
        self.staged, self.raw = self.top / "staged", self.top / "raw"
        self.raw.mkdir(parents=True)
        self.budget = ExpansionBudget(source.expands_to)

    def member(self, archive: Archive, name: str) -> Path:
        safe = safe_member_name(archive.path, name)
        if safe not in archive.members:
            raise FetchError(f"{self.source.url}: the download lacks {name}")
        path = self.raw / safe
        archive.copy(safe, path, self.budget)
        return path

    def folder(self, archive: Archive, prefix: str, target: str, transform: str) -> None:
        """The members under ``prefix`` that the target's glob declares (nothing else is written)."""
        for name, relative in archive.under(prefix):
            gz = transform == "gzip" and relative.endswith(".txt")
            placed = f"{glob_folder(target)}/{relative}" + (".gz" if gz else "")
            if matches(placed, target):
                _place(self.member(archive, name), self.staged / placed, "gzip" if gz else "")

    def entry(self, archive: Archive, member: str, target: str, transform: str) -> None:
        if member.endswith("/"):
            self.folder(archive, member, target, transform)
        elif transform == "sts":
            gold = self.member(archive, member.replace(".input.", ".gs."))
            _sts_file(self.member(archive, member), gold, self._new(target))
        else:
            _place(self.member(archive, member), self.staged / target, transform)

    def _new(self, target: str) -> Path:
        (self.staged / target).parent.mkdir(parents=True, exist_ok=True)
        return self.staged / target


def _stage(source: Source, downloaded: Path, staging: _Staging) -> None:
    """Every target of ``source`` under ``staging.staged``, from the download or its archive."""
    if all(member == "" for member, _, _ in source.files):
        for _, target, transform in source.files:
            copy = staging.raw / target
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(downloaded, copy)
            _place(copy, staging.staged / target, transform)
        return
    with open_archive(downloaded) as archive:
        for member, target, transform in source.files:
            staging.entry(archive, member, target, transform)


def _verify(source: Source, staged: Path, root: Path) -> None:
    for target in source.targets:
        expected = CHECKSUMS.get(target)
        if expected is not None and target_digest(staged, target) != expected:
            raise ChecksumError(
                f"{root / target}: the sha256 of what {source.url} holds differs from the registry's"
            )


def _move_in(staged: Path, root: Path, target: str) -> None:
    """A verified target into its place: a file by one rename, a glob's folder by a swap."""
    name = glob_folder(target) if is_glob(target) else target
    place = root / name
    place.parent.mkdir(parents=True, exist_ok=True)
    for path in [staged / name, *(staged / name).rglob("*")]:  # on the disk before it gets its name
        if path.is_file():
            fsync_file(path)
    if not is_glob(target):
        os.replace(staged / name, place)
        fsync_directory(place.parent)
    else:
        swap_in_directory(staged / name, place)  # fsyncs the parent, cleans killed swaps' leftovers


def install(source: Source, downloaded: Path, root: Path) -> None:
    """Make every target of ``source`` from ``downloaded`` in a staging folder under
    ``root/.downloads``, check each against the registry, then put them in place: nothing is
    written outside ``root``, and nothing unverified under a target's name."""
    clean_leftovers(root / DOWNLOADS / source.name)  # the staging folders of killed runs
    staging = _Staging(root, source)
    try:
        _stage(source, downloaded, staging)
        _verify(source, staging.staged, root)
        for target in source.targets:
            _move_in(staging.staged, root, target)
    finally:
        shutil.rmtree(staging.top, ignore_errors=True)


def _fetch_one(source: Source, root: Path, progress: bool, deadline: float) -> None:
    """Install ``source`` from its kept download, else from a new one (kept only once it yields
    verified targets: a bad download never stays under its final name)."""
    archive = root / DOWNLOADS / source.url.rsplit("/", 1)[-1]
    if is_regular(archive):
        try:
            install(source, archive, root)
            return
        except (ArchiveError, ChecksumError):
            archive.unlink()  # kept by an earlier version, or damaged since: downloaded anew
    part = receive(
        source.url,
        archive.with_name(archive.name + ".part"),
        size=source.size,
        max_bytes=source.max_bytes,
        deadline=deadline,
        progress=progress,
    )
    check_download(source.url, part, size=source.size, sha256=source.sha256)
    try:
        install(source, part, root)
    except (ArchiveError, ChecksumError) as exc:
        part.unlink(missing_ok=True)
        raise type(exc)(f"{exc}; removed the download, run again to fetch it anew") from None
    os.replace(part, archive)


def fetch(
    root: Path,
    names: list[str] | None = None,
    *,
    say: Callable[[str], None] = print,
    progress: bool = True,
    deadline: float = DEADLINE,
) -> int:
    """Fetch the named sources (default: every reproducible one) into ``root``; returns how
    many targets were written. Present, verified targets are skipped; ``deadline`` bounds each
    download in seconds."""
    written = 0
    for source in _sources(names):
        states = {s.target: s.state for s in status(root, [source.name])}
        if all(state == "present" for state in states.values()):
            say(f"{source.name}: present")
            continue
        if source.derived:
            say(
                f"{source.name}: not fetched: the data directory holds {source.derived}; the original is {source.url}"
            )
            continue
        _fetch_one(source, root, progress, deadline)
        written += len(source.files)
        say(f"{source.name}: {len(source.files)} file(s) verified in {root}")
    return written
