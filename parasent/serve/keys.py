"""The API keys a service lets in (``--api-key``, ``--api-key-file``, ``$PARASENT_API_KEY``).

A request carries ``Authorization: Bearer KEY``, as the OpenAI client sends it. The service never
holds the keys of the command line in its configuration, only their SHA-256 digests (the
configuration travels to worker processes in the environment): a presented key is hashed and
compared with every digest by :func:`hmac.compare_digest`, all of them each time, so neither the
answer's time nor its path says how much of a key was right. A key's *id*, the first 12 hex digits
of its digest, names it in ``/metrics``; the key itself is never logged.

A key is ASCII without spaces (a header carries it) and at least :data:`MIN_KEY_CHARS`
characters long (its id is an unsalted hash prefix: a short key could be found from it by trying
words). The key file (one key a line; blank lines and ``#`` comments skipped) is read again when it
changes (its size, modification time or inode, looked at on each request: a ``stat``, about a
microsecond) or on ``SIGHUP``. A file that cannot be read, or holds no key, at start is an
error; later, the keys read last stay in force and a warning says why (the service never opens
up because a file was being rewritten).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
from dataclasses import dataclass, field

KEY_ENV = "PARASENT_API_KEY"
ID_DIGITS = 12
log = logging.getLogger("parasent.serve")


def key_digest(key: str) -> str:
    """The hex SHA-256 of a key (what the configuration keeps)."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def key_id(digest: str) -> str:
    """The name of a key in ``/metrics`` and logs: a prefix of its digest, never the key."""
    return digest[:ID_DIGITS]


MIN_KEY_CHARS = 16  # a shorter key could be guessed from its id in /metrics by trying words
MAX_KEY_FILE = 1 << 20


def check_key(key: str, where: str) -> str:
    """``key`` if it can be sent as a bearer token and resists guessing; ValueError naming
    ``where`` it came from (never the key) otherwise."""
    if not key.isascii() or not key.isprintable() or any(c.isspace() for c in key):
        raise ValueError(
            f"{where}: an API key is ASCII without spaces or control characters (as a header carries it)"
        )
    if len(key) < MIN_KEY_CHARS:
        raise ValueError(
            f"{where}: an API key of {len(key)} characters is too short to resist guessing; use {MIN_KEY_CHARS} or more"
        )
    return key


def read_key_file(path: str) -> list[str]:
    """The digests of the keys in ``path``; ValueError naming the file when it has none."""
    from parasent.errors import SpecialFileError
    from parasent.support.regular_files import read_regular

    try:
        lines = read_regular(path, max_bytes=MAX_KEY_FILE).decode("utf-8").splitlines()  # never a FIFO
    except (OSError, UnicodeDecodeError, SpecialFileError) as exc:
        raise ValueError(f"{path}: cannot read the API key file ({exc.__class__.__name__})") from None
    keys = [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
    if not keys:
        raise ValueError(f"{path}: the API key file holds no key (one key a line)")
    return [key_digest(check_key(key, f"{path}, key {number}")) for number, key in enumerate(keys, 1)]


def _file_state(path: str) -> tuple[int, int, int] | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_ino, status.st_size, status.st_mtime_ns


@dataclass
class ApiKeys:
    """The digests of the keys let in: fixed ones (command line, environment) and a file's."""

    digests: tuple[str, ...] = ()
    path: str | None = None
    _from_file: list[str] = field(default_factory=list)
    _state: tuple[int, int, int] | None = None

    def __post_init__(self) -> None:
        if self.path is not None:
            self._from_file = read_key_file(self.path)
            self._state = _file_state(self.path)

    @property
    def required(self) -> bool:
        return bool(self.digests) or self.path is not None

    def reload(self, force: bool = False) -> None:
        """Read the key file again if it changed (or ``force``: SIGHUP); keep the last keys if
        the new file cannot be used."""
        if self.path is None:
            return
        state = _file_state(self.path)
        if not force and state == self._state:
            return
        self._state = state
        try:
            self._from_file = read_key_file(self.path)
        except ValueError as exc:
            log.warning("%s; the keys read before stay in force", exc)
            return
        log.warning("API key file %s read again: %d key(s)", self.path, len(self._from_file))

    def identify(self, authorization: str | None) -> str | None:
        """The id of the key an ``Authorization`` header carries, or None if it carries none
        that is let in."""
        self.reload()
        scheme, _, presented = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not presented.strip():
            return None
        digest = key_digest(presented.strip())
        found = None
        for known in (*self.digests, *self._from_file):  # every digest, whatever matches
            if hmac.compare_digest(digest, known):
                found = known
        return key_id(found) if found else None


def command_line_digests(
    keys: list[str] | None, environment: dict[str, str] | None = None
) -> tuple[str, ...]:
    """The digests of ``--api-key`` values and of ``$PARASENT_API_KEY`` (comma-separated keys,
    spaces around them dropped); ValueError naming the source of a key that cannot serve."""
    environment = os.environ if environment is None else environment
    given = [check_key(key, "--api-key") for key in keys or []]
    given += [
        check_key(k.strip(), f"${KEY_ENV}") for k in environment.get(KEY_ENV, "").split(",") if k.strip()
    ]
    return tuple(dict.fromkeys(key_digest(key) for key in given))
