"""Directories and files written whole or not at all.

A model is written into a sibling staging folder ``.NAME.tmp-PID``, then swapped in by two
renames (``NAME`` -> ``.NAME.old-PID``, staging -> ``NAME``), so a reader never sees a
half-written model. A process killed between the two renames leaves no ``NAME`` at all: the
complete new model is still in its staging folder (the first rename happens only once it is
written) and the previous one in ``.old-PID``. :func:`recover_directory` puts the new one
in place; loading a model and starting a run call it, and every successful write removes
the leftovers of dead writers. A single file (``encode -o``, a JSON report, a checkpoint) is
written to ``.NAME.tmp-PID`` beside it and renamed over it at the end (:func:`staged_file`,
:func:`atomic_file`): every write-then-rename of the package goes through these two, so each
temporary name carries the writer's process id (two processes writing one target never share a
temporary file) and each file is on the disk (``fsync``) before its rename, the directory after
it (a power loss leaves the previous version or the new one, never an empty file).

A write claims what it checked: a target that was absent is claimed without replacing
(``renameat2(RENAME_NOREPLACE)``, else ``link``), so of two writers racing to a new target the
second gets :class:`~parasent.errors.OutputExistsError` instead of silently replacing the first
one's result; a directory that was there is replaced only if it is still the one checked.
``overwrite`` lets a write replace whatever it finds. SIGINT and SIGTERM wait until the renames
are done.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import json
import os
import re
import shutil
import signal
import stat
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from parasent.errors import DirectoryInUseError, DiskFullError, OutputExistsError
from parasent.support.path_names import native_path


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


# -- claiming a name, on the disk before the rename ----------------------------------------

_AT_FDCWD = -100
_RENAME_NOREPLACE = 1
# errno of a renameat2 that this kernel or filesystem does not offer (the fallback is used)
_NO_RENAMEAT2 = {errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP}
# errno of a rename or link that found something at its target
_TAKEN = {errno.EEXIST, errno.ENOTEMPTY, errno.ENOTDIR, errno.EISDIR}


@functools.cache
def _renameat2():
    """libc's ``renameat2`` (Linux, glibc 2.28+), or None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    function.restype = ctypes.c_int
    return function


def _taken(target: Path) -> FileExistsError:
    return FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(target))


def rename_no_replace(source: str | Path, target: str | Path) -> None:
    """Rename ``source`` to ``target`` if nothing is at ``target``, else raise ``FileExistsError``
    and leave both as they are: one atomic ``renameat2(RENAME_NOREPLACE)`` where the kernel and
    the filesystem offer it, else ``link`` + ``unlink`` for a file (the link fails if the name is
    taken) and, for a directory, a rename that the kernel refuses onto a non-empty directory."""
    source, target = Path(source), Path(target)
    if _renameat2_no_replace(source, target) or _link_no_replace(source, target):
        return
    if os.path.lexists(target):
        raise _taken(target)
    try:
        os.rename(source, target)
    except OSError as exc:
        if exc.errno in _TAKEN:
            raise _taken(target) from None
        raise


def _renameat2_no_replace(source: Path, target: Path) -> bool:
    """Whether ``renameat2`` renamed (False: not offered here)."""
    function = _renameat2()
    if function is None:
        return False
    if function(_AT_FDCWD, os.fsencode(source), _AT_FDCWD, os.fsencode(target), _RENAME_NOREPLACE) == 0:
        return True
    code = ctypes.get_errno()
    if code == errno.EEXIST:
        raise _taken(target)
    if code not in _NO_RENAMEAT2:
        raise OSError(code, os.strerror(code), str(source), None, str(target))
    return False


def _link_no_replace(source: Path, target: Path) -> bool:
    """Whether a file was moved by ``link`` + ``unlink`` (False: a directory, or no hard links here)."""
    if source.is_dir() and not source.is_symlink():
        return False
    try:
        os.link(source, target, follow_symlinks=False)
    except FileExistsError:
        raise _taken(target) from None
    except OSError as exc:  # a filesystem without hard links
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
            raise
        return False
    os.unlink(source)
    return True


