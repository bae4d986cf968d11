"""Training pools of paraphrase pairs, and the no-leakage rule of the standard protocol.

The *standard* pool (data MANIFEST): PPDB human-rated pairs with mean score >= 4, lexical
PPDB synonyms, and Twitter URL and MSRP pairs labelled 1 (both splits of each: neither is
an evaluation set here). Before training, every pair sharing a normalised sentence with an
evaluation or validation set is dropped, and the count is reported.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from parasent.data.readers.pairs import read_labelled_pairs, read_text_pairs
from parasent.data.readers.ppdb import read_ppdb_phrasal
from parasent.data.readers.ppdb_task import ppdb_protocol_exclusions
from parasent.data.readers.records import ScoredPair, TrainingPair
from parasent.data.readers.sts import read_own_sts
from parasent.data.registry import DataRecord
from parasent.data.registry.catalog import (
    DOMAIN_TESTS,
    POOLS,
    PPDB_HUMAN_MIN_SCORE,
    STS_PARAPHRASE_MIN_SCORE,
    TEXT_SOURCES,
    suite_datasets,
)
from parasent.data.training_text.leakage import (
    GUARD_SWITCH,
    guard_note,
    normalize_for_leakage,
    pair_key,
)
from parasent.errors import DataNotFoundError
from parasent.support.lines import ReadReport

__all__ = [
    "POOLS",
    "PPDB_HUMAN_MIN_SCORE",
    "STS_PARAPHRASE_MIN_SCORE",
    "PoolReport",
    "TrainingPair",
    "build_pool",
    "evaluation_sentences",
    "held_domain_tests",
    "unguarded_note",
    "filter_pairs",
    "protocol_exclusions",
    "read_pair_file",
    "source_pairs",
    "sts2012_train_pairs",
]


def source_pairs(record: DataRecord, root: Path) -> Iterator[TrainingPair]:
    """The positives of one pool source (a registry record), named by the source's group;
    scored pairs keep their score (see ``min_score`` of :func:`build_pool`)."""
    for pair in record.read(root):
        score = pair.score if isinstance(pair, ScoredPair) else None
        yield TrainingPair(pair.s1, pair.s2, record.group, score)


def sts2012_train_pairs(root: Path) -> Iterator[TrainingPair]:
    """The STS 2012 training sets (MSRpar, SMTeuroparl, MSRvid) with their gold scores."""
    for record in POOLS["sts2012-train"].sources:
        yield from source_pairs(record, Path(root))


def _labelled_positives(path: str | Path, **options: Any) -> Iterator[Any]:
    """The paraphrases (label 1) of a user's labelled file; a label other than 0 or 1 is an error
    naming its line, as when every pair is ranked (never dropped unseen)."""
    return (pair for pair in read_labelled_pairs(path, binary=True, **options) if pair.label == 1)


#: The formats of a user's pair files (``--pairs FILE:FORMAT``): ``tsv`` (``s1<TAB>s2``),
#: ``labelled`` (``label<TAB>s1<TAB>s2``, label 1 kept; every pair, its label as its score,
#: when pairs are ranked by score), ``ppdb`` (a PPDB phrasal release), ``sts``
#: (``score<TAB>s1<TAB>s2``, scored: see ``min_score`` and ``ranked`` of :func:`build_pool`).
PAIR_READERS: dict[str, Callable[..., Iterator[Any]]] = {
    "tsv": read_text_pairs,
    "labelled": _labelled_positives,
    "ppdb": read_ppdb_phrasal,
    "sts": read_own_sts,
}
PAIR_FORMATS = tuple(PAIR_READERS)
FORMAT_SPELLINGS = {"labeled": "labelled"}  # the American spelling names the same format


def split_pair_spec(spec: str, default: str | None = "tsv") -> tuple[str, str | None]:
    """``FILE[:FORMAT]`` as ``(path, format)`` (the format in any case); a suffix that names no
    format is part of the path (``C:/x``, ``a:b.tsv``), and ``default`` stands for the format
    not given."""
    path, sep, fmt = spec.rpartition(":")
    fmt = FORMAT_SPELLINGS.get(fmt.lower(), fmt.lower())
    return (path, fmt) if sep and fmt in PAIR_FORMATS else (spec, default)


def sniff_pair_format(path: str | Path, lines: int = 1000) -> str:
    """The pair format of a file whose ``:FORMAT`` was not given, by what most of its first
    ``lines`` lines are (so that one malformed line is reported where it is, by the format's
    reader, instead of turning the file into another format): ``tsv`` unless most are
    ``number<TAB>s1<TAB>s2``; then ``labelled`` when those numbers are 0 or 1 (all but under
    1% of them: a stray 2 is a bad line of a labelled file), ``sts`` otherwise (``ppdb`` is
    only ever named); up to three whole numbers (NLI's 0/1/2) are refused, since classes read
    as scores give a correlation that means nothing. ``evaluate --pairs`` and ``train
    --pairs`` read it alike."""
    shapes = _first_fields(path, lines)
    numbered = [(number, value) for number, value in shapes if value is not None and _is_number(value)]
    if len(numbered) * 2 <= len(shapes):
        return "tsv"
    fmt = scores_format([value for _, value in numbered])
    if fmt == AMBIGUOUS:
        first = next(number for number, value in numbered if value not in ("0", "1"))
        seen = sorted({value for _, value in numbered})
        raise ValueError(
            f"{path}:{first}: its first field takes only the values {', '.join(seen)}: class labels "
            f"(NLI's 0/1/2?) or scores? name the format: {path}:sts for similarity scores; a labelled file holds 0 and 1"
        )
    return fmt


AMBIGUOUS = "ambiguous"  # scores_format's answer for up to three whole numbers


def scores_format(values: Sequence[str]) -> str:
    """The format that pairs' scores, as written, say: ``labelled`` when they are 0 or 1 (all but
    under 1% of them: a stray value is a bad line of a labelled file, which its reader names),
    :data:`AMBIGUOUS` for up to three whole numbers (NLI's 0/1/2: classes read as scores give a
    correlation that means nothing), ``sts`` otherwise. A file's first fields
    (:func:`sniff_pair_format`) and a list of pairs handed to ``fit`` follow this one rule."""
    seen = set(values)
    others = sum(value not in ("0", "1") for value in values)
    if seen <= {"0", "1"} or others * 100 < len(values):
        return "labelled"
    if len(seen) <= 3 and all(value.isdigit() for value in seen):
        return AMBIGUOUS
    return "sts"


def _first_fields(path: str | Path, lines: int) -> list[tuple[int, str | None]]:
    """Each non-blank line's number and first field, None for a line of fewer than three."""
    from parasent.data.readers.line_shapes import skip_header
    from parasent.support.lines import LineReader

    shapes: list[tuple[int, str | None]] = []
    for number, text in skip_header(LineReader(path, copy_pipe=True)):  # a header says nothing of the format
        if text.strip():
            parts = text.split("\t")
            shapes.append((number, parts[0].strip() if len(parts) >= 3 else None))
        if number >= lines:
            break
    return shapes


