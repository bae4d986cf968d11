"""Initial word vectors of a model: pretrained rows where the vectors have the word, random otherwise."""

from __future__ import annotations

import numpy as np

from parasent.text.tokenizer import PAD_ID, WordTokenizer
from parasent.text.word_vectors import WordVectors


def initial_embeddings(
    tokenizer: WordTokenizer,
    vectors: WordVectors | None,
    dim: int | None,
    seed: int,
    std: float | None = None,
) -> tuple[np.ndarray, int]:
    """A ``(vocab_size, dim)`` matrix and the number of rows taken from ``vectors``.

    Rows without a pretrained vector (the unknown word, new training words) are drawn from
    N(0, s^2), s the standard deviation of the pretrained entries (0.1 without vectors), so
    they start at the scale of their neighbours. They are never zero: the cosine of a zero
    sentence vector has no useful gradient. The padding row is zero. ``std`` overrides s
    (Siamese CBOW draws every vector from N(0, 0.01^2)).
    """
    if vectors is not None:
        if dim is not None and dim != vectors.dim:
            raise ValueError(f"dim {dim} does not match the {vectors.dim}-dimensional initial vectors")
        dim = vectors.dim
    if dim is None:
        raise ValueError("dim is required without initial vectors")
    scale = float(vectors.matrix.std()) if vectors is not None and len(vectors) else 0.1
    if std is not None:
        scale = std
    rng = np.random.default_rng(seed)
    matrix = rng.normal(0.0, scale, size=(tokenizer.vocab_size, dim)).astype(np.float32)
    found = 0
    if vectors is not None:
        ids = np.array(
            [tokenizer.token_to_id(w) if tokenizer.token_to_id(w) is not None else -1 for w in vectors.words]
        )
        present = ids >= 0
        matrix[ids[present]] = vectors.matrix[present]
        found = int(present.sum())
    matrix[PAD_ID] = 0.0
    return matrix, found


def pretrained_rows(tokenizer: WordTokenizer, vectors: WordVectors | None) -> np.ndarray:
    """``(vocab_size,)`` booleans: the rows :func:`initial_embeddings` takes from ``vectors``.

    These are the rows with a ``W_w_initial`` in Eq. 1's sense; the others (the unknown word,
    new training words) start random, and pulling them back would pull them towards noise.
    """
    rows = np.zeros(tokenizer.vocab_size, dtype=bool)
    if vectors is not None:
        ids = [tokenizer.token_to_id(w) for w in vectors.words]
        rows[[i for i in ids if i is not None]] = True
    rows[PAD_ID] = False
    return rows
