"""Distilled word vectors on their own (``parasent distill``): the teacher's vectors for the
most frequent words and for the words of chosen training text, written as a vectors file
that any run can start from (``--vectors FILE``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from parasent.data.training_text.corpus import read_document
from parasent.data.training_text.pools import build_pool, evaluation_sentences
from parasent.distillation.provider import distilled_vectors
from parasent.distillation.unlabelled import unlabelled_sentences
from parasent.text.word_vectors import WordVectors, resolve_vectors_path


def training_texts(
    data_dir: Path,
    *,
    pool: str | None = None,
    text: Sequence[str] = (),
    words: Sequence[str | Path] = (),
    say: Callable[[str], None] = print,
) -> list[str]:
    """Sentences whose words get vectors: a pool's pairs and named unlabelled text (evaluation
    sentences left out, the no-leakage rule), and files of one sentence per line."""
    texts: list[str] = []
    if pool is not None or text:
        forbidden = evaluation_sentences(data_dir)
        if pool is not None:
            pairs, report = build_pool(data_dir, pool, forbidden=forbidden)
            say(report.summary())
            texts += [s for pair in pairs for s in (pair.s1, pair.s2)]
        if text:
            sentences, _ = unlabelled_sentences(text, data_dir, [], forbidden)
            texts += sentences
    for path in words:
        texts += list(read_document(path, "sentences").sentences)
    return texts


def distill_standalone(
    teacher: Any,
    data_dir: Path,
    frequencies: str,
    texts: Sequence[str],
    *,
    say: Callable[[str], None] = print,
    **options: Any,
) -> WordVectors:
    """The distilled vectors of the ``top`` most frequent words of ``frequencies`` and of the
    words of ``texts``; ``options`` are those of
    :func:`parasent.distillation.provider.distilled_vectors` (top, weighting, sif_a, pca_dim)."""
    path = resolve_vectors_path(frequencies, data_dir)
    return distilled_vectors(teacher, path, training_texts=list(texts), say=say, **options).vectors
