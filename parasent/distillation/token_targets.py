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


def token_targets(
    tokenizer: Any, texts: Sequence[str], tokenized: Tokenized, states: Sequence[np.ndarray], rows: np.ndarray
) -> TokenTargets:
    """The targets ``y_i`` (module docstring) of ``tokenized``'s first ``len(texts)`` sentences
    (``texts``, tokenized), from the teacher's word ``states`` of each text and the student's
    embedding table ``rows`` (float32, the ids' space)."""
    positions, ids, where, aligned = single_token_words(tokenizer, texts, tokenized)
    width = states[0].shape[1] if len(states) else rows.shape[1]
    vectors = np.asarray([states[s][k] for s, k in where], dtype=np.float32).reshape(len(where), width)
    seen = ~np.isnan(vectors).any(axis=1)
    positions, ids, vectors = positions[seen], ids[seen], vectors[seen]
    words, inverse, counts = np.unique(ids, return_inverse=True, return_counts=True)
    means = np.zeros((len(words), width), np.float64)
    np.add.at(means, inverse, vectors)
    means = (means / np.maximum(counts, 1)[:, None]).astype(np.float32)
    own = np.asarray(rows[words], dtype=np.float32)
    fit = counts >= MIN_FIT_COUNT
    if fit.sum() < rows.shape[1]:
        raise ValueError(
            f"per-token teacher targets need at least {rows.shape[1]} words seen {MIN_FIT_COUNT}+ times "
            f"in the teacher text to fit the map onto the rows, found {int(fit.sum())}: use more teacher text"
        )
    align = fit_alignment(means[fit], own[fit])
    scale = np.linalg.norm(own, axis=1) / np.maximum(np.linalg.norm(means, axis=1), 1e-12)
    keep = counts[inverse] >= 2  # a word seen once is its own mean: no move to learn
    moves = ((vectors[keep] - means[inverse[keep]]) @ align) * scale[inverse[keep], None]
    targets = own[inverse[keep]] + moves
    row_of = np.full(len(tokenized.ids), -1, dtype=np.int64)
    row_of[positions[keep]] = np.arange(int(keep.sum()))
    ratio = float(
        np.linalg.norm(moves, axis=1).mean() / max(np.linalg.norm(targets - moves, axis=1).mean(), 1e-12)
    )
    report = {
        "sentences": len(texts),
        "sentences_aligned": aligned,
        "tokens": int(keep.sum()),
        "words": int((counts >= 2).sum()),
        "move_ratio": round(ratio if keep.any() else 0.0, 4),
    }
    return TokenTargets(row_of, targets.astype(np.float16), report)
