"""Archives read as untrusted input: the one extraction of ``data fetch`` and the teacher's parts.

A zip or tar member named ``../../X`` or ``/etc/X``, a symbolic link or a device member, would
write outside the folder it is extracted into ("zip-slip"); a member of a few kilobytes can
expand to gigabytes (a "zip bomb"). So an archive is opened by :func:`open_archive`, which
checks *every* member before a byte is written (a relative name without ``..``, ``\\`` or a
drive, a regular file or a folder), and a member is copied to disk in blocks by
:meth:`Archive.copy`, which counts what it writes against an :class:`ExpansionBudget` (the
bytes the record declares the archive expands to) instead of trusting the sizes the archive
states. Nothing is read whole into memory.
"""

from __future__ import annotations

import lzma
import re
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Any

from parasent.errors import ArchiveError

BLOCK = 1 << 20  # bytes per read while copying a member
MAX_MEMBERS = 10_000  # the largest archive of a source (movie reviews) holds about 2,000; each header listed costs memory
# what reading a damaged, exotic or hostile archive raises: each is one line naming it
_UNREADABLE = (
    zipfile.BadZipFile, tarfile.TarError, zlib.error, lzma.LZMAError, EOFError, OSError,
    NotImplementedError, RuntimeError,  # a zip's unsupported method; an encrypted member
)  # fmt: skip
_DRIVE = re.compile(r"^[A-Za-z]:")


def safe_member_name(archive: Path, name: str) -> str:
    """``name`` as a relative POSIX path (``a/./b`` -> ``a/b``; the archive's top folder ``./``
    is ``""``); :class:`ArchiveError` for an absolute name, a drive, a backslash, a NUL or a
    ``..`` part: names that could leave the folder the member is extracted into."""
    if name.startswith("/") or _DRIVE.match(name) or "\\" in name or "\0" in name:
        raise ArchiveError(
            f"{archive}: unsafe member name {name!r} (absolute, or not a POSIX path); not extracting it"
        )
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise ArchiveError(f"{archive}: unsafe member name {name!r} (leaves its folder); not extracting it")
    return "/".join(parts)


@dataclass
class ExpansionBudget:
    """The bytes an archive may still write, all members together (declared by its record)."""

    limit: int
    used: int = 0

    def spend(self, archive: Path, member: str, size: int) -> None:
        self.used += size
        if self.used > self.limit:
            raise ArchiveError(
                f"{archive}: member {member!r} expands beyond the {self.limit} bytes this archive "
                f"may hold in all; not extracting it (a damaged or hostile archive)"
            )


@dataclass
class Archive:
    """An opened zip or tar whose members were all checked: ``members`` are its regular files
    by safe name; nothing else (folders) is listed."""

    path: Path
    members: dict[str, Any]  # safe name -> its entry (a ZipInfo, a TarInfo)
    _open_member: Callable[[Any], IO[bytes]] = field(repr=False)

    def under(self, prefix: str) -> Iterator[tuple[str, str]]:
        """``(name, name relative to prefix)`` of the members inside folder ``prefix``."""
        folder = PurePosixPath(safe_member_name(self.path, prefix) or ".")
        for name in self.members:
            path = PurePosixPath(name)
            if folder in path.parents:
                yield name, path.relative_to(folder).as_posix()

    def copy(self, name: str, destination: Path, budget: ExpansionBudget) -> None:
        """Stream member ``name`` into ``destination`` (a new file), counting every byte."""
        destination.parent.mkdir(parents=True, exist_ok=True)
        with (
            self._read(name, self._open_member, self.members[name]) as source,
            open(destination, "xb") as sink,
        ):
            while block := self._read(name, source.read, BLOCK):
                budget.spend(self.path, name, len(block))
                sink.write(block)

    def _read(self, name: str, call: Callable, *args: object):
        """``call(*args)`` on the archive's side: a damaged member is one line, not a traceback
        (a write to disk is not in here, so a full disk still says so)."""
        try:
            return call(*args)
        except _UNREADABLE as exc:
            raise ArchiveError(
                f"{self.path}: member {name!r} cannot be read ({exc or type(exc).__name__})"
            ) from None


