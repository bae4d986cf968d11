"""Directories and files written whole or not at all.

A model is written into a sibling staging folder ``.NAME.tmp-PID``, then swapped in by two
renames (``NAME`` -> ``.NAME.old-PID``, staging -> ``NAME``), so a reader never sees a
half-written model. A process killed between the two renames leaves no ``NAME`` at all: the
complete new model is still in its staging folder (the first rename happens only once it is
written) and the previous one in ``.old-PID``. :func:`recover_directory` puts the new one
in place; loading a model and starting a run call it, and every successful write removes
the leftovers of dead writers. A single file (``encode -o``, a JSON report) is written to
``.NAME.tmp-PID`` beside it and renamed over it at the end (:func:`atomic_file`).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from parasent.errors import ParasentError


class DirectoryInUseError(ParasentError):
    """A write would replace a file, or a directory that holds something else than its kind."""


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, owned by someone else
        return True
    except OSError:
        return False
    return True


def _leftovers(path: Path) -> list[tuple[str, int, Path]]:
    """``(kind, pid, path)`` of the staging (``tmp``) and previous (``old``) siblings of ``path``."""
    pattern = re.compile(rf"^\.{re.escape(path.name)}\.(tmp|old)-(\d+)$")
    found = []
    try:
        siblings = list(path.parent.iterdir())
    except OSError:
        return []
    for sibling in siblings:
        match = pattern.match(sibling.name)
        if match:
            found.append((match.group(1), int(match.group(2)), sibling))
    return found


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def recover_directory(path: str | Path) -> bool:
    """Restore ``path`` if a writer was killed between the two renames of its swap.

    The new version (a staging folder whose writer also left an ``.old``) is complete, so it
    wins; without it, the previous version comes back. Leftovers of live writers are left
    alone. Returns whether something was restored.
    """
    path = Path(path)
    if path.exists():
        return False
    dead = [(kind, pid, p) for kind, pid, p in _leftovers(path) if not _pid_alive(pid)]
    swapped = sorted(
        ((p.stat().st_mtime, pid, p) for kind, pid, p in dead if kind == "old"),
        reverse=True,
    )
    for _, pid, old in swapped:
        staging = old.with_name(f".{path.name}.tmp-{pid}")
        try:
            (staging if staging.is_dir() else old).rename(path)
        except OSError:
            continue
        return True
    return False


def clean_leftovers(path: str | Path) -> None:
    """Remove the staging and previous-version siblings of ``path`` left by dead writers."""
    for _, pid, leftover in _leftovers(Path(path)):
        if not _pid_alive(pid):
            _remove(leftover)


@contextmanager
def staged_directory(
    path: str | Path, *, markers: tuple[str, ...] = (), overwrite: bool = True
) -> Iterator[Path]:
    """Yield an empty staging directory beside ``path``; on success it replaces ``path``.

    ``path`` must be a directory or absent: a plain file there is never replaced. Without
    ``overwrite``, a non-empty directory is replaced only if it holds one of ``markers``
    (the files that make it a directory of the kind being written, e.g. a model's config).
    """
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise DirectoryInUseError(f"{path}: exists and is not a directory; not replacing it")
    if not overwrite and path.is_dir() and any(path.iterdir()):
        if not any((path / marker).exists() for marker in markers):
            raise DirectoryInUseError(
                f"{path}: a non-empty directory that is not a model directory; not replacing it "
                "(choose another path)"
            )
    path.parent.mkdir(parents=True, exist_ok=True)
    recover_directory(path)
    staging = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir()
    try:
        yield staging
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    old = path.with_name(f".{path.name}.old-{os.getpid()}")
    if path.exists():
        path.rename(old)
    staging.rename(path)
    if old.exists():
        shutil.rmtree(old)
    clean_leftovers(path)


@contextmanager
def atomic_file(path: str | Path, mode: str = "w", **open_kwargs) -> Iterator[IO]:
    """Open a temporary file beside ``path``; on success it replaces ``path``, on failure (or a
    kill) the previous ``path`` is untouched. The file keeps the permissions of a new file."""
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(21, "is a directory", str(path))
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    handle = open(tmp, mode, **open_kwargs)
    try:
        with handle:
            yield handle
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    tmp.replace(path)
    clean_leftovers(path)


def write_text_atomic(path: str | Path, text: str) -> None:
    """``Path.write_text``, written whole or not at all."""
    with atomic_file(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def ordinary_permissions(path: str | Path) -> None:
    """rw for the owner, readable by others (per the umask): safetensors creates files as 0600,
    but a model directory is meant to be shared like any other file."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(path, 0o666 & ~umask)
