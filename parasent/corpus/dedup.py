"""Semantic deduplication: keep one text of each group of near-duplicates, in order.

A text is removed when an earlier text that was kept is an exact copy of it, or is at or above
``threshold`` by cosine; the kept text that explains it is the most similar one (ties: the
earliest). Exact copies are found first, by a hash of the text (checked by comparing the texts:
a hash collision never removes a text), so they cost no vector; then the greedy pass runs over
blocks of the remaining texts in order: each block against the texts kept before it (a matrix
product, then a row maximum), then its own rows one after another (only those with an earlier
near-duplicate in the block need a look). The kept vectors are moved to the front of the one
array as they are kept, so the pass needs no memory beyond the vectors and one block of
scores, and scans each pair once at most (against the kept texts only).

``against``: the leakage guard. Texts of the corpus at or above the threshold to any text of
another set (an evaluation set) are removed, each with its closest text there; the corpus's
own duplicates are not looked for (deduplicate it on its own for that).

The greedy rule and its result are SemHash's ``self_deduplicate`` (a text is removed only by a
kept one, never through a chain of removed ones), computed exactly here; ``ann`` looks the
kept texts up in an HNSW graph instead (usearch), for corpora past what a scan affords.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from parasent.corpus.exact_copies import exact_copies, text_hashes
from parasent.corpus.neighbours import unit_vectors

if TYPE_CHECKING:
    from parasent.core.model import SentenceModel
    from parasent.corpus.neighbours import NeighbourLists
    from parasent.support.spool import SpooledTexts

DEFAULT_THRESHOLD = 0.9
KEPT, EXACT, NEAR = 0, 1, 2  # what became of a text
# texts a block and scores held at once (4M float32, 16 MB): half of mining's, since a block is
# kept whole, with its scores against itself, while it is compared with the kept texts
ROW_BLOCK = 1024
MAX_BLOCK = 1 << 22


@dataclass
class Deduplicated:
    """Per text: ``status`` (KEPT, EXACT or NEAR), ``by`` (the index of the kept text that
    explains a removed one: in the corpus, or in the other set with ``against``; -1 when kept)
    and ``score`` (its cosine; 1.0 for an exact copy)."""

    status: np.ndarray
    by: np.ndarray
    score: np.ndarray

    @classmethod
    def all_kept(cls, n: int) -> Deduplicated:
        return cls(np.zeros(n, np.int8), np.full(n, -1, np.int64), np.zeros(n, np.float32))

    def __len__(self) -> int:
        return len(self.status)

    @property
    def kept(self) -> np.ndarray:
        return self.status == KEPT

    def counts(self) -> dict[str, int]:
        return {
            "texts": len(self),
            "kept": int((self.status == KEPT).sum()),
            "exact": int((self.status == EXACT).sum()),
            "near": int((self.status == NEAR).sum()),
        }


def exact_duplicates(hashes: np.ndarray, text: Callable[[int], str], result: Deduplicated) -> None:
    """Mark each text equal to an earlier one as an EXACT copy of its first occurrence."""
    copies, originals = exact_copies(hashes, text)
    result.status[copies], result.by[copies], result.score[copies] = EXACT, originals, 1.0


def against_hashes(
    hashes: np.ndarray, other: np.ndarray, text: Callable[[int], str], other_text: Callable[[int], str]
) -> tuple[np.ndarray, np.ndarray]:
    """(corpus index, other index) of the corpus texts that are exact copies of a text of the
    other set (the first such), by hash then by text."""
    order = np.argsort(other, kind="stable")
    place = np.searchsorted(other[order], hashes)
    found = (place < len(other)) & (other[order][np.minimum(place, len(other) - 1)] == hashes)
    rows, matches = [], []
    for index in np.flatnonzero(found):
        position = int(place[index])
        words = text(int(index))
        while position < len(other) and other[order[position]] == hashes[index]:
            if other_text(int(order[position])) == words:
                rows.append(int(index))
                matches.append(int(order[position]))
                break
            position += 1
    return np.asarray(rows, dtype=np.int64), np.asarray(matches, dtype=np.int64)


class KeptSet:
    """The vectors kept so far, at the front of the one array, and their original indexes;
    ``best(block)``: each row's most similar kept vector (ties: the earliest)."""

    def __init__(self, vectors: np.ndarray, ann: bool = False) -> None:
        self.vectors, self.count = vectors, 0
        self.ids = np.empty(len(vectors), dtype=np.int64)
        self.graph = _graph(vectors.shape[1]) if ann else None

    @classmethod
    def of(cls, vectors: np.ndarray, ann: bool = False) -> KeptSet:
        """Every row of ``vectors`` kept, in order (the other set of the leakage guard)."""
        kept = cls(vectors[:0], ann=ann)
        kept.vectors, kept.ids = vectors, np.arange(len(vectors))
        kept.count = len(vectors)
        if kept.graph is not None and len(vectors):
            from parasent.corpus.ann import int8_rows

            kept.graph.add(np.arange(len(vectors), dtype=np.uint64), int8_rows(vectors))
        return kept

    def best(self, block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(score, original index) of each row's best kept vector; (-inf, -1) when none."""
        best_s = np.full(len(block), -np.inf, dtype=np.float32)
        best_i = np.full(len(block), -1, dtype=np.int64)
        if self.count == 0:
            return best_s, best_i
        if self.graph is not None:
            from parasent.corpus.ann import int8_rows, matched

            keys = matched(self.graph.search(int8_rows(block), 1), len(block), 1)[0][:, 0]
            found = keys >= 0
            best_i[found] = self.ids[keys[found]]
            best_s[found] = np.einsum("ij,ij->i", block[found], self.vectors[keys[found]])
            return best_s, best_i
        step = max(1, MAX_BLOCK // max(len(block), 1))
        for start in range(0, self.count, step):
            scores = block @ self.vectors[start : min(start + step, self.count)].T
            where = scores.argmax(axis=1)
            top = scores[np.arange(len(block)), where]
            better = top > best_s  # strictly: an earlier chunk keeps a tie
            best_s[better], best_i[better] = top[better], self.ids[start + where[better]]
        return best_s, best_i

    def add(self, rows: np.ndarray, vectors: np.ndarray) -> None:
        """Keep ``vectors`` (of original indexes ``rows``), after every one kept before."""
        end = self.count + len(rows)
        self.vectors[self.count : end] = vectors
        self.ids[self.count : end] = rows
        if self.graph is not None and len(rows):
            from parasent.corpus.ann import int8_rows

            self.graph.add(np.arange(self.count, end, dtype=np.uint64), int8_rows(vectors))
        self.count = end


def _graph(dim: int) -> Any:
    from parasent.corpus.ann import mining_graph

    return mining_graph(dim)


def near_duplicates(
    vectors: np.ndarray,
    texts: np.ndarray,
    threshold: float,
    result: Deduplicated,
    *,
    ann: bool = False,
    progress: Callable[[int], object] | None = None,
) -> None:
    """The greedy pass, in order, over the texts ``texts`` (indexes into ``result``, ascending:
    those no exact copy removed) whose unit vectors are the rows of ``vectors``; ``vectors``
    is reused as the kept set's storage (its rows are overwritten)."""
    kept = KeptSet(vectors, ann=ann)
    for start in range(0, len(texts), ROW_BLOCK):
        block = vectors[start : start + ROW_BLOCK].copy()  # before the kept set overwrites them
        rows = texts[start : start + ROW_BLOCK]
        best_s, best_i = kept.best(block)
        keep = _within_block(block, rows, best_s, best_i, threshold, result)
        kept.add(rows[keep], block[keep])
        if progress is not None:
            progress(len(rows))


def _within_block(
    block: np.ndarray,
    rows: np.ndarray,
    best_s: np.ndarray,
    best_i: np.ndarray,
    threshold: float,
    result: Deduplicated,
) -> np.ndarray:
    """The greedy rule for one block, rows in order, given each row's best text kept before
    the block (``best_s``, ``best_i``): a row is removed by the most similar kept text at or
    above the threshold, before the block or earlier in it (a tie: the earlier text). Returns
    which rows are kept."""
    keep = best_s < threshold
    gone = np.flatnonzero(~keep)
    result.status[rows[gone]], result.by[rows[gone]], result.score[rows[gone]] = (
        NEAR,
        best_i[gone],
        best_s[gone],
    )
    scores = block @ block.T
    near = np.tril(scores >= threshold, k=-1)
    for i in np.flatnonzero(near.any(axis=1)):
        earlier = np.flatnonzero(near[i, :i] & keep[:i])
        if not len(earlier):
            continue
        j = earlier[np.argmax(scores[i, earlier])]
        if keep[i] or scores[i, j] > best_s[i]:
            keep[i] = False
            result.status[rows[i]], result.by[rows[i]], result.score[rows[i]] = NEAR, rows[j], scores[i, j]
    return keep


def nearest_in(
    vectors: np.ndarray,
    texts: np.ndarray,
    other: np.ndarray,
    threshold: float,
    result: Deduplicated,
    *,
    ann: bool = False,
    progress: Callable[[int], object] | None = None,
) -> None:
    """Remove (NEAR) each of the texts ``texts`` (unit vectors: the rows of ``vectors``) whose
    best match among the unit rows of ``other`` is at or above ``threshold``; ``by`` indexes
    ``other``."""
    reference = KeptSet.of(other, ann=ann)
    for start in range(0, len(texts), ROW_BLOCK):
        rows = texts[start : start + ROW_BLOCK]
        best_s, best_i = reference.best(vectors[start : start + ROW_BLOCK])
        gone = best_s >= threshold
        result.status[rows[gone]], result.by[rows[gone]], result.score[rows[gone]] = (
            NEAR,
            best_i[gone],
            best_s[gone],
        )
        if progress is not None:
            progress(len(rows))


def dedup_vectors(
    vectors: Any,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    texts: Sequence[str] | None = None,
    against: Any = None,
    against_texts: Sequence[str] | None = None,
    ann: bool = False,
) -> Deduplicated:
    """Deduplicate a set of vectors (and, when given, their ``texts``, whose exact copies are
    removed first), or, with ``against`` (vectors of another set), remove what is too close
    to that set."""
    check_threshold(threshold)
    matrix = unit_vectors(vectors)
    result = Deduplicated.all_kept(len(matrix))
    if against is None:
        if texts is not None:
            exact_duplicates(text_hashes(texts), texts.__getitem__, result)
        left = np.flatnonzero(result.status == KEPT)
        near_duplicates(matrix[left], left, threshold, result, ann=ann)
        return result
    if texts is not None and against_texts is not None:
        rows, matches = against_hashes(
            text_hashes(texts), text_hashes(against_texts), texts.__getitem__, against_texts.__getitem__
        )
        result.status[rows], result.by[rows], result.score[rows] = EXACT, matches, 1.0
    left = np.flatnonzero(result.status == KEPT)
    nearest_in(matrix[left], left, unit_vectors(against), threshold, result, ann=ann)
    return result


def check_threshold(threshold: float) -> None:
    from parasent.errors import OptionError

    if not -1.0 <= threshold <= 1.0:
        raise OptionError(f"threshold is a cosine, between -1 and 1; got {threshold}")


def dedup_corpus(
    model: SentenceModel,
    corpus: SpooledTexts,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    against: SpooledTexts | None = None,
    ann: bool = False,
    batch_size: int = 4096,
    progress: bool = False,
) -> Deduplicated:
    """Deduplicate a spooled corpus with ``model`` (or, with ``against``, remove what is too
    close to that corpus): exact copies by hash first, then only the texts left are encoded."""
    from tqdm.auto import tqdm

    check_threshold(threshold)
    if ann:
        from parasent.corpus.ann import require_usearch

        require_usearch()
    result = Deduplicated.all_kept(len(corpus))
    hashes = text_hashes(corpus.texts.iter())
    if against is None:
        exact_duplicates(hashes, corpus.texts.__getitem__, result)
    else:
        rows, matches = against_hashes(hashes, text_hashes(against.texts.iter()), corpus.texts.__getitem__,
                                       against.texts.__getitem__)  # fmt: skip
        result.status[rows], result.by[rows], result.score[rows] = EXACT, matches, 1.0
    from parasent.corpus.mining import encode_rows

    left = np.flatnonzero(result.status == KEPT)
    vectors = encode_rows(model, corpus, left, batch_size, progress)
    disable = None if progress else True
    with tqdm(total=len(left), desc="dedup", unit="text", disable=disable) as bar:
        if against is None:
            near_duplicates(vectors, left, threshold, result, ann=ann, progress=bar.update)
        else:
            other = encode_rows(model, against, np.arange(len(against)), batch_size, progress)
            nearest_in(vectors, left, other, threshold, result, ann=ann, progress=bar.update)
    return result


def dedup_report(result: Deduplicated, *, against: str | None = None) -> list[str]:
    """What ``parasent dedup`` prints: kept and removed counts, the removed near-duplicates'
    score distribution."""
    from parasent.corpus.mining import score_distribution

    counts = result.counts()
    why = f"text(s) too close to {against}" if against else "near-duplicate(s)"
    head = (
        f"kept {counts['kept']:,} of {counts['texts']:,} text(s); removed {counts['exact']:,} exact "
        f"duplicate(s) and {counts['near']:,} {why}"
    )
    return [head, *score_distribution(result.score[result.status == NEAR])]


def dedup_by_lists(
    vectors: np.ndarray, texts: np.ndarray, lists: NeighbourLists, threshold: float, result: Deduplicated
) -> None:
    """The greedy pass of :func:`near_duplicates` over neighbour lists computed elsewhere (by
    shards, :mod:`parasent.ray`): row p of ``lists`` and of ``vectors`` (unit) is text
    ``texts[p]``; each list holds the row's best neighbours at or above ``threshold`` (best
    first, ties by the lower row). A row's most similar kept earlier neighbour is the first
    kept earlier one in its list; a full list without one may hide one past its end, so that
    row is compared with every text kept before it. The result is the greedy pass's."""
    n = len(texts)
    rows = np.arange(n)
    earlier = (lists.ids >= 0) & (lists.ids < rows[:, None])
    full = lists.ids[:, -1] >= 0
    kept = np.zeros(n, dtype=bool)
    kept[~earlier.any(axis=1) & ~full] = True  # nothing at or above the threshold before them
    for p in np.flatnonzero(earlier.any(axis=1) | full).tolist():
        candidates = lists.ids[p][earlier[p]]
        chosen = candidates[kept[candidates]]
        if len(chosen):
            j = int(chosen[0])
            score = float(lists.scores[p][lists.ids[p] == j][0])
        elif full[p] and kept[:p].any():
            before = np.flatnonzero(kept[:p])
            scores = vectors[before] @ vectors[p]
            j, score = int(before[np.argmax(scores)]), float(scores.max())
            if score < threshold:
                j = -1
        else:
            j = -1
        if j < 0:
            kept[p] = True
            continue
        result.status[texts[p]], result.by[texts[p]], result.score[texts[p]] = NEAR, texts[j], score