def _zip_members(archive: Path, handle: zipfile.ZipFile) -> dict[str, Any]:
    members: dict[str, Any] = {}
    if len(handle.infolist()) > MAX_MEMBERS:
        raise ArchiveError(f"{archive}: more than {MAX_MEMBERS} members; not extracting it")
    for info in handle.infolist():
        kind = info.external_attr >> 16  # the Unix mode, when the zip was made on Unix
        if stat.S_IFMT(kind) and not (stat.S_ISREG(kind) or stat.S_ISDIR(kind)):
            raise ArchiveError(
                f"{archive}: member {info.filename!r} is a link or a device; not extracting it"
            )
        name = safe_member_name(archive, info.filename)
        if name and not info.is_dir():
            members[name] = info
    return members


def _tar_members(archive: Path, handle: tarfile.TarFile) -> dict[str, Any]:
    """The regular members by safe name, read header by header (at most :data:`MAX_MEMBERS`:
    each header read stays in memory); a later entry of a name replaces an earlier one."""
    members: dict[str, Any] = {}
    for count, info in enumerate(handle, 1):
        if count > MAX_MEMBERS:
            raise ArchiveError(f"{archive}: more than {MAX_MEMBERS} members; not extracting it")
        if not (info.isfile() or info.isdir()):
            raise ArchiveError(f"{archive}: member {info.name!r} is a link or a device; not extracting it")
        name = safe_member_name(archive, info.name)
        if info.isfile() and name:
            members[name] = info
        else:
            members.pop(name, None)  # a folder of that name after a file: no file there
    return members


def _tar_opener(handle: tarfile.TarFile) -> Callable[[Any], IO[bytes]]:
    def open_member(info: tarfile.TarInfo) -> IO[bytes]:
        member = handle.extractfile(info)  # the header listed, not the last entry of its name
        if member is None:
            raise tarfile.TarError(f"{info.name!r} is not a regular file")
        return member

    return open_member


@contextmanager
def open_archive(path: Path) -> Iterator[Archive]:
    """The checked archive at ``path`` (zip or tar, compressed or not); :class:`ArchiveError`
    for a file that is neither, and says so when it is a web page."""
    handle, archive = _checked(path)
    with handle:
        yield archive  # the caller's errors (a full disk) pass through as they are


def _checked(path: Path) -> tuple[zipfile.ZipFile | tarfile.TarFile, Archive]:
    try:
        if zipfile.is_zipfile(path):
            zipped = zipfile.ZipFile(path)
            return zipped, _listed(zipped, lambda: Archive(path, _zip_members(path, zipped), zipped.open))
        if tarfile.is_tarfile(path):
            tarred = tarfile.open(path)
            return tarred, _listed(
                tarred, lambda: Archive(path, _tar_members(path, tarred), _tar_opener(tarred))
            )
    except _UNREADABLE as exc:  # a bad gzip or xz layer too
        raise ArchiveError(f"{path}: a damaged archive ({exc or type(exc).__name__})") from None
    raise ArchiveError(f"{path}: neither a zip nor a tar archive{_what_instead(path)}")


def _listed(handle: zipfile.ZipFile | tarfile.TarFile, make: Callable[[], Archive]) -> Archive:
    """``make()``, closing ``handle`` if it refuses the archive."""
    try:
        return make()
    except BaseException:
        handle.close()
        raise


def _what_instead(path: Path) -> str:
    with open(path, "rb") as handle:
        head = handle.read(512).lstrip().lower()
    if head.startswith((b"<!doctype html", b"<html", b"<?xml", b"<head")):
        return " but a web page (the server sent an error or login page)"
    return " (a truncated or damaged download?)"