def _is_number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


def resolve_pair_spec(spec: str) -> tuple[str, str]:
    """``FILE[:FORMAT]`` as ``(path, format)``, the format sniffed from the file when not named
    (a file that is not there is ``tsv``: its reader says it is missing)."""
    path, fmt = split_pair_spec(spec, default=None)
    if fmt is None:
        head, sep, suffix = spec.rpartition(":")
        if sep and not Path(spec).exists() and Path(head).is_file():  # mine.tsv:csv
            raise ValueError(f"{spec}: unknown pair format {suffix!r} (known: {', '.join(PAIR_FORMATS)})")
        from parasent.support.pipes import is_pipe

        fmt = sniff_pair_format(path) if Path(path).is_file() or is_pipe(path) else "tsv"
    return path, fmt


def read_pair_file(
    path: str | Path,
    fmt: str = "tsv",
    *,
    lenient: bool = False,
    report: ReadReport | None = None,
    ranked: bool = False,
) -> Iterator[TrainingPair]:
    """A user's own pairs, read by the reader of ``fmt`` (:data:`PAIR_READERS`); ``ranked``:
    a labelled file gives every pair, its label as its score."""
    if fmt not in PAIR_READERS:
        raise ValueError(f"unknown pair format {fmt!r} (known: {', '.join(PAIR_FORMATS)})")
    source = f"file:{Path(path).name}"
    if ranked and fmt == "labelled":
        for pair in read_labelled_pairs(path, lenient=lenient, report=report, binary=True):
            yield TrainingPair(pair.s1, pair.s2, source, float(pair.label))
        return
    for pair in PAIR_READERS[fmt](path, lenient=lenient, report=report):
        yield TrainingPair(pair.s1, pair.s2, source, pair.score if isinstance(pair, ScoredPair) else None)


