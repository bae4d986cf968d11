"""Directories written whole or not at all: a model is written into a sibling staging folder,
then swapped in by renames, so a reader (or a killed run) never sees a half-written model."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def staged_directory(path: str | Path) -> Iterator[Path]:
    """Yield an empty staging directory beside ``path``; on success it replaces ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
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


def ordinary_permissions(path: str | Path) -> None:
    """rw for the owner, readable by others (per the umask): safetensors creates files as 0600,
    but a model directory is meant to be shared like any other file."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(path, 0o666 & ~umask)