def _identity(path: Path) -> tuple[int, int] | None:
    """``(device, inode)`` of what is at ``path`` (not following a last link), or None."""
    try:
        found = path.lstat()
    except OSError:
        return None
    return found.st_dev, found.st_ino


def fsync_file(path: str | Path) -> None:
    """Put the bytes of the file at ``path`` on the disk (a filesystem that cannot is passed)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
            raise
    finally:
        os.close(fd)


def fsync_directory(path: str | Path) -> None:
    """Put the entries of directory ``path`` (a rename into it) on the disk, where the platform can."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _fsync_tree(root: Path) -> None:
    """Every file and folder under ``root`` on the disk, before ``root`` is renamed into place."""
    for folder, _, files in os.walk(root):
        for name in files:
            path = Path(folder) / name
            if _is_regular(path):
                fsync_file(path)
        fsync_directory(folder)


@contextmanager
def signals_deferred() -> Iterator[None]:
    """SIGINT and SIGTERM that arrive inside wait until it ends, then take effect as usual: the
    renames of a commit are never cut in half (only the main thread receives Python's signals)."""
    signums = (signal.SIGINT, signal.SIGTERM)
    if threading.current_thread() is not threading.main_thread() or any(
        signal.getsignal(signum) is None
        for signum in signums  # a handler Python cannot put back
    ):
        yield
        return
    pending: list[int] = []
    previous = {}
    for signum in signums:
        previous[signum] = signal.signal(signum, lambda number, _frame: pending.append(number))
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for signum in pending[:1]:
            signal.raise_signal(signum)


def exists_error(path: Path, *, directory: bool = False) -> OutputExistsError:
    """The one line of a write whose target another writer took while it ran."""
    what = "directory" if directory else "file"
    return OutputExistsError(
        f"{path}: exists (another process wrote this {what} while this one ran); "
        "not replacing it (pass --overwrite to replace it)"
    )


# The files and folders a model directory of parasent, sentence-transformers or model2vec
# holds (what their writers write, and what a copy from the Hugging Face Hub brings). A save
# replaces a directory without ``overwrite`` only if it is recognisably a model and holds
# nothing else: whatever else is there is the user's, and is listed in the refusal.
MODEL_FILES = frozenset(
    {
        "config.json",
        "model.safetensors",
        "tokenizer.json",
        "vocabulary.safetensors",  # the stored word vocabulary (text/vocabulary_index.py)
        "README.md",
        "head.json",
        "head.safetensors",
        "modules.json",
        "config_sentence_transformers.json",
        "sentence_bert_config.json",
        "tokenizer_config.json",
        "special_tokens_map.json",
        "added_tokens.json",
        "vocab.txt",
        "vocab.json",
        "merges.txt",
        "tokenizer.model",
        "sentencepiece.bpe.model",
        ".gitattributes",
        "parasent_module.json",  # the settings of parasent's sentence-transformers module (core/model_formats/export.py)
    }
)
MODULE_FOLDER = re.compile(r"^\d+_[A-Za-z][A-Za-z0-9_]*$")  # sentence-transformers modules: 1_Normalize
_MARKER_BYTES = 1 << 20  # a model's config.json / modules.json is a few KB


def _is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False


def _json_of(path: Path) -> object:
    """The JSON of a small regular file, or None (a FIFO or device is never opened)."""
    if not _is_regular(path) or path.stat().st_size > _MARKER_BYTES:
        return None
    try:
        return json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return None


def _is_model(path: Path) -> bool:
    """A parasent config (encoder + tokenizer), a model2vec config, or a sentence-transformers module list."""
    config = _json_of(path / "config.json")
    if isinstance(config, dict) and (
        {"encoder", "tokenizer"} <= config.keys() or config.get("model_type") == "model2vec"
    ):
        return True
    return isinstance(_json_of(path / "modules.json"), list)


