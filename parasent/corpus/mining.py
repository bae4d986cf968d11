"""Paraphrase mining: the pairs of a corpus whose sentences are each other's nearest neighbours.

For every sentence its ``top_k`` most similar others at or above a threshold, each unordered
pair once, best first: what sentence-transformers' ``util.paraphrase_mining`` returns, and how
paraphrase corpora are built from raw text (each line's neighbours, cut at a cosine). The
neighbour lists are exact (:mod:`parasent.corpus.neighbours`: blocks of a matrix product, half of
the symmetric matrix, never all of it) or approximate (``ann``: an HNSW graph of usearch,
:func:`parasent.corpus.ann.ann_neighbours`) for corpora past what a scan affords.

A corpus is read once into a spool on disk (:class:`parasent.data.text_input.SpooledCorpus`),
encoded a batch at a time into one (n, dim) array (exact) or straight into the graph (``ann``:
the vectors are encoded again, batch by batch, to query it), so memory holds the vectors and
one block of scores, not the texts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from parasent.corpus.neighbours import NeighbourLists, block_plan, exact_neighbours, unit_vectors

if TYPE_CHECKING:
    from parasent.core.model import SentenceModel
    from parasent.support.spool import SpooledTexts

DEFAULT_TOP_K = 10
DEFAULT_THRESHOLD = 0.8
# the bins of the score distribution (their lower edges)
BINS = (-1.0, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.99)


@dataclass
class MinedPairs:
    """Pairs ``(first[p], second[p])``, ``first < second``, with their cosine, best first
    (ties: by first, then second)."""

    scores: np.ndarray
    first: np.ndarray
    second: np.ndarray

    def __len__(self) -> int:
        return len(self.scores)

    def triplets(self) -> list[list[float | int]]:
        """``[[score, i, j], ...]``: sentence-transformers' ``paraphrase_mining`` shape."""
        return [
            [float(s), int(i), int(j)] for s, i, j in zip(self.scores, self.first, self.second, strict=True)
        ]


def pairs_of(lists: NeighbourLists, max_pairs: int | None = None) -> MinedPairs:
    """The unordered pairs of the neighbour lists, each once (at its higher score when the two
    directions differ, as approximate scores may), best first, the best ``max_pairs`` of them."""
    n = len(lists)
    rows = np.repeat(np.arange(n, dtype=np.int64), lists.k)
    ids, scores = lists.ids.ravel(), lists.scores.ravel()
    found = ids >= 0
    rows, ids, scores = rows[found], ids[found], scores[found]
    first, second = np.minimum(rows, ids), np.maximum(rows, ids)
    order = np.lexsort((second, first, -scores))
    first, second, scores = first[order], second[order], scores[order]
    _, once = np.unique(first * max(n, 1) + second, return_index=True)
    once.sort()  # the first (best) occurrence of each pair, in the sorted order
    if max_pairs is not None:
        once = once[:max_pairs]
    return MinedPairs(scores[once], first[once], second[once])


def check_options(top_k: int, threshold: float | None, max_pairs: int | None) -> None:
    from parasent.errors import OptionError

    if top_k <= 0:
        raise OptionError(f"top_k must be positive, got {top_k}")
    if threshold is not None and not -1.0 <= threshold <= 1.0:
        raise OptionError(f"threshold is a cosine, between -1 and 1; got {threshold}")
    if max_pairs is not None and max_pairs <= 0:
        raise OptionError(f"max_pairs must be positive, got {max_pairs}")


def mine_vectors(
    vectors: Any,
    *,
    top_k: int = DEFAULT_TOP_K,
    threshold: float | None = None,
    max_pairs: int | None = None,
    ann: bool = False,
    progress: bool = False,
) -> MinedPairs:
    """Mine the pairs of a set of vectors (numpy, torch or a list of rows): each row's ``top_k``
    nearest others by cosine at or above ``threshold``, each pair once, best first."""
    check_options(top_k, threshold, max_pairs)
    return _mine_unit(unit_vectors(vectors), top_k, threshold, max_pairs, ann=ann, progress=progress)


