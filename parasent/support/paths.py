"""Where the shared data lives: ``--data-dir``, else ``$PARASENT_DATA``, else ``../shared/data``,
else what ``parasent data fetch`` downloaded (``$XDG_CACHE_HOME/parasent/data``).

One rule for every command: :func:`data_dir_location` is where the data is (or, before any is
there, where ``parasent data fetch`` puts it, the last place looked), and
:func:`resolve_data_dir` is that directory once it exists; ``data fetch`` and ``data list``
use the first, every reading command the second, so what ``fetch`` writes ``evaluate`` reads."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from parasent.errors import DataNotFoundError

ENV_VAR = "PARASENT_DATA"
CACHE_ENV_VAR = "PARASENT_CACHE"


def default_cache_dir() -> Path:
    """``$PARASENT_CACHE``, else ``$XDG_CACHE_HOME/parasent``, else ``~/.cache/parasent``."""
    if os.environ.get(CACHE_ENV_VAR):
        return Path(os.environ[CACHE_ENV_VAR]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "parasent"


def fetched_data_dir() -> Path:
    """Where ``parasent data fetch`` puts the data when neither --data-dir nor $PARASENT_DATA is set."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "parasent" / "data"


def default_data_candidates() -> list[Path]:
    """``shared/data`` beside the repository root (for a source checkout) and beside the cwd,
    then the fetched data."""
    repo_root = Path(__file__).resolve().parents[2]
    candidates = [
        repo_root.parent / "shared" / "data",
        Path.cwd().resolve().parent / "shared" / "data",
        fetched_data_dir(),
    ]
    unique: list[Path] = []
    for candidate in candidates:
        if candidate not in unique:
            unique.append(candidate)
    return unique


RULE = (
    f"${ENV_VAR}, else ../shared/data beside the checkout or the working directory, else "
    "~/.cache/parasent/data, where `parasent data fetch` puts it"
)


def data_dir_location(explicit: str | Path | None = None) -> Path:
    """The data directory by the one rule (module docstring), whether it exists yet or not."""
    if explicit is not None:
        return Path(explicit).expanduser()
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR]).expanduser()
    for candidate in default_data_candidates():
        if candidate.is_dir():
            return candidate
    return fetched_data_dir()


def resolve_data_dir(explicit: str | Path | None = None) -> Path:
    """The data directory to read, or a clear error saying how to point at one."""
    if explicit is not None:
        path = Path(explicit).expanduser()
        if not path.is_dir():
            raise DataNotFoundError(f"--data-dir {path}: not a directory")
        return path.resolve()
    from_env = os.environ.get(ENV_VAR)
    if from_env:
        path = Path(from_env).expanduser()
        if not path.is_dir():
            raise DataNotFoundError(f"${ENV_VAR}={from_env}: not a directory")
        return path.resolve()
    for candidate in default_data_candidates():
        if candidate.is_dir():
            return candidate
    looked = ", ".join(str(c) for c in default_data_candidates())
    raise DataNotFoundError(
        f"no data directory found (looked in {looked}); pass --data-dir DIR or set {ENV_VAR}=DIR "
        "to a folder laid out as described in the data MANIFEST (sts/, sick2014/, paraphrase/, ...), "
        f"or run `parasent data fetch` to download the public sets into {fetched_data_dir()}"
    )


# an absolute path inside a string: a '/' not preceded by a word character (so "and/or" and
# "sts2012/MSRvid" stay), up to whitespace or a separator a spec uses (FILE:FORMAT, lists)
_ABSOLUTE = re.compile(r"(?<![\w.~])/[^\s:,;()'\"<>|]+")


def portable_path(path: str | Path) -> str:
    """A path as a file written for others may record it: a relative path as it is, an absolute
    one relative to the working directory when it lies under it, else its name alone (where a
    file lay on one machine says nothing elsewhere, and may say what it should not)."""
    candidate = Path(path)
    if not candidate.is_absolute():
        return str(path)
    try:
        return str(candidate.relative_to(Path.cwd()))
    except ValueError:
        return candidate.name


def portable(value: Any) -> Any:
    """``value`` (JSON-like: dicts, lists, strings) with every absolute path inside its strings
    made :func:`portable_path`: what a model's metadata records of the run that made it."""
    if isinstance(value, str):
        return _ABSOLUTE.sub(lambda match: portable_path(match.group(0)), value)
    if isinstance(value, dict):
        return {key: portable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [portable(item) for item in value]
    return value


def holds(directory: str | Path, path: str | Path) -> bool:
    """Whether ``path`` (an existing file or directory; anything else, a shipped model's name, is
    not) is ``directory`` or lies inside it, links followed: an output written there with
    ``--overwrite`` would replace what the command reads."""
    where, what = Path(directory), Path(path)
    if not where.exists() or not what.exists():
        return False
    where, what = where.resolve(), what.resolve()
    return what == where or where in what.parents
