"""Static word vectors from a sentence encoder: each word encoded by the teacher alone.

The vector of word ``w`` is the teacher's (unit-length) embedding of the text ``w``, then
optionally

- reduced by PCA to ``pca_dim`` dimensions (centred on the mean word vector), and
- weighted by a frequency prior: SIF, ``a / (a + p(w))`` (Arora et al. 2017, "A simple but
  tough-to-beat baseline for sentence embeddings", Sec. 3, with ``p(w)`` the unigram
  probability from a frequency list), or Zipf, ``log(1 + rank(w))`` (rank in that list;
  unlisted words rank last). Averaging weighted vectors is the weighted average of the
  unweighted ones, so the weight lives in the vector norm and inference stays a plain mean.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from parasent.data.readers.wordfreq import WordFrequencies
from parasent.distillation.postprocess import all_but_the_top
from parasent.text.tokenizer import PAD, UNK
from parasent.text.word_pieces import is_piece_token
from parasent.text.word_vectors import WordVectors

WEIGHTINGS = ("sif", "zipf", "none")
DEFAULT_SIF_A = 3e-4


def distillation_vocabulary(
    frequencies: WordFrequencies | None, top: int, extra: Iterable[str] = ()
) -> list[str]:
    """The ``top`` most frequent words of the list, then ``extra`` words (training words) not yet in."""
    words: list[str] = []
    seen = {PAD, UNK, ""}
    for word in list(frequencies.top(top) if frequencies is not None else []) + list(extra):
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


def word_probabilities(
    words: Sequence[str], frequencies: WordFrequencies, fallback: Mapping[str, int] | None = None
) -> np.ndarray:
    """``p(w)`` from the frequency list; for words it lacks, from ``fallback`` counts (the
    training text), else 0.

    Lists of words often lack punctuation and numbers (the shared Wikipedia list holds a-z
    words only); punctuation is among the most frequent tokens, and giving it p = 0 would
    make "." the heaviest token of every sentence under SIF.
    """
    probability = frequencies.probabilities()
    total = sum(fallback.values()) if fallback else 0
    p = np.zeros(len(words), dtype=np.float64)
    for i, word in enumerate(words):
        if word in probability:
            p[i] = probability[word]
        elif total:
            p[i] = fallback.get(word, 0) / total
    return p


def frequency_weights(
    words: Sequence[str],
    frequencies: WordFrequencies,
    weighting: str = "sif",
    sif_a: float = DEFAULT_SIF_A,
    fallback: Mapping[str, int] | None = None,
) -> np.ndarray:
    """Per-word weights (float32) of the SIF or Zipf prior (see :func:`word_probabilities` for
    words the list lacks; Zipf ranks them by that probability among the listed words)."""
    if weighting not in WEIGHTINGS:
        raise ValueError(f"weighting must be one of {WEIGHTINGS}, got {weighting!r}")
    if weighting == "none":
        return np.ones(len(words), dtype=np.float32)
    p = word_probabilities(words, frequencies, fallback)
    if weighting == "sif":
        if sif_a <= 0:
            raise ValueError(f"the SIF parameter a must be positive, got {sif_a}")
        return (sif_a / (sif_a + p)).astype(np.float32)
    listed = np.sort(frequencies.counts / max(frequencies.total, 1))[::-1]
    ranks = np.searchsorted(-listed, -p, side="left").astype(np.float64)  # rank among the listed words
    return np.log1p(ranks + 1).astype(np.float32)


@dataclass
class PcaBasis:
    """A PCA basis: ``(x - mean) @ components.T`` maps teacher space to the reduced space."""

    mean: np.ndarray  # (teacher_dim,)
    components: np.ndarray  # (dim, teacher_dim), orthonormal rows

    def apply(self, vectors: np.ndarray) -> np.ndarray:
        return ((vectors - self.mean) @ self.components.T).astype(np.float32)


def fit_pca(matrix: np.ndarray, dim: int) -> PcaBasis:
    """Principal axes of the rows of ``matrix`` (centred), the first ``dim`` of them."""
    if not 1 <= dim <= matrix.shape[1]:
        raise ValueError(f"PCA dimension must be between 1 and {matrix.shape[1]}, got {dim}")
    mean = matrix.mean(axis=0, dtype=np.float64)
    centred = matrix - mean
    _, _, vt = np.linalg.svd(centred.astype(np.float64), full_matrices=False)
    return PcaBasis(mean.astype(np.float32), vt[:dim].astype(np.float32))


@dataclass
class DistilledVectors:
    vectors: WordVectors
    projection: PcaBasis | None = None
    info: dict = field(default_factory=dict)


def distill_word_vectors(
    encode: Callable[[list[str]], np.ndarray],
    words: Sequence[str],
    *,
    frequencies: WordFrequencies | None = None,
    weighting: str = "sif",
    sif_a: float = DEFAULT_SIF_A,
    pca_dim: int | None = None,
    fallback_counts: Mapping[str, int] | None = None,
    contextual: Mapping[str, np.ndarray] | None = None,
    piece_components: int = 0,
) -> DistilledVectors:
    """Word vectors from ``encode`` (texts -> unit vectors), e.g. a teacher or its cache.

    ``fallback_counts`` (training-text word counts) give ``p(w)`` of words the frequency list
    lacks. ``contextual`` (word -> unit vector, see :mod:`parasent.distillation.contextual`)
    replaces the word-alone encoding of the words it has. ``piece_components``: the subword
    pieces encoded alone (no contextual mean) are post-processed by all-but-the-top with that
    many components (:func:`parasent.distillation.postprocess.all_but_the_top`; 0: not).
    """
    words = list(words)
    if not words:
        raise ValueError("no words to distil")
    contextual = contextual or {}
    alone = [w for w in words if w not in contextual]
    encoded = np.asarray(encode(alone), dtype=np.float32) if alone else None
    dim = encoded.shape[1] if encoded is not None else len(next(iter(contextual.values())))
    matrix = np.empty((len(words), dim), dtype=np.float32)
    rows = {w: i for i, w in enumerate(alone)}
    for i, word in enumerate(words):
        matrix[i] = contextual[word] if word in contextual else encoded[rows[word]]
    lone_pieces = [i for i, w in enumerate(words) if w not in contextual and is_piece_token(w)]
    if piece_components and len(lone_pieces) > piece_components:
        matrix[lone_pieces] = all_but_the_top(matrix[lone_pieces], piece_components)
    projection = None
    if pca_dim is not None and pca_dim < matrix.shape[1]:
        projection = fit_pca(matrix, pca_dim)
        matrix = projection.apply(matrix)
    if weighting != "none":
        if frequencies is None:
            raise ValueError(f"{weighting} weighting needs a word-frequency list")
        matrix = matrix * frequency_weights(words, frequencies, weighting, sif_a, fallback_counts)[:, None]
    info = {
        "words": len(words),
        "weighting": weighting,
        "pca_dim": pca_dim,
        "contextual": len(words) - len(alone),
    }
    if piece_components and len(lone_pieces) > piece_components:
        info["piece_components"] = {"removed": piece_components, "pieces": len(lone_pieces)}
    if weighting == "sif":
        info["sif_a"] = sif_a
    return DistilledVectors(WordVectors(words, matrix.astype(np.float32)), projection, info)
