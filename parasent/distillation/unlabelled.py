"""The unlabelled sentences of the teacher regression: named sources, no evaluation sentence."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from parasent.data.training_text.corpus import CORPORA, read_corpus, read_document
from parasent.data.training_text.leakage import normalize_for_leakage
from parasent.data.training_text.unlabelled import SOURCES as TEXT_GROUPS
from parasent.data.training_text.unlabelled import unlabelled_text
from parasent.errors import DataNotFoundError

SPANS = "spans"  # word spans of the sentences of the sources before it
TEXT_SOURCES = ("corpus", "pool", *CORPORA, *TEXT_GROUPS, SPANS)
SPAN_MIN_WORDS = 6  # sentences shorter than this give no span


def phrase_spans(sentences: Sequence[str], seed: int) -> Iterator[tuple[str, str]]:
    """``("spans", span)``: one contiguous run of half to four fifths of the words of each
    sentence of :data:`SPAN_MIN_WORDS` words or more, seeded.

    More regression targets from the same text: the teacher's embedding of a phrase shows how
    it composes parts of a sentence, which a static average must learn to imitate on inputs
    shorter than any whole sentence (data augmentation for distillation, as TinyBERT's).
    """
    rng = np.random.default_rng([seed, 17])
    for sentence in sentences:
        words = sentence.split()
        if len(words) < SPAN_MIN_WORDS:
            continue
        size = int(rng.integers(len(words) // 2, 4 * len(words) // 5 + 1))
        start = int(rng.integers(0, len(words) - size + 1))
        yield SPANS, " ".join(words[start : start + size])


def _texts_of(source: str, data_dir: str | Path, pairs: Sequence[Any]) -> Iterator[tuple[str, str]]:
    """``(origin, sentence)`` of one named source (see :func:`unlabelled_sentences`)."""
    if source == "pool":
        for pair in pairs:
            yield "pool", pair.s1
            yield "pool", pair.s2
    elif source == "corpus" or source in CORPORA:
        documents, _ = read_corpus(data_dir, "standard" if source == "corpus" else source)
        for document in documents:
            name = document.name.split("/", 1)[0]
            for text in document.sentences:
                yield name, text
    elif source in TEXT_GROUPS:
        yield from unlabelled_text(data_dir, source)
    else:
        path = Path(source).expanduser()
        if not path.is_file():
            raise DataNotFoundError(
                f"teacher text {source!r}: not a file nor one of {', '.join(TEXT_SOURCES)}"
            )
        for text in read_document(path, "sentences").sentences:
            yield f"file:{path.name}", text


def unlabelled_sentences(
    sources: Iterable[str],
    data_dir: str | Path,
    pairs: Sequence[Any],
    forbidden: set[str],
    *,
    limit: int | None = None,
    seed: int = 1,
) -> tuple[list[str], dict[str, int]]:
    """Unique sentences of the named sources, none of them an evaluation sentence.

    A source is ``NAME`` or ``NAME:N`` (a seeded sample of N of its new sentences). ``corpus``
    is all running text of the data directory (:data:`parasent.data.training_text.corpus.CORPORA` names
    one corpus: ``gutenberg``, ...), ``pool`` the sentences of the training pairs,
    ``extended``, ``captions``, ``sts-train`` and ``labelled-all`` the groups of :mod:`parasent.data.training_text.unlabelled`,
    ``spans`` a phrase (a run of words) of each sentence kept so far (:func:`phrase_spans`), anything else a
    text file with one sentence per line. Sentences whose normalised form
    (lowercase letters and digits, the pool's no-leakage rule) is in ``forbidden`` are dropped
    and counted; ``limit`` samples the union.
    """
    seen: set[str] = set()
    kept: list[str] = []
    counts = {"leaked": 0}

    for number, spec in enumerate(sources):
        name, sep, size = spec.rpartition(":")
        if not (sep and size.isdigit()):
            name, size = spec, ""
        new: list[tuple[str, str]] = []
        texts = phrase_spans(list(kept), seed) if name == SPANS else _texts_of(name, data_dir, pairs)
        for origin, text in texts:
            text = text.strip()
            if not text or text in seen:
                continue
            seen.add(text)
            if normalize_for_leakage(text) in forbidden:
                counts["leaked"] += 1
                continue
            new.append((origin, text))
        if size and int(size) < len(new):
            pick = np.random.default_rng([seed, 13, number]).choice(len(new), size=int(size), replace=False)
            new = [new[i] for i in np.sort(pick)]
        for origin, text in new:
            kept.append(text)
            counts[origin] = counts.get(origin, 0) + 1
    if limit is not None and limit < len(kept):
        keep = np.sort(np.random.default_rng([seed, 11]).choice(len(kept), size=limit, replace=False))
        kept = [kept[i] for i in keep]
        counts["after_limit"] = limit
    return kept, counts
