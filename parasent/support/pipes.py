"""Named pipes a user names as input files (``--pairs <(zcat pairs.tsv.gz)``), read once.

A pipe can be read once, and some files are read more than once (a pairs file's format is
sniffed from its first lines, then the file is read): the first open copies the pipe into a file
of this process, and every later open of the same pipe (its device and inode: a ``/dev/fd/63``
of a later command is another pipe) reads that copy. A pipe a shell made (``<(cmd)``: a
``/dev/fd`` or ``/proc`` path) has its writer already, however slowly ``cmd`` starts to write,
and is waited on; a named pipe in the file system that nothing writes to is an error after
:data:`PIPE_WAIT_S` seconds, never a hang (it is opened without waiting for a writer, then
polled). A named pipe given twice in one process reads the first copy again.
"""

from __future__ import annotations

import os
import select
import stat
import tempfile
from pathlib import Path

from parasent.errors import SpecialFileError

PIPE_WAIT_S = 5.0  # seconds a named pipe may stay silent before it is refused
_COPIES: dict[str, Path] = {}
_FOLDER: list[tempfile.TemporaryDirectory] = []  # removed when the process ends


def is_pipe(path: str | Path) -> bool:
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        return False


def pipe_copy(path: str | Path) -> Path:
    """The file holding what the named pipe ``path`` gave (read now, the first time)."""
    status = os.stat(path)
    key = f"{status.st_dev}:{status.st_ino}"
    if key in _COPIES:
        return _COPIES[key]
    if not hasattr(select, "poll"):
        raise SpecialFileError(f"{path}: a FIFO (named pipe); this system reads one only on stdin ('-')")
    handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        poller = select.poll()
        poller.register(handle, select.POLLIN | select.POLLHUP)
        made_by_shell = str(path).startswith(("/dev/fd/", "/proc/"))  # <(cmd): its writer exists
        if not poller.poll(None if made_by_shell else PIPE_WAIT_S * 1000):
            raise SpecialFileError(
                f"{path}: a FIFO (named pipe) that nothing wrote to within {PIPE_WAIT_S:g} s"
            )
        os.set_blocking(handle, True)
        copy = _folder() / f"pipe-{len(_COPIES)}"
        with open(copy, "xb") as out:
            while block := os.read(handle, 1 << 20):
                out.write(block)
    finally:
        os.close(handle)
    _COPIES[key] = copy
    return copy


def _folder() -> Path:
    if not _FOLDER:
        _FOLDER.append(tempfile.TemporaryDirectory(prefix="parasent-pipes-"))
    return Path(_FOLDER[0].name)
