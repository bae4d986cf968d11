"""Per-token targets for a contextual student: how the teacher says context moves each word.

The default's rows are (weighted, rotated, compacted) means of the teacher's contextual states
of their words (:mod:`parasent.distillation.contextual`); what a contextual student adds to a
row (:class:`parasent.encoders.contextual.ContextualAveraging`) is how the word's context moves
it. The teacher says that for each occurrence i of word w: its state t_i less the word's mean
state over the text, t_w. The sentence-level terms see only the mean of those moves; this
target gives each token its own. Carried into the row's space by the orthonormal map R that
best carries the words' mean states onto their rows (orthogonal Procrustes,
:func:`parasent.distillation.alignment.fit_alignment`), each word at its row's own scale
s_w = |x_w| / |t_w| (the rows' norms are the words' weights), the target of token i is

    y_i = x_w + s_w (t_i - t_w) R,

which the student's moved and weighted row (1 + v.h_i + a)(x_i + U h_i + c) regresses onto
(:class:`parasent.objectives.distillation.TeacherRegression`). Only a word spelt as one token
of the student's (not pieces) and seen at least twice gets a target; the rest of the sentence
(pieces, bigrams) is trained by the sentence-level terms alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from parasent.distillation.alignment import fit_alignment
from parasent.distillation.contextual import word_spans
from parasent.text.tokenized import Tokenized

MIN_FIT_COUNT = 3  # a word's mean state enters the map's fit when seen this often
CHUNK = 65_536  # tokens worked at a time (float32 temporaries of CHUNK x dim)


@dataclass
class TokenTargets:
    """``row_of[p]``: the row of ``values`` that is token position p's target, -1 for none."""

    row_of: np.ndarray  # (tokens,) int64
    values: np.ndarray  # (targets, dim) float16
    report: dict[str, Any] = field(default_factory=dict)

    def cut(self, kept: np.ndarray) -> TokenTargets:
        """The targets of the token positions ``kept`` (a shortened corpus's, in its order)."""
        return TokenTargets(self.row_of[kept], self.values, self.report)

    def describe(self) -> str:
        r = self.report
        return (
            f"per-token teacher targets on {r['tokens']:,} tokens ({r['words']:,} words) of "
            f"{r['sentences_aligned']:,} of {r['sentences']:,} sentences; the teacher moves a word "
            f"{r['move_ratio']:.2f} of its row's length from its mean"
        )


