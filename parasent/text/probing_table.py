"""A hash table of 64-bit keys that numpy looks many keys up in at once (linear probing).

Why: a sorted array searched with ``np.searchsorted`` makes about 18 dependent reads per key
at 227k keys; linear probing from a mixed home slot at load 1/2 makes about 1.5 for a key that
is present and 2.5 for one that is absent (Knuth, TAOCP vol. 3, sec. 6.4), each round one
array step over the keys still unresolved. On a batch's words it looks up 2-3x faster
(``bench/bench_encode.py``), once built (about 80 ms at 227k keys), so a lookup
builds it only after enough keys have gone through it to repay the building
(:class:`parasent.text.ascii_words.AsciiWordLookup`).

The home slot is the top ``bits`` bits of the key times an odd constant (multiplicative
hashing): parasent's word hashes of short words differ in their low bits only. Where keys
compete for a slot, the one of highest priority takes it (the most frequent words: a lookup
of running text then finds 90% of its words at their home slot, against 64% when keys are
placed in order of home slot), so probing is cheapest where it is most often done. The
table is built in rounds, not key by key: each round, every key not yet placed claims the
next slot of its run, and of the keys claiming one free slot the first in priority wins it
(a slot once taken is never freed, so every slot between a key's home and its own is
occupied, as a lookup assumes). No probe wraps around: the table has a tail past its
``2**bits`` slots instead.
"""

from __future__ import annotations

import numpy as np

_MIX = np.uint64(0xD6E8FEB86659FD93)  # odd: multiplying by it is a bijection of 64-bit keys
_EMPTY = -1  # the value of a free slot


class ProbingTable:
    """``find(keys, missing)``: the value of each key, ``missing`` for keys not in the table."""

    def __init__(self, keys: np.ndarray, values: np.ndarray, priority: np.ndarray | None = None) -> None:
        """``keys`` unique uint64, ``values`` their non-negative ids (below 2**31); ``priority``
        (lower first; default: ``values``, as ids are given in order of frequency) orders keys
        that compete for a slot."""
        values = np.asarray(values)
        if len(values) and (int(values.min()) < 0 or int(values.max()) >= 2**31):
            raise ValueError("a probing table holds ids from 0 to 2**31 - 1 (int32; -1 marks a free slot)")
        keys = np.asarray(keys, dtype=np.uint64)
        self._bits = max(1, int(len(keys) * 2 - 1).bit_length())  # at most half full
        slots = self._placed(self._home(keys), values if priority is None else np.asarray(priority))
        size = max((1 << self._bits), int(slots.max()) + 1 if len(keys) else 0) + 1  # >= 1 free at the end
        self._keys = np.zeros(size, dtype=np.uint64)
        self._values = np.full(size, _EMPTY, dtype=np.int32)
        self._keys[slots] = keys
        self._values[slots] = values

    def _placed(self, home: np.ndarray, priority: np.ndarray) -> np.ndarray:
        """The slot of each key: rounds in which every key still unplaced claims the next slot
        of its run (its home first), the first in priority of the claimants of a free slot
        taking it."""
        slots = np.empty(len(home), dtype=np.int64)
        taken = np.zeros((1 << self._bits) + len(home) + 1, dtype=bool)  # room for the longest run
        pending = np.argsort(priority, kind="stable")
        claims = home[pending]
        while len(pending):
            free = np.flatnonzero(~taken[claims])
            _, first = np.unique(claims[free], return_index=True)  # claimants come in priority order
            won = free[first]
            slots[pending[won]] = claims[won]
            taken[claims[won]] = True
            lost = np.ones(len(pending), dtype=bool)
            lost[won] = False
            pending, claims = pending[lost], claims[lost] + 1
        return slots

    def _home(self, keys: np.ndarray) -> np.ndarray:
        return ((keys * _MIX) >> np.uint64(64 - self._bits)).astype(np.int64)

    def find(self, keys: np.ndarray, missing: int) -> np.ndarray:
        """int64 value of each of ``keys`` (uint64), ``missing`` where a key is absent: probe the
        home slot of every key, then the next slot of those that met another key, until each
        meets its own key or a free slot."""
        keys = np.asarray(keys).astype(np.uint64, copy=False)  # int64 * uint64 would be float64
        slot = self._home(keys)
        values = self._values[slot]  # the first probe, of every key: most end here
        occupied = values != _EMPTY
        hit = occupied & (self._keys[slot] == keys)
        out = np.where(hit, values, missing).astype(np.int64, copy=False)
        which = np.flatnonzero(occupied & ~hit)
        keys, slot = keys[which], slot[which] + 1
        while len(which):
            values = self._values[slot]
            occupied = values != _EMPTY
            hit = occupied & (self._keys[slot] == keys)
            out[which[hit]] = values[hit]
            going_on = occupied & ~hit
            which, keys, slot = which[going_on], keys[going_on], slot[going_on] + 1
        return out
