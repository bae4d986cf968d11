"""The keys of the no-leakage rule: a text, or an unordered pair of texts, as the rule compares them.

A training pair is dropped when a side matches an evaluation sentence (:mod:`parasent.data.training_text.pools`),
a running-text sentence when it is one (:mod:`parasent.data.training_text.corpus`), a PPDB pair when it shares a
phrase with the PPDB test half (:mod:`parasent.data.readers.ppdb_task`): all compare these keys. They are
a leaf of their own, importing nothing of the package, so that every reader can use them without
importing the pools (which import the catalog, the registry and, through its layouts, the readers).
"""

from __future__ import annotations

_NOT_ALNUM = bytes(b for b in range(128) if not chr(b).isalnum())


def normalize_for_leakage(text: str) -> str:
    """Lowercase letters and digits only, so tokenized copies ("dominick 's") match raw text ("Dominick's")."""
    return "".join(ch for ch in text.lower() if ch.isalnum())


def leakage_key(text: str) -> str:
    """:func:`normalize_for_leakage`, on ASCII text by one ``bytes.translate`` deleting the
    non-alphanumeric bytes (the same result, several times faster)."""
    if text.isascii():
        return text.encode("ascii").translate(None, _NOT_ALNUM).lower().decode("ascii")
    return normalize_for_leakage(text)


def pair_key(left: str, right: str) -> tuple[str, str]:
    """An order-free key of two (already normalised) texts."""
    return (left, right) if left <= right else (right, left)