def foreign_entries(path: str | Path) -> list[str]:
    """What in directory ``path`` is not a model's: every entry, unless it is recognisably a
    model directory; then the entries that are not model files (a module folder may hold model
    files only). Empty for an empty directory or a model directory that holds only its files."""
    path = Path(path)
    entries = sorted(path.iterdir())
    if entries and not _is_model(path):
        return [entry.name + ("/" if entry.is_dir() else "") for entry in entries]
    foreign = []
    for entry in entries:
        if entry.name in MODEL_FILES and _is_regular(entry):
            continue
        if MODULE_FOLDER.match(entry.name) and entry.is_dir() and not entry.is_symlink():
            inside = [f"{entry.name}/{e.name}" for e in sorted(entry.iterdir())]
            foreign += [
                name
                for name in inside
                if not (name.split("/")[1] in MODEL_FILES and _is_regular(path / name))
            ]
            continue
        foreign.append(entry.name + ("/" if entry.is_dir() else ""))
    return foreign


def _listing(names: list[str], limit: int = 8) -> str:
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


def resolve_target(path: str | Path) -> Path:
    """The directory a write to ``path`` replaces: ``path`` itself, or the directory its symbolic
    link names (the link stays, pointing to the new version); a link to nothing is refused."""
    path = Path(path)
    if not path.is_symlink():
        return path
    try:
        target = path.resolve()
    except (OSError, RuntimeError):  # a loop of links (RuntimeError before Python 3.13)
        raise DirectoryInUseError(f"{path}: a loop of symbolic links; not writing through it") from None
    if not target.exists():
        raise DirectoryInUseError(
            f"{path}: a symbolic link to {target}, which does not exist; not writing through it "
            "(remove the link or create its target)"
        )
    return target


def check_replaceable(
    path: Path, *, model: bool, overwrite: bool, owns: Callable[[str], bool] | None = None
) -> None:
    """Refuse to replace a plain file, or (``model`` writes, without ``overwrite``) a directory
    that holds anything but a model's files, or (a write of another kind, without ``overwrite``)
    a directory holding an entry that ``owns`` does not recognise as one of that kind's: an
    index or a prepared data set is written over its own earlier version, never over a
    folder of someone's files."""
    if path.exists() and not path.is_dir():
        raise DirectoryInUseError(f"{path}: exists and is not a directory; not replacing it")
    if owns is not None and not overwrite and path.is_dir():
        foreign = sorted(entry for entry in os.listdir(path) if not owns(entry))
        if foreign:
            raise DirectoryInUseError(
                f"{path}: holds files that are not this kind of directory's ({_listing(foreign)}); "
                "not replacing it (choose another path, or pass --overwrite)"
            )
    if model and not overwrite and path.is_dir():
        foreign = foreign_entries(path)
        if foreign:
            raise DirectoryInUseError(
                f"{path}: holds files that are not a parasent, sentence-transformers or model2vec "
                f"model's ({_listing(foreign)}); not replacing it (choose another path)"
            )


def _check_writable(parent: Path) -> None:
    if not os.access(parent, os.W_OK | os.X_OK):
        raise DirectoryInUseError(
            f"{parent}: not writable (a model is written beside its final path, then renamed)"
        )