def single_token_words(
    tokenizer: Any, texts: Sequence[str], tokenized: Tokenized
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """``(positions, ids, (sentence, word))`` of every word the student spells as one token of its
    own (not a piece, not the unknown row), and how many sentences' tokens began with their
    words' as expected (a sentence whose tokens do not is left out: the tokenizer read it otherwise)."""
    words_of = [[word for word, _, _ in word_spans(text)] for text in texts]
    unique = sorted({word for words in words_of for word in words})
    encoded = tokenizer.encode_batch(unique)
    spelt = {w: encoded.ids[encoded.offsets[i] : encoded.offsets[i + 1]] for i, w in enumerate(unique)}
    vocabulary = getattr(tokenizer, "tokenizer", None)  # the words' own table, in any id space
    own = {
        w
        for w in unique
        if len(spelt[w]) == 1 and (vocabulary is None or vocabulary.token_to_id(w) is not None)
    }
    positions, ids, where, aligned = [], [], [], 0
    for s, words in enumerate(words_of):
        start, stop = int(tokenized.offsets[s]), int(tokenized.offsets[s + 1])
        expected = np.concatenate([spelt[w] for w in words]) if words else np.zeros(0, np.int64)
        if len(expected) > stop - start or not np.array_equal(
            tokenized.ids[start : start + len(expected)], expected
        ):
            continue
        aligned += 1
        at = start
        for k, word in enumerate(words):
            if word in own:
                positions.append(at)
                ids.append(int(spelt[word][0]))
                where.append((s, k))
            at += len(spelt[word])
    where_array = np.asarray(where, dtype=np.int64).reshape(-1, 2)
    return np.asarray(positions, np.int64), np.asarray(ids, np.int64), where_array, aligned


def check_fit_words(found: int, dim: int) -> None:
    """The map onto the rows is fitted on the words seen :data:`MIN_FIT_COUNT` times or more:
    fewer than the rows' dimension leave it undetermined."""
    if found < dim:
        raise ValueError(
            f"per-token teacher targets need at least {dim} words seen {MIN_FIT_COUNT}+ times "
            f"in the teacher text to fit the map onto the rows, found {found}: use more teacher text"
        )


Words = tuple[np.ndarray, np.ndarray, np.ndarray, int]  # what single_token_words returns


def check_enough_text(tokenizer: Any, texts: Sequence[str], tokenized: Tokenized, dim: int) -> Words:
    """:func:`check_fit_words` from the word split alone, before the teacher's passes are paid
    for (a pass may leave out a word its length limit cuts: :func:`token_targets` checks again);
    returns the split, which :func:`token_targets` then takes instead of making it again."""
    words = single_token_words(tokenizer, texts, tokenized)
    counts = np.unique(words[1], return_counts=True)[1]
    check_fit_words(int((counts >= MIN_FIT_COUNT).sum()), dim)
    return words


def token_targets(
    tokenizer: Any,
    texts: Sequence[str],
    tokenized: Tokenized,
    states: Sequence[np.ndarray],
    rows: np.ndarray,
    *,
    split: Words | None = None,
) -> TokenTargets:
    """The targets ``y_i`` (module docstring) of ``tokenized``'s first ``len(texts)`` sentences
    (``texts``, tokenized), from the teacher's word ``states`` of each text and the student's
    embedding table ``rows`` (float32, the ids' space). Memory: the gathered states (float16) and
    the targets (float16), worked through a chunk at a time. ``split``: the texts' single-token
    words where :func:`check_enough_text` has found them already."""
    positions, ids, where, aligned = (
        split if split is not None else single_token_words(tokenizer, texts, tokenized)
    )
    width = states[0].shape[1] if len(states) else rows.shape[1]
    vectors = _gathered(states, where, width)
    seen = ~np.isnan(vectors[:, 0])  # a word the teacher's length limit cut is NaN throughout
    positions, ids, vectors = positions[seen], ids[seen], vectors[seen]
    words, inverse, counts = np.unique(ids, return_inverse=True, return_counts=True)
    means = _means(vectors, inverse, len(words))
    own = np.asarray(rows[words], dtype=np.float32)
    fit = counts >= MIN_FIT_COUNT
    check_fit_words(int(fit.sum()), rows.shape[1])
    align = fit_alignment(means[fit], own[fit])
    scale = np.linalg.norm(own, axis=1) / np.maximum(np.linalg.norm(means, axis=1), 1e-12)
    keep = np.flatnonzero(counts[inverse] >= 2)  # a word seen once is its own mean: no move to learn
    targets, ratio = _moved_rows(vectors, keep, inverse, means, own, align, scale)
    row_of = np.full(len(tokenized.ids), -1, dtype=np.int64)
    row_of[positions[keep]] = np.arange(len(keep))
    report = {
        "sentences": len(texts),
        "sentences_aligned": aligned,
        "tokens": len(keep),
        "words": int((counts >= 2).sum()),
        "move_ratio": round(ratio, 4),
    }
    return TokenTargets(row_of, targets, report)


def _gathered(states: Sequence[np.ndarray], where: np.ndarray, width: int) -> np.ndarray:
    """``(len(where), width)`` float16: word ``k`` of text ``s``'s state for each ``(s, k)``
    (``where`` in text order), gathered a text at a time."""
    out = np.empty((len(where), width), dtype=np.float16)
    bounds = np.flatnonzero(np.diff(where[:, 0])) + 1 if len(where) else np.zeros(0, np.int64)
    for begin, end in zip(np.r_[0, bounds], np.r_[bounds, len(where)], strict=True):
        if end > begin:
            out[begin:end] = states[int(where[begin, 0])][where[begin:end, 1]]
    return out


def _means(vectors: np.ndarray, inverse: np.ndarray, count: int) -> np.ndarray:
    """``(count, dim)`` float32: the mean of the rows of ``vectors`` of each group of ``inverse``."""
    sums = np.zeros((count, vectors.shape[1]), dtype=np.float64)
    for begin in range(0, len(vectors), CHUNK):
        np.add.at(sums, inverse[begin : begin + CHUNK], vectors[begin : begin + CHUNK].astype(np.float64))
    return (sums / np.maximum(np.bincount(inverse, minlength=count), 1)[:, None]).astype(np.float32)


def _moved_rows(
    vectors: np.ndarray,
    keep: np.ndarray,
    inverse: np.ndarray,
    means: np.ndarray,
    own: np.ndarray,
    align: np.ndarray,
    scale: np.ndarray,
) -> tuple[np.ndarray, float]:
    """The targets ``x_w + s_w (t_i - t_w) R`` of the tokens ``keep`` (float16), and how far the
    teacher moves a word, as a share of its row's length (the mean over the tokens)."""
    targets = np.empty((len(keep), own.shape[1]), dtype=np.float16)
    moved, length = 0.0, 0.0
    for begin in range(0, len(keep), CHUNK):
        rows = keep[begin : begin + CHUNK]
        word = inverse[rows]
        moves = ((vectors[rows].astype(np.float32) - means[word]) @ align) * scale[word, None]
        targets[begin : begin + len(rows)] = own[word] + moves
        moved += float(np.linalg.norm(moves, axis=1).sum())
        length += float(np.linalg.norm(own[word], axis=1).sum())
    return targets, moved / length if length else 0.0
