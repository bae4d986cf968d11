"""Facts about files computed once: remembered by resolved path, size and modification time.

Hashing a teacher's weights or checking every weight of a 200 MB model for NaN costs a
fraction of a second; a command that loads the same file again (``parasent similarity`` in a
loop) should not pay it each time. Facts live in one small JSON file in the parasent cache
(``$PARASENT_CACHE``), written atomically; a file that changes (size or mtime) is checked again.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from parasent.errors import ParasentError
from parasent.support.paths import default_cache_dir
from parasent.support.regular_files import (
    check_regular_or_absent,
    read_regular_json,
)

MEMO_FILE = "file-memo.json"
MAX_ENTRIES = 10_000  # oldest dropped beyond this


def _key(path: Path, fact: str) -> str:
    stat = path.stat()
    return f"{fact}|{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"


def _read(memo_path: Path) -> dict:
    try:
        memo = read_regular_json(memo_path)
    except (OSError, ValueError, RecursionError, ParasentError):  # a FIFO or /dev/zero too: no memo
        return {}
    return memo if isinstance(memo, dict) else {}


def remembered(path: str | Path, fact: str, compute: Callable[[], str]) -> str:
    """``compute()`` for ``path`` (a string result), or the value remembered for the file as it is now.
    A ``compute`` that raises is not remembered."""
    path = Path(path)
    key = _key(path, fact)
    memo_path = default_cache_dir() / MEMO_FILE
    value = _read(memo_path).get(key)
    if isinstance(value, str):
        return value
    value = compute()
    memo = _read(memo_path)  # again: another process may have added facts meanwhile
    memo[key] = value
    if len(memo) > MAX_ENTRIES:
        memo = dict(list(memo.items())[-MAX_ENTRIES:])
    try:
        from parasent.support.staging import write_text_atomic

        memo_path.parent.mkdir(parents=True, exist_ok=True)
        check_regular_or_absent(memo_path)  # a FIFO or a device is not written into
        write_text_atomic(memo_path, json.dumps(memo))
    except (OSError, ParasentError):
        pass  # a read-only cache (or one that is no file): computed again next time
    return value