@contextmanager
def staged_directory(
    path: str | Path,
    *,
    model: bool = False,
    overwrite: bool = True,
    needs_bytes: int | None = None,
    owns: Callable[[str], bool] | None = None,
) -> Iterator[Path]:
    """Yield an empty staging directory beside ``path``; on success it replaces ``path``.

    ``path`` must be a directory or absent (a symbolic link is followed to its directory): a
    plain file there is never replaced. A ``model`` write without ``overwrite`` replaces a
    non-empty directory only if it is a model directory holding model files alone
    (:func:`foreign_entries`); with ``owns`` (the entries a directory of the writer's kind
    holds), any write without ``overwrite`` replaces only such a directory. Without ``overwrite`` the write replaces only what it checked
    here: an absent ``path`` is claimed without replacing, an existing one only if it is still
    the same directory (:func:`exists_error` otherwise). A full disk is one
    :class:`DiskFullError` naming ``path`` and ``needs_bytes`` (what the caller expects to
    write), the previous version untouched.
    """
    given, path = Path(path), resolve_target(path)
    try:
        check_replaceable(path, model=model, overwrite=overwrite, owns=owns)
    except DirectoryInUseError as exc:
        if path == given:
            raise
        raise DirectoryInUseError(f"{given} -> {exc}") from None  # the link, and where it points
    native_path(path)  # the files inside are written by libraries that take UTF-8 names
    path.parent.mkdir(parents=True, exist_ok=True)
    _check_writable(path.parent)
    recover_directory(path)
    staging = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    if staging.exists():
        shutil.rmtree(staging)
    with _pinned(path) as checked:
        staging.mkdir()
        try:
            yield staging
            _fsync_tree(staging)
        except BaseException as exc:
            shutil.rmtree(staging, ignore_errors=True)
            if is_disk_full(exc):
                raise disk_full(path, needs_bytes, exc) from None
            raise
        with signals_deferred():
            _swap_in(staging, path, None if overwrite else checked, replace_any=overwrite)
    clean_leftovers(path)


@contextmanager
def _pinned(path: Path) -> Iterator[tuple[int, int] | None]:
    """The identity (device, inode) of directory ``path`` as checked, or None when absent. An
    open descriptor holds the inode while the write runs, so that a directory another writer
    puts there meanwhile cannot reuse its number and pass for the one checked."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        yield None
        return
    try:
        found = os.fstat(fd)
        yield found.st_dev, found.st_ino
    finally:
        os.close(fd)


def swap_in_directory(staging: str | Path, path: str | Path) -> None:
    """A finished directory ``staging`` in place of ``path`` (whatever version is there, by two
    renames, the second never replacing: a directory another writer put there meanwhile
    stays, and this write fails), signals deferred between the renames, the leftovers of killed
    swaps cleaned: what :func:`staged_directory` does at its end, for a caller that staged its
    directory itself (``parasent data fetch``: a verified folder of the data directory)."""
    with signals_deferred():
        _swap_in(Path(staging), Path(path), None, replace_any=True)
    clean_leftovers(path)


def _swap_in(staging: Path, path: Path, checked: tuple[int, int] | None, *, replace_any: bool) -> None:
    """Rename ``staging`` to ``path`` (two renames when a previous version is there). Only the
    directory ``checked`` is replaced (an absent ``path`` is claimed), unless ``replace_any``."""
    old = path.with_name(f".{path.name}.old-{os.getpid()}")
    moved = False
    if replace_any or checked is not None:
        try:
            path.rename(old)
            moved = True
        except FileNotFoundError:
            pass
    try:
        if moved and not replace_any and _identity(old) != checked:  # another writer's result
            rename_no_replace(old, path)  # back where it was
            moved = False
            raise _taken(path)
        rename_no_replace(staging, path)
    except FileExistsError:
        shutil.rmtree(staging, ignore_errors=True)
        if moved:  # another writer's result took the name between the renames: it stays
            shutil.rmtree(old, ignore_errors=True)
        raise exists_error(path, directory=True) from None
    fsync_directory(path.parent)
    if moved:
        shutil.rmtree(old, ignore_errors=True)


# Why a write can fail for want of room: errno, and how safetensors' own error (the OS error
# in its text) words it.
_NO_ROOM = {
    errno.ENOSPC: ("no space left on the device", ("No space left on device", "StorageFull")),
    errno.EDQUOT: ("over the disk quota", ("Disk quota exceeded", "QuotaExceeded")),
    errno.EFBIG: ("over the file size limit", ("File too large", "FileTooLarge")),
}


def _no_room(exc: BaseException) -> str | None:
    if isinstance(exc, OSError):
        return _NO_ROOM[exc.errno][0] if exc.errno in _NO_ROOM else None
    if isinstance(exc, DiskFullError):  # a staged write inside a staged directory: named again
        return next(
            (reason for reason, _ in _NO_ROOM.values() if reason in str(exc)), _NO_ROOM[errno.ENOSPC][0]
        )
    if isinstance(exc, Exception):
        text = str(exc)
        return next((reason for reason, words in _NO_ROOM.values() if any(w in text for w in words)), None)
    return None


def is_disk_full(exc: BaseException) -> bool:
    """Whether a write failed for want of room (a full disk, a quota, a file size limit): an
    ``OSError``, or safetensors' own error type, which carries the OS error in its message."""
    return _no_room(exc) is not None


