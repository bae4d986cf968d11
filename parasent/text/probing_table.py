"""A hash table of 64-bit keys that numpy looks many keys up in at once (linear probing).

Why: a sorted array searched with ``np.searchsorted`` makes about 18 dependent reads per key
at 227k keys; linear probing from a mixed home slot at load 1/2 makes about 1.5 for a key that
is present and 2.5 for one that is absent (Knuth, TAOCP vol. 3, sec. 6.4), each round one
array step over the keys still unresolved. On a batch's words it looks up 2-3x faster
(``bench/bench_encode.py``), once built (tens of milliseconds at 227k keys), so a lookup
builds it only after enough keys have gone through it to repay the building
(:class:`parasent.text.ascii_words.AsciiWordLookup`).

The home slot is the top ``bits`` bits of the key times an odd constant (multiplicative
hashing): parasent's word hashes of short words differ in their low bits only. The table is
built in one pass, not key by key: keys ordered by home slot each take the first slot at or
after their home that the keys before them left free (a running maximum), so no probe wraps
around; the table has a tail past its ``2**bits`` slots instead.
"""

from __future__ import annotations

import numpy as np

_MIX = np.uint64(0xD6E8FEB86659FD93)  # odd: multiplying by it is a bijection of 64-bit keys
_EMPTY = -1  # the value of a free slot


class ProbingTable:
    """``find(keys, missing)``: the value of each key, ``missing`` for keys not in the table."""

    def __init__(self, keys: np.ndarray, values: np.ndarray) -> None:
        """``keys`` unique uint64, ``values`` their non-negative ids (below 2**31)."""
        values = np.asarray(values)
        if len(values) and (int(values.min()) < 0 or int(values.max()) >= 2**31):
            raise ValueError("a probing table holds ids from 0 to 2**31 - 1 (int32; -1 marks a free slot)")
        keys = np.asarray(keys, dtype=np.uint64)
        self._bits = max(1, int(len(keys) * 2 - 1).bit_length())  # at most half full
        home = self._home(keys)
        order = np.argsort(home, kind="stable")
        ranks = np.arange(len(keys), dtype=np.int64)
        slots = np.maximum.accumulate(home[order] - ranks) + ranks if len(keys) else ranks
        size = max((1 << self._bits), int(slots[-1]) + 1 if len(keys) else 0) + 1  # >= 1 free at the end
        self._keys = np.zeros(size, dtype=np.uint64)
        self._values = np.full(size, _EMPTY, dtype=np.int32)
        self._keys[slots] = keys[order]
        self._values[slots] = values[order]

    def _home(self, keys: np.ndarray) -> np.ndarray:
        return ((keys * _MIX) >> np.uint64(64 - self._bits)).astype(np.int64)

    def find(self, keys: np.ndarray, missing: int) -> np.ndarray:
        """int64 value of each of ``keys`` (uint64), ``missing`` where a key is absent: probe the
        home slot of every key, then the next slot of those that met another key, until each
        meets its own key or a free slot."""
        keys = np.asarray(keys).astype(np.uint64, copy=False)  # int64 * uint64 would be float64
        out = np.full(len(keys), missing, dtype=np.int64)
        which = np.arange(len(keys), dtype=np.int64)
        slot = self._home(keys)
        while len(which):
            values = self._values[slot]
            occupied = values != _EMPTY
            hit = occupied & (self._keys[slot] == keys)
            out[which[hit]] = values[hit]
            going_on = occupied & ~hit
            which, keys, slot = which[going_on], keys[going_on], slot[going_on] + 1
        return out
