"""The teacher side of a training run: distilled initial vectors, unlabelled sentences and their
cached teacher embeddings (used by :func:`parasent.training.run.train` when a config names a
teacher).

The teacher itself is loaded only when the cache lacks something, so a second run with the
same words and sentences never imports sentence-transformers.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from parasent.data.corpus import CORPORA, read_corpus, read_document
from parasent.data.pools import normalize_for_leakage
from parasent.data.unlabelled import SOURCES as TEXT_GROUPS
from parasent.data.unlabelled import unlabelled_text
from parasent.data.vectors import WordVectors
from parasent.data.wordfreq import read_word_frequencies
from parasent.distillation.cache import EmbeddingCache, default_cache_dir
from parasent.distillation.contextual import ContextualSums
from parasent.distillation.teacher import Teacher, resolve_teacher_path, teacher_fingerprint
from parasent.distillation.words import DistilledVectors, distill_word_vectors, distillation_vocabulary
from parasent.errors import DataNotFoundError
from parasent.text.vocab import count_words

TEXT_SOURCES = ("corpus", "pool", *CORPORA, *TEXT_GROUPS)
# Teacher inputs are truncated to 128 word pieces: all-MiniLM-L6-v2 was trained at this length
# (it serves up to 256), and less than 1% of the running-text sentences are longer.
TEACHER_MAX_LENGTH = 128


class CachedTeacher:
    """Teacher embeddings through the disk cache; the model loads on the first cache miss."""

    def __init__(
        self,
        teacher: str,
        *,
        cache_dir: str | Path | None = None,
        device: str | None = None,
        batch_size: int = 64,
        max_length: int | None = TEACHER_MAX_LENGTH,
        progress: bool = True,
    ) -> None:
        self.path = resolve_teacher_path(teacher)
        self.max_length = max_length
        self.fingerprint = teacher_fingerprint(self.path, max_length)
        self.cache = EmbeddingCache(
            Path(cache_dir) if cache_dir else default_cache_dir() / "teacher", self.fingerprint
        )
        self.device = device
        self.batch_size = batch_size
        self.progress = progress
        self._teacher: Teacher | None = None

    def _compute(self, texts: list[str]) -> np.ndarray:
        if self._teacher is None:
            self._teacher = Teacher(self.path, device=self.device, max_length=self.max_length)
        return self._teacher.encode(texts, batch_size=self.batch_size)

    def encode(self, texts: Sequence[str], *, desc: str = "teacher") -> np.ndarray:
        return self.cache.get(texts, self._compute, progress=self.progress, desc=desc)

    def contextual(self, texts: Sequence[str], *, chunk: int = 4096) -> ContextualSums | None:
        """Contextual word sums over ``texts`` (see :mod:`parasent.distillation.contextual`),
        from the cache or from one teacher pass that also caches the texts' sentence
        embeddings; None when the teacher is not a mean-pooling transformer."""
        from safetensors.numpy import load_file, save_file

        unique = sorted(set(texts))
        digest = hashlib.sha256("\n".join(unique).encode("utf-8")).hexdigest()[:16]
        path = self.cache.directory / "contextual" / f"{digest}.safetensors"
        if path.is_file():
            from safetensors import safe_open

            with safe_open(str(path), framework="np") as handle:
                words = json.loads(handle.metadata()["words"])
            arrays = load_file(str(path))
            return ContextualSums(words, arrays["sums"], arrays["counts"])
        if self._teacher is None:
            self._teacher = Teacher(self.path, device=self.device, max_length=self.max_length)
        if not self._teacher.mean_pooling():
            return None
        from tqdm.auto import tqdm

        from parasent.inference import normalize_rows

        sums = ContextualSums.empty(self._teacher.dim)
        ordered = sorted(unique, key=len)
        with tqdm(
            total=len(ordered),
            desc="teacher (contextual)",
            unit="text",
            disable=not self.progress,
            mininterval=2.0,
        ) as bar:
            for start in range(0, len(ordered), chunk):
                part = ordered[start : start + chunk]
                encoded = self._teacher.encode_tokens(part, batch_size=self.batch_size)
                means = np.stack([tokens.mean(axis=0) for tokens, _ in encoded])
                self.cache.put(part, normalize_rows(means))
                for text, (tokens, offsets) in zip(part, encoded, strict=True):
                    sums.add(text, tokens, offsets)
                bar.update(len(part))
        sums = sums.trimmed()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        save_file(
            {"sums": sums.sums, "counts": sums.counts}, str(tmp), metadata={"words": json.dumps(sums.words)}
        )
        tmp.replace(path)
        return sums

    def describe(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "fingerprint": self.fingerprint,
            "max_length": self.max_length,
            "cache": str(self.cache.directory),
        }


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
    is all running text of the data directory (:data:`parasent.data.corpus.CORPORA` names
    one corpus: ``gutenberg``, ...), ``pool`` the sentences of the training pairs,
    ``extended``, ``captions`` and ``sts-train`` the groups of :mod:`parasent.data.unlabelled`,
    anything else a text file with one sentence per line. Sentences whose normalised form
    (lowercase letters and digits, the pool's no-leakage rule) is in ``forbidden`` are dropped
    and counted; ``limit`` samples the union.
    """
    seen: set[str] = set()
    kept: list[str] = []
    counts = {"leaked": 0}

    def texts_of(source: str) -> Iterator[tuple[str, str]]:
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

    for number, spec in enumerate(sources):
        name, sep, size = spec.rpartition(":")
        if not (sep and size.isdigit()):
            name, size = spec, ""
        new: list[tuple[str, str]] = []
        for origin, text in texts_of(name):
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


