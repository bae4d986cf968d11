"""Exceptions that carry enough context for a user to fix their input."""

from __future__ import annotations

from pathlib import Path
from typing import Any


class ParasentError(Exception):
    """Base class for errors the command line reports without a traceback."""


class DataFormatError(ParasentError):
    """A malformed line in a data file, reported as ``path:line: reason``."""

    def __init__(self, path: str | Path, line: int, reason: str) -> None:
        self.path = str(path)
        self.line = line
        self.reason = reason
        super().__init__(f"{self.path}:{line}: {reason}")


class DataNotFoundError(ParasentError):
    """A data file or directory that should exist does not."""


class ModelFormatError(ParasentError):
    """A model directory with a missing or inconsistent file."""


class CheckpointError(ParasentError):
    """A training checkpoint that cannot be resumed."""


class OptionError(ParasentError, ValueError):
    """A command-line or configuration option with a value that cannot work (``--clip -1``)."""


class CorruptFileError(DataFormatError):
    """A compressed file that cannot be decompressed, reported as ``path: reason (after line N)``:
    no later line can be read, so lenient reading cannot skip it."""

    def __init__(self, path: str | Path, line: int, reason: str = "corrupt gzip") -> None:
        self.path = str(path)
        self.line = line
        self.reason = reason
        Exception.__init__(self, f"{self.path}: {reason} (after line {line})")


class RunLockedError(ParasentError):
    """A run directory that another live process is writing."""


class FetchError(ParasentError):
    """A download that failed: offline, an HTTP error status, a stalled transfer."""


class ChecksumError(ParasentError):
    """A downloaded or present data file whose sha256 differs from the registry's."""


class ArchiveError(FetchError):
    """An archive that is not extracted: a member whose name leaves its folder, a link or device
    member, one that expands beyond the bytes its record declares, or a file that is no archive."""


class TrainingInterrupted(ParasentError):
    """Raised after a requested stop (signal or callback) once the checkpoint is written; the
    command line exits ``exit_code`` ("stopped"), not 2: 130 (Ctrl-C or a callback), 143 after
    SIGTERM, as every other command does."""

    def __init__(self, message: str, exit_code: int = 130) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class MissingDependencyError(ParasentError):
    """An optional dependency is not installed; the message says which extra provides it."""


class WeightsFormatError(ValueError):
    """A file that is not a safetensors file the memory-mapping reader maps (a ``ValueError``:
    callers fall back to the ordinary reader)."""


class DiskFullError(ParasentError):
    """A write that ran out of space; the previous version of what it replaces is untouched."""


class SpecialFileError(ParasentError):
    """A path that is not a regular file (a FIFO, a device, a socket) or is over its size cap,
    where a file is read: opening it could block or read without end."""


class DirectoryInUseError(ParasentError):
    """A write would replace a file, or a directory that holds something else than its kind."""


class OutputExistsError(ParasentError):
    """A write whose target another writer created (or replaced) while it ran: the other
    writer's result is kept, nothing is replaced without ``--overwrite``."""


class NameEncodingError(ParasentError):
    """A path or an argument whose bytes are not UTF-8 where UTF-8 is needed (a library that takes
    UTF-8 file names, text to encode), or text the output's encoding cannot write."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C raises ``KeyboardInterrupt`` (so the same cleanup runs: staging
    removed, locks released); the command line exits 143."""


class HashCollision(ValueError):
    """Two vocabulary words share a hash; the caller falls back to the ``tokenizers`` pipeline."""


class ApiError(Exception):
    """An error answered as ``{"error": {"message", "type", "param", "code"}}`` with ``status``."""

    def __init__(self, status: int, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.param = param

    def body(self) -> dict[str, Any]:
        kinds = {413: "request_too_large", 408: "request_timeout", 503: "service_unavailable"}
        kind = kinds.get(self.status, "server_error" if self.status >= 500 else "invalid_request_error")
        return {"error": {"message": self.message, "type": kind, "param": self.param, "code": self.status}}


class RedirectRefused(Exception):
    """A download redirected to a scheme other than http(s): ``args[0]`` is where it pointed
    (raised inside urllib's opener, reported by the downloader as one line naming the URL)."""


class EncodingFailed(Exception):
    """Encoding a request's texts raised; ``str`` names what was raised."""


class BatcherStopped(Exception):
    """The encoding worker is not running: requests cannot be encoded."""


class ExpansionRefused(Exception):
    """Raised inside a read by ``support/lines.py``'s ``_RatioGuard``; its ``LineReader`` names the file and line."""


class ParasentWarning(UserWarning):
    """What a user should know of a result that is not an error (a model of an unfinished run);
    the command line prints it as one ``parasent: warning:`` line."""