GUARDED_SUITES = ("transfer", "validation")  # whose sentences the leakage guard keeps out of training


def evaluation_sentences(
    data_dir: str | Path, suites: Iterable[str] = GUARDED_SUITES, domains: Iterable[str] = DOMAIN_TESTS
) -> set[str]:
    """Normalised sentences of every evaluation and validation set, and of the ``domains``'
    test splits that the data directory holds (:data:`~parasent.data.registry.catalog.DOMAIN_TESTS`:
    docs/adapt.md measures fine-tuning on them, so no training run may see them, pairs or text)."""
    sentences: set[str] = set()
    for suite in suites:
        for spec in suite_datasets(suite):
            for pair in spec.load(data_dir):
                sentences.add(normalize_for_leakage(pair.s1))
                sentences.add(normalize_for_leakage(pair.s2))
    for name in held_domain_tests(data_dir, domains):
        sentences.update(normalize_for_leakage(text) for text in TEXT_SOURCES[name].read(data_dir))
    sentences.discard("")
    return sentences


def held_domain_tests(data_dir: str | Path, domains: Iterable[str] = DOMAIN_TESTS) -> list[str]:
    """The names of ``domains`` whose test files the data directory holds (the guard covers those)."""
    held = []
    for name in domains:
        paths = _held(TEXT_SOURCES[name], data_dir)
        if paths and all(path.is_file() for path in paths):
            held.append(name)
    return held


def unguarded_note(data_dir: str | Path, held: Iterable[str]) -> str | None:
    """What a run (or ``prepare``) under the guard on says when the data directory lacks some of
    the domain test splits (``held``: those it has): a figure on the others is not guarded."""
    missing = [name for name in DOMAIN_TESTS if name not in set(held)]
    if not missing:
        return None
    return (
        f"note: the leakage guard covers the domain test splits {data_dir} holds; {', '.join(missing)} "
        "not there, so a figure on them is not guarded"
    )


def _held(record: DataRecord, data_dir: str | Path) -> list[Path]:
    """The files of ``record`` in ``data_dir``; none where a glob matches nothing."""
    try:
        return record.paths(data_dir)
    except DataNotFoundError:
        return []


#: What each protocol keeps out of training besides the evaluation sentences. ``standard``:
#: nothing more (its pool trains on the PPDB human ratings >= 4). ``ppdb`` (Wieting et al. 2016,
#: Sec. 4.2.1: selection on the PPDB task): every Pavlick pair and every pair sharing a
#: phrase with the PPDB test half (:mod:`parasent.data.readers.ppdb_task`).
PROTOCOLS = ("standard", "ppdb")