def distilled_vectors(
    teacher: CachedTeacher,
    frequencies_path: str | Path,
    *,
    top: int,
    training_texts: Iterable[str],
    weighting: str = "sif",
    sif_a: float = 3e-4,
    pca_dim: int | None = None,
    contextual_texts: Sequence[str] = (),
    say: Callable[[str], None] = print,
) -> DistilledVectors:
    """Word vectors for the ``top`` most frequent words of the list plus every training word."""
    frequencies = read_word_frequencies(frequencies_path)
    counts = count_words(training_texts)
    extra = sorted(counts, key=lambda w: (-counts[w], w))
    words = distillation_vocabulary(frequencies, top, extra)
    say(f"distilling {len(words)} word vectors ({top} frequent words + training words) from {teacher.path}")
    contextual = None
    if contextual_texts:
        sums = teacher.contextual(contextual_texts)
        if sums is None:
            say("the teacher is not a mean-pooling transformer: word-alone vectors for every word")
        else:
            wanted = set(words)
            contextual = {w: v for w, v in sums.vectors().items() if w in wanted}
            say(
                f"{len(contextual)} words take their mean contextual vector over {len(contextual_texts)} sentences"
            )
    distilled = distill_word_vectors(
        lambda ws: teacher.encode(ws, desc="teacher (words)"),
        words,
        frequencies=frequencies,
        weighting=weighting,
        sif_a=sif_a,
        pca_dim=pca_dim,
        fallback_counts=counts,
        contextual=contextual,
    )
    distilled.info["teacher"] = teacher.describe()
    return distilled


DISTILLED = "distilled"


