"""Exact copies in a list of texts, found by hash: what dedup removes first and mining pairs
without a scan. A 64-bit hash brings equal texts together; texts of one hash are then compared
themselves, so a collision (two texts with one hash) never makes a copy."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable

import numpy as np


def text_hashes(texts: Iterable[str]) -> np.ndarray:
    """A 64-bit BLAKE2 hash of each text's UTF-8 bytes (the same in every process and run)."""
    digests = bytearray()
    for text in texts:
        digests += hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return np.frombuffer(bytes(digests), dtype=np.uint64).copy()


def exact_copies(hashes: np.ndarray, text: Callable[[int], str]) -> tuple[np.ndarray, np.ndarray]:
    """``(copies, originals)``: the index of each text equal to an earlier one, and of the first
    occurrence of its text, by index."""
    order = np.argsort(hashes, kind="stable")  # equal hashes together, each run in text order
    ordered = hashes[order]
    bounds = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1], True])
    copies: list[int] = []
    originals: list[int] = []
    for low, high in zip(bounds[:-1], bounds[1:], strict=True):
        if high - low < 2:
            continue
        firsts: list[tuple[str, int]] = []  # the distinct texts of this hash, at their first index
        for index in order[low:high].tolist():
            words = text(index)
            first = next((at for seen, at in firsts if seen == words), None)
            if first is None:
                firsts.append((words, index))
            else:
                copies.append(index)
                originals.append(first)
    found = np.argsort(copies, kind="stable")
    return np.asarray(copies, np.int64)[found], np.asarray(originals, np.int64)[found]
