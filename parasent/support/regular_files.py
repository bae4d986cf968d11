"""Files from untrusted places, checked before they are opened.

A path that names a FIFO blocks the process that opens it until a writer appears; one linked to
``/dev/zero`` or ``/dev/urandom`` reads without end. So every file a model directory names, and
every data file given on the command line, is checked to be a regular file (following links)
within its size cap before it is opened; a file meant as a stream (``encode``'s input) may be a
pipe. The files of a run directory (logs, settings, results, checkpoints, the lock) and of the
teacher cache follow the same rules (:func:`read_regular_text`, :func:`check_regular_or_absent`):
a run directory may be shared, copied or damaged like any other input. Errors name the path and
say what it is.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, BinaryIO

from parasent.errors import ParasentError, SpecialFileError

MAX_RECORD_BYTES = 16 << 20  # a run's JSON files (settings, results, a lock's holder): a few KB
MAX_LOG_BYTES = 256 << 20  # a run log (log.jsonl, runs.jsonl): a line per epoch, per run

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def what_it_is(mode: int) -> str:
    """``"a FIFO (named pipe)"``, ``"a character device"``, ... for a ``st_mode``."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def regular_size(path: str | Path, *, max_bytes: int | None = None, stream_ok: bool = False) -> int:
    """The size of regular file ``path``; raise :class:`SpecialFileError` for anything else (a
    pipe too, unless ``stream_ok``) or a file over ``max_bytes``. A missing path raises
    ``FileNotFoundError`` (callers say what was missing)."""
    mode_size = os.stat(path)
    if not stat.S_ISREG(mode_size.st_mode):
        if stream_ok and stat.S_ISFIFO(mode_size.st_mode):
            return 0
        raise SpecialFileError(f"{path}: {what_it_is(mode_size.st_mode)}, not a regular file; not reading it")
    if max_bytes is not None and mode_size.st_size > max_bytes:
        raise SpecialFileError(
            f"{path}: {mode_size.st_size} bytes, more than the {max_bytes} such a file may have; not reading it"
        )
    return mode_size.st_size


def is_regular(path: str | Path) -> bool:
    """Whether ``path`` (following links) is a regular file: unlike ``Path.is_file`` this is
    the test to make before opening, and :func:`regular_size` says why not."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def exists(path: str | Path) -> bool:
    """Whether anything is at ``path`` (a FIFO or a device too)."""
    try:
        os.stat(path)
    except (OSError, ValueError):
        return False
    return True


def open_regular(path: str | Path, *, max_bytes: int | None = None) -> BinaryIO:
    """Regular file ``path`` (of at most ``max_bytes``) open for reading, opened without
    blocking and checked again once open (the path may change between the check and the open)."""
    regular_size(path, max_bytes=max_bytes)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    handle = os.fdopen(fd, "rb")
    opened = os.fstat(handle.fileno())
    if not stat.S_ISREG(opened.st_mode):
        handle.close()
        raise SpecialFileError(f"{path}: {what_it_is(opened.st_mode)}, not a regular file; not reading it")
    return handle


def read_regular(path: str | Path, *, max_bytes: int) -> bytes:
    """The bytes of regular file ``path`` of at most ``max_bytes`` (see :func:`open_regular`)."""
    with open_regular(path, max_bytes=max_bytes) as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise SpecialFileError(
            f"{path}: more than the {max_bytes} bytes such a file may have; not reading it"
        )
    return data


def sha256_of(path: str | Path, *, copy_to: str | Path | None = None) -> str:
    """The sha256 of regular file ``path`` (see :func:`open_regular`), read a block at a time;
    with ``copy_to``, the bytes are copied there as they are hashed (:func:`copy_regular`)."""
    digest = hashlib.sha256()
    with open_regular(path) as reading, contextlib.ExitStack() as stack:
        writing = stack.enter_context(open(copy_to, "wb")) if copy_to is not None else None
        for block in iter(lambda: reading.read(1 << 20), b""):
            digest.update(block)
            if writing is not None:
                writing.write(block)
    return digest.hexdigest()


def files_sha256(
    root: str | Path, paths: Iterable[Path], *, sha256: Callable[[Path], str] | None = None
) -> str:
    """One digest of several files (a corpus folder's 2,000 files, a teacher's folder): the
    sha256 of their sorted ``relative-path  sha256`` lines, paths relative to ``root``. The data
    registry records it and a fetch checks it; the teacher caches are named by it. ``sha256``:
    each file's digest (default :func:`sha256_of`; the teacher's is remembered per version)."""
    root = Path(root)
    of = sha256 if sha256 is not None else sha256_of
    lines = [f"{p.relative_to(root).as_posix()}  {of(p)}\n" for p in sorted(paths)]
    return hashlib.sha256("".join(lines).encode()).hexdigest()


def copy_regular(source: str | Path, target: str | Path) -> str:
    """Copy regular file ``source`` to ``target`` a block at a time, returning the sha256 of the
    bytes copied: a copy whose hash is not the one expected can be told, and memory holds one
    block, whatever the file."""
    return sha256_of(source, copy_to=target)


def read_regular_text(path: str | Path, *, max_bytes: int) -> str:
    """The UTF-8 text of regular file ``path`` of at most ``max_bytes`` (:func:`read_regular`)."""
    data = read_regular(path, max_bytes=max_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParasentError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def check_regular_or_absent(path: str | Path) -> None:
    """Before a file is created or appended to: nothing is there, or a regular file (opening a
    FIFO to write blocks until a reader comes; a device would take the bytes)."""
    if exists(path):
        regular_size(path)


def read_regular_json(path: str | Path, *, max_bytes: int = MAX_RECORD_BYTES) -> Any:
    """The JSON of regular file ``path`` of at most ``max_bytes``, its UTF-8 text read whole
    (:func:`read_regular_text`) and parsed: a run's records, a lock's holder, a memo. What a
    malformed one means is the caller's to say (``json.JSONDecodeError`` is raised as it is)."""
    return json.loads(read_regular_text(path, max_bytes=max_bytes))
