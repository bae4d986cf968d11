"""The keys of the no-leakage rule: a text, or an unordered pair of texts, as the rule compares them.

A training pair is dropped when a side matches an evaluation sentence (:mod:`parasent.data.training_text.pools`),
a running-text sentence when it is one (:mod:`parasent.data.training_text.corpus`), a PPDB pair when it shares a
phrase with the PPDB test half (:mod:`parasent.data.readers.ppdb_task`): all compare these keys. They are
a leaf of their own, importing nothing of the package, so that every reader can use them without
importing the pools (which import the catalog, the registry and, through its layouts, the readers).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

_NOT_ALNUM = bytes(b for b in range(128) if not chr(b).isalnum())


def normalize_for_leakage(text: str) -> str:
    """Lowercase letters and digits only, so tokenized copies ("dominick 's") match raw text
    ("Dominick's"), of the text's NFKC form, so that a copy written with combining accents (NFD)
    or compatibility forms matches too."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", text).lower() if ch.isalnum())


def leakage_key(text: str) -> str:
    """:func:`normalize_for_leakage`, on ASCII text by one ``bytes.translate`` deleting the
    non-alphanumeric bytes (the same result, several times faster)."""
    if text.isascii():
        return text.encode("ascii").translate(None, _NOT_ALNUM).lower().decode("ascii")
    return normalize_for_leakage(text)


def pair_key(left: str, right: str) -> tuple[str, str]:
    """An order-free key of two (already normalised) texts."""
    return (left, right) if left <= right else (right, left)


#: The switch that turns the guard off (``parasent train``; ``leakage_guard="off"`` in
#: :func:`parasent.training.fit.fit`), named in every message where the guard took most of a file.
GUARD_SWITCH = "--leakage-guard off"
# on: every test split (the protocol's suites and the domain test splits); suites: the protocol's
# suites alone (the guard before 2026-11-29, with which the shipped default was built); off: none.
GUARD_STATES = ("on", "suites", "off")


def guarded_sets(state: str) -> str:
    """What the guard in ``state`` (one of :data:`GUARD_STATES` but off) keeps out, in words."""
    return (
        "the transfer suite, STS 2016 or a domain test split"
        if state == "on"
        else "the transfer suite or STS 2016"
    )


def guard_note(name: str, leaked: int, read: int, what: str = "pair(s)", state: str = "on") -> str:
    """The sentence that says the leakage guard (in ``state``), not the file, left a run short,
    when it dropped more than half of the ``read`` items of ``name`` (else ""): a user adapting to
    a domain of the evaluation suites (SICK, MSRvid) or training on a domain test split loses most
    of its pairs to it; a domain test split's are kept by ``suites``, whose figures stay comparable."""
    if not (read > 0 and 2 * leaked > read):
        return ""
    suites = (
        "--leakage-guard suites if they are a domain test split's (the transfer and STS 2016 figures stay "
        "comparable, the domain's do not), else "
    )
    return (
        f"the leakage guard dropped {leaked} of {name}'s {read} {what} (they share a sentence with "
        f"{guarded_sets(state)}); to train on them anyway, {suites if state == 'on' else ''}{GUARD_SWITCH} "
        "(the model's transfer and STS 2016 figures are then marked not comparable)"
    )


def sentence_groups(pairs: Sequence[tuple[str, str]]) -> list[int]:
    """The group of each pair ``(s1, s2)``: pairs that share a sentence (as the rule compares
    them), directly or through others, are one; groups numbered in the order of their root
    sentences' keys (as held-out splits have always drawn them).
    A held-out split draws whole groups, and a bootstrap over a file's pairs resamples them
    (pairs sharing a sentence are not independent draws)."""
    parent: dict[str, str] = {}

    def root(text: str) -> str:
        while parent.setdefault(text, text) != text:
            parent[text] = parent[parent[text]]
            text = parent[text]
        return text

    sides = [(leakage_key(first), leakage_key(second)) for first, second in pairs]
    for first, second in sides:
        parent[root(first)] = root(second)
    roots = [root(first) for first, _ in sides]
    numbers = {key: number for number, key in enumerate(sorted(set(roots)))}
    return [numbers[key] for key in roots]
