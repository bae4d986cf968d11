"""One process at a time in a run directory.

Two ``parasent train`` runs into the same ``--out`` would each replace the other's model and
interleave their logs. A run holds an exclusive ``flock`` on ``RUN/.lock`` while it writes;
the file names the holder (pid, host, start time, command), so the second run fails at once
with a message saying who has the directory. The kernel drops the lock when its process dies
(even by ``kill -9``), so a stale lock file left by a dead run never blocks the next one.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from parasent.errors import ParasentError, RunLockedError
from parasent.support.regular_files import MAX_RECORD_BYTES, check_regular_or_absent, read_regular_text

LOCK_FILE = ".lock"
_HELD: dict[Path, str] = {}  # directories this process holds, and their run ids (the lock is re-entrant)


def new_run_id() -> str:
    """A short id that tells apart the records of different runs in one log."""
    return f"{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{uuid.uuid4().hex[:6]}"


COMMAND_CHARS = 200  # of the holder's command line, kept in the lock file


def command_line(argv: list[str]) -> str:
    """The holder's command as typed (its program's name, not its path), cut with "..." where
    long: six words left a user unsure whether the run in their way was theirs."""
    program = "python -m parasent" if argv and Path(argv[0]).name == "__main__.py" else None
    line = " ".join([program or Path(argv[0]).name, *argv[1:]]) if argv else "?"
    return line if len(line) <= COMMAND_CHARS else line[: COMMAND_CHARS - 3] + "..."


def _holder(path: Path) -> str:
    try:
        info = json.loads(read_regular_text(path, max_bytes=MAX_RECORD_BYTES) or "{}")
        return (
            f"pid {info.get('pid')} on {info.get('host')}, running since {info.get('started')} "
            f"({info.get('command', '?')})"
        )
    except (OSError, ValueError, AttributeError, ParasentError):
        return "another process"


@contextmanager
def run_lock(directory: str | Path, run_id: str | None = None) -> Iterator[str]:
    """Hold the lock of ``directory`` (created if missing) for the body; yields the run id. A
    directory this lock created is removed again when the body fails before writing into it (a
    run refused at its first stage leaves no empty run directory behind)."""
    directory = Path(directory)
    created = not directory.exists()
    directory.mkdir(parents=True, exist_ok=True)
    key = directory.resolve()
    if key in _HELD:  # already ours (a run that locks early, then its trainer)
        yield _HELD[key]
        return
    run_id = run_id or new_run_id()
    if int(os.environ.get("WORLD_SIZE", "1")) > 1 and int(os.environ.get("RANK", "0")) != 0:
        yield run_id  # under torchrun, rank 0 is the one writer and holds the lock for all ranks
        return
    path = directory / LOCK_FILE
    try:
        import fcntl
    except ImportError:  # no flock on this platform: run unlocked
        yield run_id
        return
    check_regular_or_absent(path)  # a FIFO there would take the holder's line and block
    handle = open(path, "a+", encoding="utf-8")
    try:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RunLockedError(
                f"{directory}: in use by another parasent run ({_holder(path)}); wait for it to "
                "finish or choose another directory"
            ) from None
        info = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "run": run_id,
            "command": command_line(sys.argv),
        }
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps(info) + "\n")
        handle.flush()
        _HELD[key] = run_id
        try:
            yield run_id
        except BaseException:
            if created and {entry.name for entry in os.scandir(directory)} == {LOCK_FILE}:
                path.unlink()  # still holding the lock: nobody else has written here
                directory.rmdir()
            raise
        finally:
            del _HELD[key]
    finally:
        handle.close()  # closing releases the lock