def _mine_unit(
    matrix: np.ndarray,
    top_k: int,
    threshold: float | None,
    max_pairs: int | None,
    *,
    ann: bool,
    progress: bool,
) -> MinedPairs:
    floor = -np.inf if threshold is None else threshold
    if ann:
        from parasent.corpus.ann import ann_neighbours

        lists = ann_neighbours(lambda: iter([matrix]), len(matrix), matrix.shape[1], top_k, floor, progress)
    else:
        with _bar(block_plan(len(matrix)), progress) as bar:  # matrix is this module's own copy
            lists = exact_neighbours(
                matrix, top_k, threshold=floor, unit=True, progress=bar.update, reorder=True
            )
    return pairs_of(lists, max_pairs)


def _bar(plan: list, progress: bool) -> Any:
    """A bar over the scores of a block plan (on a terminal only), with a total and an ETA."""
    from tqdm.auto import tqdm

    total = sum(block.size for block in plan)
    return tqdm(total=total, desc="mine", unit="score", unit_scale=True, disable=None if progress else True)


def rows_of(corpus: SpooledTexts, rows: np.ndarray) -> Iterator[str]:
    """The texts ``rows`` (ascending) of ``corpus``, in one pass over its spool."""
    wanted = np.zeros(len(corpus), dtype=bool)
    wanted[rows] = True
    return (text for text, keep in zip(corpus.texts.iter(), wanted.tolist(), strict=True) if keep)


def encode_rows(
    model: SentenceModel, corpus: SpooledTexts, rows: np.ndarray, batch_size: int, progress: bool
) -> np.ndarray:
    """The unit vectors of the texts ``rows`` (ascending) of ``corpus``, in one array."""
    from tqdm.auto import tqdm

    vectors = np.empty((len(rows), model.dim), dtype=np.float32)
    start = 0
    with tqdm(total=len(rows), desc="encode", unit="sentence", disable=None if progress else True) as bar:
        for chunk in model.iter_encode(rows_of(corpus, rows), batch_size=batch_size):
            vectors[start : start + len(chunk)] = unit_vectors(chunk)
            start += len(chunk)
            bar.update(len(chunk))
    return vectors


@dataclass
class ScanRows:
    """What a scan of a corpus looks at: each distinct text that is not blank, once
    (``scanned``, corpus indices, ascending); the later exact copies of a text (``copies``) are
    paired with its first occurrence (``originals``) at cosine 1 without a vector; blank lines
    (``blank`` of them: no words, no direction) are left out."""

    scanned: np.ndarray
    copies: np.ndarray
    originals: np.ndarray
    blank: int

    @classmethod
    def of(cls, corpus: SpooledTexts) -> ScanRows:
        from parasent.corpus.exact_copies import exact_copies, text_hashes

        blank = np.fromiter((not text.strip() for text in corpus.texts.iter()), dtype=bool, count=len(corpus))
        copies, originals = exact_copies(text_hashes(corpus.texts.iter()), corpus.texts.__getitem__)
        keep = ~blank[copies]
        distinct = ~blank
        distinct[copies] = False
        return cls(np.flatnonzero(distinct), copies[keep], originals[keep], int(blank.sum()))

    def copy_pairs(self) -> MinedPairs:
        return MinedPairs(np.ones(len(self.copies), np.float32), self.originals, self.copies)


def merged(found: MinedPairs, scanned: np.ndarray, copies: MinedPairs, max_pairs: int | None) -> MinedPairs:
    """The scan's pairs (indices into ``scanned``) in corpus indices, with the copies' pairs,
    best first (ties: by first, then second), the best ``max_pairs`` of them."""
    scores = np.concatenate([found.scores.astype(np.float32), copies.scores])
    first = np.concatenate([scanned[found.first], copies.first])
    second = np.concatenate([scanned[found.second], copies.second])
    order = np.lexsort((second, first, -scores))[:max_pairs]
    return MinedPairs(scores[order], first[order], second[order])


LONG_SCAN = 200_000  # distinct lines past which an exact scan is said to be long (--ann)