def disk_full(path: Path, needs_bytes: int | None, exc: BaseException | None = None) -> DiskFullError:
    """The one-line error of a write that ran out of room at ``path``."""
    try:
        free = f"{_mb(shutil.disk_usage(path.parent if not path.exists() else path).free)} free"
    except OSError:
        free = "free space unknown"
    needs = f"needs about {_mb(needs_bytes)}, " if needs_bytes else ""
    reason = (_no_room(exc) if exc is not None else None) or "no space left on the device"
    return DiskFullError(f"{path}: {reason} (the write {needs}{free}); nothing was replaced")


def _mb(size: int) -> str:
    return f"{size / 1e6:.1f} MB"


@contextmanager
def staged_file(
    path: str | Path, *, overwrite: bool = True, needs_bytes: int | None = None
) -> Iterator[Path]:
    """Yield the temporary path ``.NAME.tmp-PID`` beside ``path`` for the caller to write; on
    success the file goes to the disk and is renamed to ``path``, on failure (a full disk, a
    kill) it is removed and ``path`` is untouched. Without ``overwrite`` the write claims
    ``path``: a file that appeared there meanwhile (another writer's) is kept and the write
    fails with :func:`exists_error`. A full disk is one :class:`DiskFullError` naming ``path``."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        yield tmp
        fsync_file(tmp)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if is_disk_full(exc):
            raise disk_full(path, needs_bytes, exc) from None
        raise
    with signals_deferred():
        try:
            if overwrite:
                tmp.replace(path)
            else:
                rename_no_replace(tmp, path)
        except FileExistsError:
            tmp.unlink(missing_ok=True)
            raise exists_error(path) from None
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    fsync_directory(path.parent)
    clean_leftovers(path)


@contextmanager
def atomic_file(path: str | Path, mode: str = "w", *, overwrite: bool = True, **open_kwargs) -> Iterator[IO]:
    """Open a temporary file beside ``path``; on success it replaces ``path``, on failure (or a
    kill) the previous ``path`` is untouched (:func:`staged_file`, whose ``overwrite`` this
    takes). The file keeps the permissions of a new file. A device or a pipe at ``path`` is
    written into."""
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(21, "is a directory", str(path))
    if path.exists() and not path.is_file():  # a device or a pipe (/dev/null, a FIFO): written
        with open(path, mode, **open_kwargs) as handle:  # into, never replaced by a file
            yield handle
        return
    with staged_file(path, overwrite=overwrite) as tmp, open(tmp, mode, **open_kwargs) as handle:
        yield handle


def write_text_atomic(path: str | Path, text: str) -> None:
    """``Path.write_text``, written whole or not at all."""
    with atomic_file(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def write_run_file(path: str | Path, text: str) -> None:
    """A file of a run directory (settings, results, a table), whole or not at all. Unlike an
    output the user names (``--json /dev/stdout``), something there that is no regular file (a
    FIFO would block the run) is refused, never written into."""
    from parasent.support.regular_files import check_regular_or_absent

    check_regular_or_absent(path)
    write_text_atomic(path, text)


def ordinary_permissions(path: str | Path) -> None:
    """rw for the owner, readable by others (per the umask): safetensors creates files as 0600,
    but a model directory is meant to be shared like any other file."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(path, 0o666 & ~umask)