def protocol_exclusions(
    root: str | Path, protocol: str = "standard", *, domains: bool = True
) -> tuple[set[str], set[tuple[str, str]]]:
    """``(forbidden texts, forbidden pairs)`` of a protocol, as :func:`filter_pairs` takes them;
    without ``domains``, the domain test splits' sentences are not among them (``--leakage-guard suites``)."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {protocol!r} (known: {', '.join(PROTOCOLS)})")
    forbidden = evaluation_sentences(root, domains=DOMAIN_TESTS if domains else ())
    if protocol == "standard":
        return forbidden, set()
    phrases, pairs = ppdb_protocol_exclusions(root)
    return forbidden | phrases, pairs


@dataclass
class PoolReport:
    read: Counter = field(default_factory=Counter)
    kept: Counter = field(default_factory=Counter)
    leaked: Counter = field(default_factory=Counter)
    duplicates: int = 0
    empty: int = 0
    skipped: list[str] = field(default_factory=list)  # lenient reads: one summary per file
    notes: list[str] = field(default_factory=list)  # how a user's file was read (one score for all)
    below_score: Counter = field(default_factory=Counter)  # scored pairs under the min score
    min_score: float | None = None
    excluded: Counter = field(default_factory=Counter)  # pairs of an evaluation task (protocol ppdb)
    phrase_guard: bool = False  # the forbidden texts include the PPDB test phrases (protocol ppdb)
    guard: str = "on"  # the leakage guard's state (GUARD_STATES; off: nothing dropped as leaked)
    domain_tests: list[str] = field(default_factory=list)  # the domain test splits the guard covered

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
        if sum(self.below_score.values()):
            lines.append(
                f"dropped {sum(self.below_score.values())} scored pair(s) below the paraphrase "
                f"threshold (score < {self.min_score:g})"
            )
        if sum(self.excluded.values()):
            lines.append(
                f"dropped {sum(self.excluded.values())} pair(s) of the PPDB task (Pavlick et al. 2015) itself"
            )
        leaked = (
            f"dropped {self.total_leaked} pair(s) sharing a sentence with an evaluation/validation set"
            f"{' or a domain test split' if self.guard == 'on' else ''}"
            f"{' or a phrase with the PPDB test half' if self.phrase_guard else ''}"
            if self.guard != "off"
            else f"leakage guard off ({GUARD_SWITCH}): pairs sharing a sentence with an evaluation set are kept"
        )
        lines.append(
            f"{leaked}, {self.duplicates} duplicate(s), {self.empty} with an empty side; kept {self.total_kept}"
        )
        lines.extend(self.skipped + self.notes)
        notes = dict(self._guard_notes())
        for source, read in self.read.items():
            if source.startswith("file:") and read and not self.kept[source]:
                lines.append(
                    f"{source[5:]}: none of its {read} pair(s) is kept ({self.leaked[source]} share a sentence "
                    "with an evaluation set; the others repeat pairs read before them, have an empty side, or "
                    "score below the threshold)" + (f"; {notes.pop(source)}" if source in notes else "")
                )
        lines.extend(notes.values())
        return "\n".join(lines)

    def guard_notes(self) -> list[str]:
        """A sentence for each of the user's files the leakage guard took most of, naming the
        guard and its switch (a run left short must say what took its pairs)."""
        return [note for _, note in self._guard_notes()]

    def _guard_notes(self) -> list[tuple[str, str]]:
        notes = [
            (s, guard_note(s[5:], self.leaked[s], read, state=self.guard))
            for s, read in self.read.items()
            if s.startswith("file:")
        ]
        return [(source, note) for source, note in notes if note]

    def to_dict(self) -> dict:
        return {
            "read": dict(self.read),
            "kept": dict(self.kept),
            "leaked": dict(self.leaked),
            "duplicates": self.duplicates,
            "empty": self.empty,
            "skipped": self.skipped,
            "notes": self.notes,
            "below_score": dict(self.below_score),
            "min_score": self.min_score,
            "excluded": dict(self.excluded),
            "phrase_guard": self.phrase_guard,
            "leakage_guard": self.guard,
            "domain_tests": list(self.domain_tests),
        }


def filter_pairs(
    pairs: Iterable[TrainingPair],
    forbidden: set[str],
    *,
    min_score: float | None = None,
    forbidden_pairs: set[tuple[str, str]] | frozenset = frozenset(),
) -> tuple[list[TrainingPair], PoolReport]:
    """Drop leaked pairs (a side whose normalised text is in ``forbidden``), pairs of an
    evaluation task (their order-free normalised key in ``forbidden_pairs``: counted as
    ``excluded``), duplicates, empty pairs, and scored pairs below ``min_score``."""
    report = PoolReport(min_score=min_score)
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
        if min_score is not None and pair.score is not None and pair.score < min_score:
            report.below_score[pair.source] += 1
            continue
        if forbidden_pairs and pair_key(left, right) in forbidden_pairs:
            report.excluded[pair.source] += 1
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
    forbidden_pairs: set[tuple[str, str]] | frozenset = frozenset(),
    min_score: float | None = None,
    lenient: bool = False,
    ranked: bool = False,
) -> tuple[list[TrainingPair], PoolReport]:
    """Pairs of a named pool plus user files ``(path, format)``, with leakage removed.

    Scored pairs (STS) count as paraphrases from ``min_score`` up; by default from the
    pool's own threshold (``sts2012-train``: 3.8). ``ranked``: scored and labelled pairs are
    all kept with their scores, for an objective that ranks them (no threshold). ``forbidden_pairs`` (order-free keys of
    normalised texts, :func:`protocol_exclusions`) are pairs of an evaluation task. ``lenient`` skips malformed lines of the
    user files (counted in ``PoolReport.skipped``); the shared pool files are read strictly.
    """
    root = Path(data_dir)
    pool = POOLS[name] if name is not None else None
    files = list(files)
    reports = [ReadReport() for _ in files]
    if min_score is None and pool is not None and not ranked:
        min_score = pool.min_score
    if ranked:
        min_score = None

    def stream() -> Iterator[TrainingPair]:
        if pool is not None:
            for source in pool.sources:
                yield from source_pairs(source, root)
        for (path, fmt), read_report in zip(files, reports, strict=True):
            read = _not_empty(
                read_pair_file(path, fmt, lenient=lenient, report=read_report, ranked=ranked),
                path,
                read_report,
                positives_only=fmt == "labelled" and not ranked,
            )
            yield from _one_score_checked(read, path, notes) if ranked else read

    if forbidden is None:
        forbidden = evaluation_sentences(root)
    notes: list[str] = []
    pairs, report = filter_pairs(stream(), forbidden, min_score=min_score, forbidden_pairs=forbidden_pairs)
    report.phrase_guard = bool(forbidden_pairs)
    report.skipped = [r.summary() for r in reports if r.skipped]
    report.notes = [note for r in reports for note in r.notes] + notes  # a header line skipped, ...
    return pairs, report


def _not_empty(
    pairs: Iterable[TrainingPair], path: str | Path, report: ReadReport, positives_only: bool
) -> Iterator[TrainingPair]:
    """``pairs`` as read, refused after the last line when the user's file gave none: a run
    would otherwise train on nothing (or on the pool alone) and say it fine-tuned.
    ``positives_only``: a labelled file read for its paraphrases (the pairs labelled 1)."""
    count = 0
    for pair in pairs:
        count += 1
        yield pair
    if count:
        return
    if report.skipped:
        why = report.summary().removeprefix(f"{report.path}: ")
    elif positives_only:
        why = "no pair labelled 1: a labelled file gives its paraphrases to train on (the margin objective)"
    else:
        why = "it is empty or blank, or holds a header line alone"
    raise DataNotFoundError(f"{path}: no pairs in it ({why})")


def paraphrases_only(pairs: Sequence[TrainingPair], name: str) -> bool:
    """Whether scored ``pairs`` (a file, or the held-out part of one) are all labelled 1: pairs
    of paraphrases, with nothing to rank (training takes them as plain pairs, Eq. 1; evaluation
    scores them as retrieval). One other score for all is refused in one line: a ranking loss of
    equals is always zero and a correlation with a constant undefined."""
    scores = {p.score for p in pairs}
    if len(scores) != 1 or None in scores or len(pairs) < 2:
        return False
    (score,) = scores
    if score == 1.0:
        return True
    if score == 0.0:
        raise ValueError(f"{name}: every pair is labelled 0 (no paraphrase): ranking needs pairs labelled 1")
    raise ValueError(
        f"{name}: every pair has the score {score:g}: ranking and correlation need different scores "
        "(give the pairs as s1<TAB>s2 if they are paraphrases)"
    )


def _one_score_checked(
    pairs: Iterable[TrainingPair], path: str | Path, notes: list[str]
) -> Iterator[TrainingPair]:
    """A user's file read for ranking, its pairs plain when they are all labelled 1
    (:func:`paraphrases_only`; noted in ``notes``)."""
    pairs, name = list(pairs), Path(path).name
    if not paraphrases_only(pairs, name):
        yield from pairs
        return
    notes.append(
        f"{name}: every pair is labelled 1: trained as paraphrase pairs (Eq. 1, negatives from the batch)"
    )
    yield from (TrainingPair(p.s1, p.s2, p.source) for p in pairs)