@dataclass
class TeacherSide:
    """What a run takes from its teacher: the cached teacher, the unlabelled sentences of the
    regression objective, and the information recorded in the model's metadata."""

    teacher: CachedTeacher | None = None
    sentences: list[str] = field(default_factory=list)
    teacher_weight: float = 0.0
    info: dict[str, Any] = field(default_factory=dict)
    projection: Any = None  # the PCA of distilled vectors, applied to the teacher's targets too

    @property
    def active(self) -> bool:
        """Whether the regression objective is on (a teacher, a weight and sentences)."""
        return self.teacher is not None and self.teacher_weight > 0 and bool(self.sentences)

    @classmethod
    def prepare(
        cls,
        config: Any,
        data_dir: Path,
        pairs: Sequence[Any],
        forbidden: set[str],
        *,
        say: Callable[[str], None] = print,
        progress: bool = True,
    ) -> TeacherSide:
        if config.teacher is None:
            return cls()
        from parasent.training.trainer import resolve_device

        teacher = CachedTeacher(
            config.teacher,
            cache_dir=config.cache_dir,
            device=str(resolve_device(config.device)),
            progress=progress,
        )
        side = cls(teacher, [], config.teacher_weight, {"teacher": teacher.describe()})
        if config.teacher_weight > 0 or (config.distill_context and config.vectors == DISTILLED):
            sentences, counts = unlabelled_sentences(
                config.teacher_text,
                data_dir,
                pairs,
                forbidden,
                limit=config.teacher_max_sentences,
                seed=config.seed,
            )
            side.sentences = sentences
            side.info["teacher_sentences"] = counts
            by_source = ", ".join(f"{k} {v}" for k, v in counts.items() if k != "leaked")
            say(
                f"teacher regression on {len(sentences)} unlabelled sentences ({by_source}); "
                f"dropped {counts['leaked']} sharing a normalised sentence with an evaluation/validation set"
            )
        return side

    def distilled_vectors(
        self, config: Any, data_dir: Path, pairs: Sequence[Any], *, say: Callable[[str], None] = print
    ) -> WordVectors:
        from parasent.training.run import resolve_vectors_path

        texts = [s for pair in pairs for s in (pair.s1, pair.s2)] + self.sentences
        init = distilled_vectors(
            self.teacher,
            resolve_vectors_path(config.frequencies, data_dir),
            top=config.distill_vocab,
            training_texts=texts,
            weighting=config.distill_weighting,
            sif_a=config.distill_sif_a,
            pca_dim=config.distill_pca,
            contextual_texts=self.sentences if config.distill_context else (),
            say=say,
        )
        self.info["distilled"] = init.info
        self.projection = init.projection
        return init.vectors

    def remove_components(
        self,
        config: Any,
        encoder: Any,
        tokenizer: Any,
        pairs: Sequence[Any],
        *,
        say: Callable[[str], None] = print,
    ) -> np.ndarray:
        """The encoder's word vectors without the top principal components of the averaged
        training sentences (pairs and unlabelled), folded into every word vector."""
        from parasent.distillation.postprocess import principal_components, remove_components
        from parasent.inference import average_rows
        from parasent.text.tokenizer import PAD_ID

        texts = list(dict.fromkeys([s for pair in pairs for s in (pair.s1, pair.s2)] + self.sentences))
        table = encoder.embedding.weight.detach().cpu().numpy()
        components = principal_components(
            average_rows(tokenizer.encode_batch(texts), table), config.remove_components
        )
        table = remove_components(table, components)
        table[PAD_ID] = 0.0
        say(
            f"removed the top {config.remove_components} principal component(s) of {len(texts)} training sentences"
        )
        self.info["removed_components"] = config.remove_components
        return table

    def objective_and_data(
        self,
        config: Any,
        encoder: Any,
        tokenizer: Any,
        margin: Any,
        pairs: Any,
        *,
        say: Callable[[str], None] = print,
    ) -> tuple[Any, Any]:
        """The margin loss on the pairs alone, or with the teacher regression mixed in."""
        if not self.active:
            return margin, pairs
        from parasent.objectives.distillation import DistillationObjective
        from parasent.training.sentences import MixedData, SentenceTargets

        targets = self.teacher.encode(self.sentences, desc="teacher (sentences)")
        if self.projection is not None:
            targets = self.projection.apply(targets)
        if targets.shape[1] != encoder.output_dim:
            raise ValueError(
                f"the teacher's {targets.shape[1]}-dimensional embeddings cannot be regressed by a "
                f"{encoder.output_dim}-dimensional encoder (distil the initial vectors from the same teacher)"
            )
        sentences = SentenceTargets(tokenizer.encode_batch(self.sentences), targets)
        use_pairs = len(pairs) > 0 and config.margin_weight > 0
        objective = DistillationObjective(
            encoder,
            margin=margin if use_pairs else None,
            teacher_weight=self.teacher_weight,
            margin_weight=config.margin_weight,
            lambda_w=config.lambda_w,
            initial_embeddings=encoder.embedding.weight.detach().clone(),
        )
        return objective, MixedData(pairs if use_pairs else None, sentences, config.teacher_batch_size)

    def metadata(self) -> dict[str, Any]:
        return dict(self.info)
