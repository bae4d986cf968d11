"""Paraphrase generators for synthetic training pairs (Hokamp & Arora 2016, Sec. 3.2).

The DCU-SEManiacs system adds, for every sentence of the test sets, one paraphrase made by
machine translation into Spanish and back, and trains on the pairs (sentence, paraphrase):
unsupervised adaptation to the test domain. A generator is anything with

    name: str
    generate(sentences: Sequence[str]) -> list[list[str]]   # paraphrases of each sentence

Three are provided:

- :class:`LexicalSubstitution` (``ppdb``): offline; substitutes lexical PPDB synonyms for
  words of the sentence. No translation service is needed.
- :class:`PairFileGenerator` (``file:PATH``): pre-generated paraphrases, ``sentence<TAB>
  paraphrase`` per line, e.g. round-trip translations made elsewhere.
- :class:`CallableGenerator` (``python:MODULE:FUNCTION``): any function taking a list of
  sentences and returning a list of paraphrase lists, e.g. one that calls an MT system
  twice (English -> Spanish -> English).

Pairs made for evaluation sentences touch the evaluation data (the paper's transductive
trick): :func:`synthetic_pairs` marks their source, and training reports it.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from parasent.data.readers.ppdb import read_ppdb_lexical
from parasent.data.training_text.leakage import normalize_for_leakage
from parasent.data.training_text.pools import TrainingPair
from parasent.errors import DataNotFoundError
from parasent.support.lines import LineReader
from parasent.text.tokenizer import pre_tokenize

PPDB_SYNONYMS = "paraphrase/ppdb_lexical/ppdb_synonyms.txt.gz"


class ParaphraseGenerator(Protocol):
    name: str

    def generate(self, sentences: Sequence[str]) -> list[list[str]]: ...


def _sentence_seed(sentence: str, seed: int, variant: int) -> list[int]:
    digest = hashlib.sha256(sentence.encode("utf-8")).digest()
    return [seed, variant, int.from_bytes(digest[:8], "little")]


class LexicalSubstitution:
    """Paraphrase by substituting synonyms: each word with a synonym is replaced with
    probability ``rate`` (at least one word per paraphrase), by a synonym chosen at random.

    The output is the lowercased, tokenized sentence (what the model sees). Choices depend
    on the sentence, ``seed`` and the variant number only, so generation is reproducible
    and independent of the order of the sentences. A sentence without any word that has a
    synonym gets no paraphrase.
    """

    name = "ppdb"

    def __init__(
        self, synonyms: dict[str, list[str]], *, rate: float = 0.5, variants: int = 1, seed: int = 1
    ) -> None:
        if not 0.0 < rate <= 1.0:
            raise ValueError(f"rate must be in (0, 1], got {rate}")
        if variants < 1:
            raise ValueError(f"variants must be at least 1, got {variants}")
        self.synonyms = {word: sorted(set(options) - {word}) for word, options in synonyms.items()}
        self.synonyms = {word: options for word, options in self.synonyms.items() if options}
        self.rate = rate
        self.variants = variants
        self.seed = seed

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[str, str]], **options) -> LexicalSubstitution:
        synonyms: dict[str, list[str]] = {}
        for a, b in pairs:
            a, b = a.lower(), b.lower()
            if a != b and " " not in a and " " not in b:
                synonyms.setdefault(a, []).append(b)
        return cls(synonyms, **options)

    @classmethod
    def from_ppdb(cls, path: str | Path, **options) -> LexicalSubstitution:
        """From a lexical PPDB file (``word1 word2`` per line)."""
        return cls.from_pairs(((p.s1, p.s2) for p in read_ppdb_lexical(path)), **options)

    def paraphrase(self, sentence: str, variant: int = 0) -> str | None:
        words = pre_tokenize(sentence)
        candidates = [i for i, w in enumerate(words) if w in self.synonyms]
        if not candidates:
            return None
        rng = np.random.default_rng(_sentence_seed(sentence, self.seed, variant))
        chosen = [i for i in candidates if rng.random() < self.rate]
        if not chosen:
            chosen = [candidates[int(rng.integers(len(candidates)))]]
        out = list(words)
        for i in chosen:
            options = self.synonyms[words[i]]
            out[i] = options[int(rng.integers(len(options)))]
        return " ".join(out)

    def generate(self, sentences: Sequence[str]) -> list[list[str]]:
        results = []
        for sentence in sentences:
            found: list[str] = []
            for variant in range(self.variants):
                text = self.paraphrase(sentence, variant)
                if text is not None and text not in found:
                    found.append(text)
            results.append(found)
        return results


class PairFileGenerator:
    """Paraphrases read from a file of ``sentence<TAB>paraphrase`` lines (several lines may
    share a sentence). Sentences are matched after normalisation to lowercase letters and
    digits, so a tokenized copy of a sentence finds its paraphrases."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.name = f"file:{self.path.name}"
        self.table: dict[str, list[str]] = {}
        reader = LineReader(self.path)
        for number, text in reader:
            if not text.strip():
                continue
            fields = text.split("\t")
            if len(fields) != 2 or not fields[0].strip() or not fields[1].strip():
                reader.fail(number, "expected 'sentence<TAB>paraphrase' with both sides non-empty")
                continue
            paraphrases = self.table.setdefault(normalize_for_leakage(fields[0]), [])
            if fields[1] not in paraphrases:
                paraphrases.append(fields[1])

    def generate(self, sentences: Sequence[str]) -> list[list[str]]:
        return [list(self.table.get(normalize_for_leakage(s), [])) for s in sentences]


