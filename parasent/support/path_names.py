"""Names and arguments as UTF-8 text, where a library or the output needs UTF-8.

Python keeps a file name or an argument whose bytes do not decode in the locale's encoding as
text with lone surrogates (``b"\\xff"`` -> ``"\\udcff"``), which round-trips to the same bytes
for Python's own file calls. Libraries written in Rust (safetensors, tokenizers) take a file
name as UTF-8 text and fail on the surrogates with a bare ``'utf-8' codec can't encode``, which
names nothing. Two cases meet there: bytes that are UTF-8 but were decoded in an ASCII locale
(``LC_ALL=POSIX PYTHONUTF8=0``): they are decoded again, as UTF-8, and work; and bytes that are
no UTF-8 at all (``b"idx\\xff"``): a one-line error names the path and says what to do.
"""

from __future__ import annotations

import os
from pathlib import Path

from parasent.errors import NameEncodingError


def as_utf8(value: str) -> str | None:
    """``value`` as UTF-8 text: itself when it is, the UTF-8 decoding of its bytes when they are
    UTF-8 read in another encoding, else None."""
    try:
        value.encode("utf-8")
        return value
    except UnicodeEncodeError:
        pass
    try:
        return value.encode("utf-8", "surrogateescape").decode("utf-8")
    except UnicodeError:
        return None


def shown(value: str) -> str:
    """``value`` as printable text, each byte that is not UTF-8 as ``\\xNN``."""
    try:
        raw = value.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate no byte stands for ("\ud800")
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")


def native_path(path: str | Path) -> str:
    """``path`` as the UTF-8 text a Rust library (safetensors, tokenizers) opens as the same file;
    :class:`NameEncodingError` naming it when its bytes are not UTF-8."""
    text = os.fspath(path)
    found = as_utf8(text)
    if found is None:
        raise NameEncodingError(
            f"{shown(text)}: the name is not UTF-8 text; model, index and weights files are "
            "written and read by libraries that take UTF-8 names: rename it (or choose another "
            "path) with a UTF-8 name"
        )
    return found