def mine_corpus(
    model: SentenceModel,
    corpus: SpooledTexts,
    *,
    top_k: int = DEFAULT_TOP_K,
    threshold: float | None = DEFAULT_THRESHOLD,
    max_pairs: int | None = None,
    ann: bool = False,
    batch_size: int = 4096,
    progress: bool = False,
    notice: Callable[[str], None] | None = None,
) -> MinedPairs:
    """Mine a spooled corpus with ``model`` (:func:`mine_vectors`'s options) over its distinct,
    non-blank texts (:class:`ScanRows`: a million blank or equal lines cost a hash each, not a
    quadratic scan); each exact copy is one pair with its text's first line, whatever
    ``top_k`` (a text's copies are not paired with each other). ``notice`` hears what was left out and whether an exact scan will be long.
    With ``ann`` the vectors are never held at once: each batch goes into the graph, then is
    encoded again to query it."""
    check_options(top_k, threshold, max_pairs)
    rows = ScanRows.of(corpus)
    say = notice or (lambda line: None)
    if rows.blank or len(rows.copies):
        copies = f"{len(rows.copies):,} exact cop{'y' if len(rows.copies) == 1 else 'ies'}"
        say(f"left out of the scan: {rows.blank:,} blank line(s), {copies} "
            "(each paired with the first line of its text, score 1)")  # fmt: skip
    if not ann and len(rows.scanned) > LONG_SCAN:
        say(f"an exact scan of {len(rows.scanned):,} distinct lines compares {len(rows.scanned) ** 2 // 2:,} "
            "pairs (its time grows with the square of the lines): --ann is much faster at this size")  # fmt: skip
    floor = -np.inf if threshold is None else threshold
    if not ann:
        vectors = encode_rows(model, corpus, rows.scanned, batch_size, progress)  # unit rows
        found = _mine_unit(vectors, top_k, threshold, max_pairs, ann=False, progress=progress)
        return merged(found, rows.scanned, rows.copy_pairs(), max_pairs)
    from parasent.corpus.ann import ann_neighbours, require_usearch

    require_usearch()

    def batches() -> Iterator[np.ndarray]:
        texts = rows_of(corpus, rows.scanned)
        return (unit_vectors(chunk) for chunk in model.iter_encode(texts, batch_size=batch_size))

    lists = ann_neighbours(batches, len(rows.scanned), model.dim, top_k, floor, progress)
    return merged(pairs_of(lists, max_pairs), rows.scanned, rows.copy_pairs(), max_pairs)


def score_distribution(scores: np.ndarray) -> list[str]:
    """Lines that say how ``scores`` spread: quantiles, then a table of counts per bin (the
    bins of :data:`BINS`, empty ones left out), to choose a threshold from."""
    from parasent.support.tables import format_rows

    if not len(scores):
        return []
    scores = np.clip(scores.astype(np.float64), BINS[0], 1.0)
    quantiles = {"min": 0.0, "p10": 0.1, "median": 0.5, "p90": 0.9, "max": 1.0}
    head = ", ".join(f"{name} {np.quantile(scores, q):.3f}" for name, q in quantiles.items())
    edges = [*BINS, 1.0 + 1e-6]
    counts = np.histogram(scores, bins=edges)[0]
    rows = [
        [f"[{edges[i]:.2f}, {edges[i + 1]:.2f})" if i + 1 < len(BINS) else f"[{edges[i]:.2f}, 1.00]",
         int(n), 100 * n / len(scores)]
        for i, n in enumerate(counts)
        if n
    ]  # fmt: skip
    return [f"scores: {head}", *format_rows(["score", "count", "%"], rows, digits=1).splitlines()]


def mining_report(pairs: MinedPairs, lines: int) -> list[str]:
    """What ``parasent mine`` prints: how many pairs, how many lines are in one, the spread."""
    in_pair = len(np.union1d(pairs.first, pairs.second))
    head = f"{len(pairs):,} pair(s) among {lines:,} line(s); {in_pair:,} line(s) in at least one"
    return [head, *score_distribution(pairs.scores)]
