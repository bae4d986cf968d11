"""Numpy-only sentence encoding for static (averaging) models: no torch on the serving path."""

from __future__ import annotations

import functools
import itertools

import numpy as np

from parasent.support.parallel_map import parts_for, run_together
from parasent.text.tokenized import Tokenized

BLOCK_TOKENS = 16_384  # token rows gathered at once by average_rows (~15 MB at 224 dims)
# Tokens each thread sums at the least: a thread's start and the GIL's handovers cost about
# what summing a few thousand tokens saves (batch 1,024 of the suite, ~14k tokens: 0.97x on
# two threads; batch 4,096, ~55k tokens: 1.13-1.18x).
THREAD_MIN_TOKENS = 16_384
_FINITE_SUMS = 1e37  # below float32's largest (3.4e38) by a margin for the rounding of each addition


def average_rows(tokenized: Tokenized, table: np.ndarray, threads: int | None = None) -> np.ndarray:
    """Row i is the mean of ``table`` rows of sentence i's ids; an empty sentence gives zeros.

    ``table`` is anything indexable by an id array that has a ``shape``: a float32 or float16
    array, a memory map of one, or a :class:`parasent.core.stored_weights.QuantizedTable`. Numpy
    alone, so the core install needs no scipy: the sentences are ordered by length, cut into
    runs, and each run's ids laid out in that order, once, so that its sentences of one length
    L are a (sentences, L) slab of that array, summed as a (sentences, L, dim) block gathered at
    once (at most :data:`BLOCK_TOKENS` rows per block, so memory stays bounded, and no padding
    is summed). A block costs a gather and a sum and nothing else: the division by the lengths
    and the return to the input order are one step each for a run (each array step hands the
    GIL over, which other encoding threads wait for).

    On ``threads`` (None: as :func:`parasent.support.parallel_map.parts_for` says), a batch of at
    least twice :data:`THREAD_MIN_TOKENS` tokens is cut into up to that many runs of about as
    many tokens, averaged at once (the gathers and sums take milliseconds each and release the
    GIL); a smaller batch is one run. Every sentence is summed the same way in any run, so the
    vectors are the same bits.
    """
    lengths = tokenized.lengths
    if len(lengths) == 1:  # one sentence: one block, without the grouping below (the same sums)
        return average_one(tokenized.sentence(0), table)
    order = np.argsort(lengths, kind="stable")
    tokens = int(lengths.sum())
    runs = parts_for(tokens, THREAD_MIN_TOKENS, threads)
    ends = np.cumsum(lengths[order])  # tokens up to each sentence, in order of length
    cuts = np.searchsorted(ends, np.arange(1, runs) * tokens // runs, side="right").tolist()
    means = np.empty((len(lengths), table.shape[1]), dtype=np.float32)
    run_together(
        [
            functools.partial(_mean_run, tokenized, order[first:last], table, means)
            for first, last in itertools.pairwise([0, *cuts, len(lengths)])
        ]
    )
    return means


def _mean_run(tokenized: Tokenized, which: np.ndarray, table: np.ndarray, means: np.ndarray) -> None:
    """``means[which]``: the means of sentences ``which`` of ``tokenized`` (in order of length),
    their ids laid out in that order, summed a block of sentences of one length at a time,
    divided by their lengths (an empty sentence: zeros)."""
    by_length = tokenized.take(which)
    flat, starts, run = by_length.ids, by_length.offsets, by_length.lengths
    resolve = getattr(table, "resolved", None)  # an int8 table maps shared rows once per run
    if resolve is not None:
        table, flat = resolve(flat)
    sums = np.empty((len(which), means.shape[1]), dtype=np.float32)
    changes = np.ones(len(run) + 1, dtype=bool)
    changes[1:-1] = run[1:] != run[:-1]
    bounds = changes.nonzero()[0].tolist()
    with np.errstate(over="ignore", invalid="ignore"):  # per thread; the caller reports non-finite sums
        for begin, end in itertools.pairwise(bounds):
            length = int(run[begin])
            if length == 0:
                sums[begin:end] = 0
                continue
            first_token = int(starts[begin])
            slab = flat[first_token : first_token + (end - begin) * length].reshape(end - begin, length)
            step = max(1, BLOCK_TOKENS // length)
            for block in range(0, end - begin, step):
                stop = min(end - begin, block + step)
                row_sums(table, slab[block:stop], sums[begin + block : begin + stop])
        np.divide(sums, np.maximum(run, 1).astype(np.float32)[:, None], out=sums)  # 0 / 1 = 0
    means[which] = sums


def row_sums(table: np.ndarray, index: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``table[index].sum(axis=1)`` in float32 for a (sentences, length) ``index`` (into
    ``out`` if given): through the table's own ``sums`` where it has one (an int8 table sums
    without widening the whole block)."""
    sums = getattr(table, "sums", None)
    if sums is not None:
        return sums(index, out=out)
    return np.add.reduce(np.asarray(table[index]), axis=1, dtype=np.float32, out=out)


def average_one(ids: np.ndarray, table: np.ndarray) -> np.ndarray:
    """:func:`average_rows` of one sentence of ``ids``, as a (1, dim) matrix: the same gather
    and the same float32 sum (a (1, length, dim) block summed over its middle axis), without
    the steps that find sentences in a batch, which cost more than one short sentence's sum.
    An int8 table whose sum cannot overflow (:func:`sums_are_finite`) skips numpy's error
    state, whose setting costs about what the sum of a short sentence does."""
    if not len(ids):
        return np.zeros((1, table.shape[1]), dtype=np.float32)
    sum_one = getattr(table, "sum_one", None)
    if sum_one is not None and sums_are_finite(table, len(ids)):
        sums = sum_one(ids)
    else:
        with np.errstate(over="ignore", invalid="ignore"):  # the caller reports non-finite sums
            sums = np.asarray(table[ids[None, :]]).sum(axis=1, dtype=np.float32)
    sums /= np.float32(len(ids))
    return sums


def sums_are_finite(table: np.ndarray, length: int) -> bool:
    """Whether any ``length`` rows of ``table`` sum to finite float32 numbers: known for an int8
    table from its largest entry (:attr:`parasent.core.stored_weights.QuantizedTable.largest`),
    with a margin for rounding; a float table must be checked after the sum."""
    largest = getattr(table, "largest", None)
    return largest is not None and largest * length < _FINITE_SUMS


def normalize_rows(matrix: np.ndarray) -> np.ndarray:
    """Unit-length rows; zero rows stay zero (never NaN)."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


def cosine_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine of a[i] and b[i] in float64; 0 where either vector is zero (never NaN).

    Float64 keeps identical sentences at exactly 1.0, so rank ties (Spearman) do not depend
    on float32 rounding.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return np.einsum("ij,ij->i", normalize_rows(a), normalize_rows(b))


def cosine_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(len(a), len(b)) cosines, float32; 0 where either vector is zero (never NaN)."""
    a = normalize_rows(np.asarray(a, dtype=np.float32))
    b = normalize_rows(np.asarray(b, dtype=np.float32))
    return a @ b.T
