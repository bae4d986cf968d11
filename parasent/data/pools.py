"""Training pools of paraphrase pairs, and the no-leakage rule of the standard protocol.

The *standard* pool (data MANIFEST): PPDB human-rated pairs with mean score >= 4, lexical
PPDB synonyms, and Twitter URL and MSRP pairs labelled 1 (both splits of each: neither is
an evaluation set here). Before training, every pair sharing a normalised sentence with an
evaluation or validation set is dropped, and the count is reported.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from parasent.data.lines import ReadReport
from parasent.data.pairs import read_labelled_pairs, read_text_pairs
from parasent.data.ppdb import read_ppdb_human, read_ppdb_lexical, read_ppdb_phrasal

PPDB_HUMAN_MIN_SCORE = 4.0


@dataclass(frozen=True, slots=True)
class TrainingPair:
    s1: str
    s2: str
    source: str


@dataclass(frozen=True)
class PoolSource:
    """One family of pairs in a pool; ``read`` yields positives from the data directory."""

    name: str
    description: str
    read: Callable[[Path], Iterator[TrainingPair]]


def _ppdb_human(root: Path) -> Iterator[TrainingPair]:
    for sample in ("ppdb-sample", "wiki-sample"):
        for pair in read_ppdb_human(root / "paraphrase/ppdb_human_labels" / f"{sample}.tsv.gz"):
            if pair.score >= PPDB_HUMAN_MIN_SCORE:
                yield TrainingPair(pair.s1, pair.s2, "ppdb-human")


def _ppdb_lexical(root: Path) -> Iterator[TrainingPair]:
    for pair in read_ppdb_lexical(root / "paraphrase/ppdb_lexical/ppdb_synonyms.txt.gz"):
        yield TrainingPair(pair.s1, pair.s2, "ppdb-lexical")


def _labelled(folder: str, source: str) -> Callable[[Path], Iterator[TrainingPair]]:
    def read(root: Path) -> Iterator[TrainingPair]:
        for split in sorted((root / folder).glob("*.tsv*")):
            for pair in read_labelled_pairs(split):
                if pair.label == 1:
                    yield TrainingPair(pair.s1, pair.s2, source)

    return read


POOLS: dict[str, list[PoolSource]] = {
    "standard": [
        PoolSource("ppdb-human", "PPDB 2.0 human-rated phrase pairs, mean score >= 4", _ppdb_human),
        PoolSource("ppdb-lexical", "lexical PPDB 2.0 synonyms", _ppdb_lexical),
        PoolSource(
            "twitter-url",
            "Twitter URL corpus pairs labelled 1 (train + test)",
            _labelled("paraphrase/twitter_url_corpus", "twitter-url"),
        ),
        PoolSource("msrp", "MSRP pairs labelled 1 (train + test)", _labelled("paraphrase/msrp", "msrp")),
    ],
}

PAIR_FORMATS = ("tsv", "labelled", "ppdb")


def read_pair_file(
    path: str | Path, fmt: str = "tsv", *, lenient: bool = False, report: ReadReport | None = None
) -> Iterator[TrainingPair]:
    """A user's own pairs: ``tsv`` (``s1<TAB>s2``), ``labelled`` (``label<TAB>s1<TAB>s2``, label 1
    kept) or ``ppdb`` (a PPDB phrasal release)."""
    source = f"file:{Path(path).name}"
    options = {"lenient": lenient, "report": report}
    if fmt == "tsv":
        for pair in read_text_pairs(path, **options):
            yield TrainingPair(pair.s1, pair.s2, source)
    elif fmt == "labelled":
        for pair in read_labelled_pairs(path, **options):
            if pair.label == 1:
                yield TrainingPair(pair.s1, pair.s2, source)
    elif fmt == "ppdb":
        for rule in read_ppdb_phrasal(path, **options):
            yield TrainingPair(rule.s1, rule.s2, source)
    else:
        raise ValueError(f"unknown pair format {fmt!r} (known: {', '.join(PAIR_FORMATS)})")


def normalize_for_leakage(text: str) -> str:
    """Lowercase letters and digits only, so tokenized copies ("dominick 's") match raw text ("Dominick's")."""
    return "".join(ch for ch in text.lower() if ch.isalnum())


def evaluation_sentences(
    data_dir: str | Path, suites: Iterable[str] = ("transfer", "validation")
) -> set[str]:
    """Normalised sentences of every evaluation and validation set."""
    from parasent.evaluation.datasets import suite_datasets

    sentences: set[str] = set()
    for suite in suites:
        for spec in suite_datasets(suite):
            for pair in spec.load(data_dir):
                sentences.add(normalize_for_leakage(pair.s1))
                sentences.add(normalize_for_leakage(pair.s2))
    sentences.discard("")
    return sentences


@dataclass
class PoolReport:
    read: Counter = field(default_factory=Counter)
    kept: Counter = field(default_factory=Counter)
    leaked: Counter = field(default_factory=Counter)
    duplicates: int = 0
    empty: int = 0
    skipped: list[str] = field(default_factory=list)  # lenient reads: one summary per file

    @property
    def total_kept(self) -> int:
        return sum(self.kept.values())

    @property
    def total_leaked(self) -> int:
        return sum(self.leaked.values())

    def summary(self) -> str:
        lines = [f"{'source':<16} {'read':>8} {'leaked':>8} {'kept':>8}"]
        for source in self.read:
            lines.append(
                f"{source:<16} {self.read[source]:>8} {self.leaked[source]:>8} {self.kept[source]:>8}"
            )
        lines.append(
            f"dropped {self.total_leaked} pair(s) sharing a sentence with an evaluation/validation set, "
            f"{self.duplicates} duplicate(s), {self.empty} with an empty side; kept {self.total_kept}"
        )
        lines.extend(self.skipped)
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {
            "read": dict(self.read),
            "kept": dict(self.kept),
            "leaked": dict(self.leaked),
            "duplicates": self.duplicates,
            "empty": self.empty,
            "skipped": self.skipped,
        }


def filter_pairs(pairs: Iterable[TrainingPair], forbidden: set[str]) -> tuple[list[TrainingPair], PoolReport]:
    """Drop leaked pairs (a side whose normalised text is in ``forbidden``), duplicates and empty pairs."""
    report = PoolReport()
    seen: set[tuple[str, str]] = set()
    kept: list[TrainingPair] = []
    for pair in pairs:
        report.read[pair.source] += 1
        report.kept[pair.source] += 0
        report.leaked[pair.source] += 0
        left, right = normalize_for_leakage(pair.s1), normalize_for_leakage(pair.s2)
        if not pair.s1.strip() or not pair.s2.strip():
            report.empty += 1
            continue
        if left in forbidden or right in forbidden:
            report.leaked[pair.source] += 1
            continue
        key = (pair.s1.strip().lower(), pair.s2.strip().lower())
        if key in seen or key[::-1] in seen:
            report.duplicates += 1
            continue
        seen.add(key)
        report.kept[pair.source] += 1
        kept.append(pair)
    return kept, report


def build_pool(
    data_dir: str | Path,
    name: str | None = "standard",
    *,
    files: Iterable[tuple[str | Path, str]] = (),
    forbidden: set[str] | None = None,
    lenient: bool = False,
) -> tuple[list[TrainingPair], PoolReport]:
    """Pairs of a named pool plus user files ``(path, format)``, with leakage removed.

    ``lenient`` skips malformed lines of the user files (counted in ``PoolReport.skipped``);
    the shared pool files are always read strictly.
    """
    root = Path(data_dir)
    if name is not None and name not in POOLS:
        raise KeyError(f"unknown pool {name!r} (known: {', '.join(POOLS)})")
    files = list(files)
    reports = [ReadReport() for _ in files]

    def stream() -> Iterator[TrainingPair]:
        if name is not None:
            for source in POOLS[name]:
                yield from source.read(root)
        for (path, fmt), read_report in zip(files, reports, strict=True):
            yield from read_pair_file(path, fmt, lenient=lenient, report=read_report)

    if forbidden is None:
        forbidden = evaluation_sentences(root)
    pairs, report = filter_pairs(stream(), forbidden)
    report.skipped = [r.summary() for r in reports if r.skipped]
    return pairs, report