class CallableGenerator:
    """A function ``f(list_of_sentences) -> list_of_paraphrase_lists`` as a generator."""

    def __init__(self, function: Callable[[list[str]], list[list[str]]], name: str | None = None) -> None:
        self.function = function
        self.name = name or getattr(function, "__name__", "callable")

    def generate(self, sentences: Sequence[str]) -> list[list[str]]:
        results = self.function(list(sentences))
        if len(results) != len(sentences):
            raise ValueError(
                f"paraphrase generator {self.name!r} returned {len(results)} results for {len(sentences)} sentences"
            )
        return [[results_i] if isinstance(results_i, str) else list(results_i) for results_i in results]


GENERATOR_SPECS = ("ppdb", "file:PATH", "python:MODULE:FUNCTION")


def build_generator(spec: str, data_dir: str | Path | None = None, *, seed: int = 1) -> ParaphraseGenerator:
    """A generator from its spec: ``ppdb``, ``file:PATH`` or ``python:MODULE:FUNCTION``."""
    if spec == "ppdb":
        if data_dir is None:
            raise DataNotFoundError("the ppdb generator reads lexical PPDB from the data directory")
        return LexicalSubstitution.from_ppdb(Path(data_dir) / PPDB_SYNONYMS, seed=seed)
    if spec.startswith("file:"):
        return PairFileGenerator(spec[len("file:") :])
    if spec.startswith("python:"):
        target = spec[len("python:") :]
        module_name, _, function_name = target.rpartition(":")
        if not module_name or not function_name:
            raise ValueError(f"expected python:MODULE:FUNCTION, got {spec!r}")
        try:
            function = getattr(importlib.import_module(module_name), function_name)
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"paraphrase generator {spec!r}: {exc}") from None
        return CallableGenerator(function, name=target)
    raise ValueError(f"unknown paraphrase generator {spec!r} (known: {', '.join(GENERATOR_SPECS)})")


def synthetic_pairs(
    generator: ParaphraseGenerator, sentences: Iterable[str], *, label: str = ""
) -> list[TrainingPair]:
    """``(sentence, paraphrase)`` pairs for the unique ``sentences``; a paraphrase equal to
    its sentence (after normalisation) is dropped. ``label`` is added to the source name
    (e.g. the suite whose sentences were paraphrased)."""
    unique = list(dict.fromkeys(s for s in sentences if s.strip()))
    source = f"synthetic:{generator.name}" + (f"@{label}" if label else "")
    pairs = []
    for sentence, paraphrases in zip(unique, generator.generate(unique), strict=True):
        for paraphrase in paraphrases:
            if paraphrase.strip() and normalize_for_leakage(paraphrase) != normalize_for_leakage(sentence):
                pairs.append(TrainingPair(sentence, paraphrase, source))
    return pairs
