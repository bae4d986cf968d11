"""A model scored on a user's own pairs: ``parasent evaluate --pairs FILE[:FORMAT]``,
``evaluate(model, "FILE:FORMAT")``, and the held-out part of a fine-tuning run's pairs.

What the pairs carry decides the figures (the first is the primary one, which selects epochs):

- scores (``score<TAB>s1<TAB>s2``, format ``sts``): Pearson and Spearman x100 of cosine against
  the scores, as the STS suites report them;
- labels (``label<TAB>s1<TAB>s2``, format ``labelled``, 1 = paraphrase): average precision and
  ROC AUC x100 of ranking the paraphrases first by cosine, and the cosine threshold with the best
  F1 (with its precision, recall and accuracy): what to set to decide pairs;
- nothing (``s1<TAB>s2``, format ``tsv``, every pair a paraphrase): paraphrase retrieval, each
  first sentence ranking the distinct second sentences of all the pairs: top-1 accuracy and
  mean reciprocal rank x100 (a block of rows at a time, so memory stays bounded).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from parasent.core.inference import normalize_rows
from parasent.core.output import as_matrix
from parasent.data.readers.records import TrainingPair
from parasent.data.training_text.leakage import sentence_groups
from parasent.data.training_text.pools import paraphrases_only
from parasent.errors import DataNotFoundError
from parasent.evaluation.domain_tests import domain_tests_of, in_sample_warnings, leak_warnings
from parasent.evaluation.metrics import average_precision, best_f1, pearson, roc_auc, spearman
from parasent.support.lines import ReadReport
from parasent.support.tables import format_rows

RETRIEVAL_BLOCK = 1 << 22  # scores computed at once in retrieval (16 MB of float32)
HELD_OUT = "held-out"  # a run's --validation: a share of its own training pairs (not a file)


@dataclass
class PairPoints:
    """What one file's figures were computed from, pair by pair, for a plot
    (:mod:`parasent.analysis.plots`): each pair's cosine and gold score or label, or, for
    retrieval, the rank of each first sentence's right answer (ties: the harmonic mean of their
    ranks, the reciprocal of the expected reciprocal rank)."""

    kind: str  # "scored", "labelled" or "retrieval"
    cosines: np.ndarray | None = None
    gold: np.ndarray | None = None
    ranks: np.ndarray | None = None
    threshold: float | None = None  # labelled: the best-F1 cosine threshold
    hits: np.ndarray | None = None  # retrieval: each query's (expected) hit
    metric: Any = None  # graded: the primary figure's function of (cosines, gold)
    groups: np.ndarray | None = None  # graded: each pair's group of pairs sharing a sentence

    def pairs_with(self, other: PairPoints) -> bool:
        """Whether the two are figures of one set of pairs (same gold, same size), to be
        compared pair by pair."""
        if self.hits is not None:
            return other.hits is not None and len(self.hits) == len(other.hits)
        return (
            self.cosines is not None
            and other.cosines is not None
            and self.metric is other.metric
            and np.array_equal(self.gold, other.gold)
        )

    def paired_error(self, other: PairPoints) -> float | None:
        """The standard error of the figure's difference, over the same resamples of the pairs."""
        if self.hits is not None:
            return mean_error(self.hits - other.hits)
        mine, theirs, metric = self.cosines, other.cosines, self.metric
        return bootstrap(
            self.gold, lambda s, gold: metric(mine[s], gold) - metric(theirs[s], gold), groups=self.groups
        )


@dataclass
class PairsReport:
    """The figures of one set of pairs; ``primary_metric`` names the one that selects epochs."""

    name: str
    kind: str  # "scored", "labelled" or "retrieval"
    n: int
    figures: dict[str, float | None]  # None: undefined (constant predictions, one candidate)
    primary_metric: str
    model: str = ""
    skipped: list[str] = field(default_factory=list)
    standard_error: float | None = None  # of the primary figure, over the pairs (bootstrap_error)
    points: PairPoints | None = field(default=None, repr=False, compare=False)  # one file's
    warnings: list[str] = field(default_factory=list)  # a domain test split the model may have seen

    def difference_error(self, other: Any) -> float | None:
        """The standard error of this figure less ``other``'s on the same pairs (a paired
        bootstrap: two models scored on one held-out set differ far less than either figure
        varies), or None when the two cannot be paired."""
        theirs = getattr(other, "points", None)
        if self.points is None or theirs is None or not self.points.pairs_with(theirs):
            return None
        return self.points.paired_error(theirs)

    @property
    def primary(self) -> float:
        """The headline figure; 0 where it is undefined (what epoch selection compares)."""
        value = self.figures[self.primary_metric]
        return 0.0 if value is None else value

    def log_values(self) -> dict[str, float]:
        values = {name: value for name, value in self.figures.items() if value is not None}
        if self.standard_error is not None:
            values[f"{self.primary_metric}_standard_error"] = self.standard_error
        return values

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model, "pairs": self.name, "kind": self.kind, "n": self.n,
            "primary_metric": self.primary_metric, "figures": self.figures, "skipped": self.skipped,
            "standard_error": self.standard_error, "warnings": self.warnings,
        }  # fmt: skip

    def format_table(self) -> str:
        pairs = f"pairs: {self.name} ({self.n} {self.kind} pairs)"
        head = f"model: {self.model}  {pairs}" if self.model else pairs
        rows = [[name.replace("_", " "), shown_figure(name, value)] for name, value in self.figures.items()]
        rows[list(self.figures).index(self.primary_metric)][0] += "  <- headline"
        over = _resampled(None if self.points is None else self.points.groups, self.n)
        noise = [] if self.standard_error is None else [
            f"{self.primary_metric.replace('_', ' ')} {self.primary:.2f} +- {self.standard_error:.2f}: the standard "
            f"error over {over} ({BOOTSTRAP_DRAWS} bootstrap draws); differences within it are noise"
        ]  # fmt: skip
        warned = [f"warning: {line}" for line in self.warnings]
        return "\n".join([head, format_rows(["figure", "value"], rows), *noise, *self.skipped, *warned])


def _resampled(groups: np.ndarray | None, count: int) -> str:
    """What the standard error's bootstrap resampled, for the line under a table."""
    resampled = resampled_groups(groups, count)
    if resampled is not None:
        return f"{resampled} groups of pairs linked by a shared sentence (either side), resampled whole"
    linked = None if groups is None else len(np.unique(groups))
    if linked is not None and linked < count:
        many = "group" if linked == 1 else "groups"
        return (
            f"the pairs (shared sentences link them into {linked} {many}, too few to resample whole, so "
            "this understates the noise)"
        )
    return "the pairs"


def shown_figure(name: str, value: float | None) -> str:
    if value is None:
        return "undefined"
    return f"{value:.4f}" if name == "threshold" else f"{value:.2f}"


UNDEFINED = {
    "constant": "undefined: every pair got the same cosine (or the file gives every pair one score): "
    "a correlation needs both to vary",
    "one candidate": "undefined: the file's pairs have one distinct second sentence, so retrieval "
    "has nothing to choose between",
}


POSITIVES_ONLY = (
    "every pair is labelled 1: scored as retrieval (each first sentence finds its second among all)"
)


def kind_of(pairs: Sequence[TrainingPair], name: str = "pairs") -> str:
    """``retrieval`` (no scores, or every pair labelled 1: a set of paraphrases alone is scored by
    finding each pair's second sentence), ``labelled`` (scores 0 and 1) or ``scored``; one other
    score for all is refused in one line (:func:`~parasent.data.training_text.pools.paraphrases_only`)."""
    scores = [p.score for p in pairs]
    if all(s is None for s in scores):
        return "retrieval"
    if any(s is None for s in scores):
        raise ValueError(f"{name}: pairs mix scored and unscored lines: evaluate them as separate files")
    if paraphrases_only(pairs, name):
        return "retrieval"
    return "labelled" if set(scores) <= {0.0, 1.0} else "scored"


MIN_FIGURE_PAIRS = 10  # a user's file of fewer gets no figure (Pearson of 2 points: 100)
# why, whatever the file's kind (a labelled file's figure is no correlation)
FEW_PAIRS_REASON = (
    "on fewer a figure is luck: a correlation of 2 points is 100, the ranking of 2 pairs 0, 50 or 100"
)


class PairsEvaluator:
    """Scores models on ``pairs`` (loaded once); called like the suite evaluator. Pairs of
    several files (held out of a run's ``--pairs`` of different formats) are scored file by
    file, and the primary figure is the mean of each file's."""

    def __init__(
        self,
        pairs: Sequence[TrainingPair],
        name: str = "pairs",
        *,
        batch_size: int = 1024,
        graded: bool = False,
    ) -> None:
        """``graded``: the file was named ``FILE:sts``, so scores of only 0 and 1 are grades,
        scored by correlation as asked, not read as labels."""
        if len(pairs) < 2:
            raise ValueError(f"{name}: {len(pairs)} pair(s); a figure needs at least 2")
        self.pairs, self.name, self.batch_size = list(pairs), name, batch_size
        self.sources: dict[str, list[TrainingPair]] = {}
        for pair in self.pairs:
            self.sources.setdefault(pair.source, []).append(pair)
        named = {source: name if len(self.sources) == 1 else f"{name} of {source}" for source in self.sources}
        kinds = {source: kind_of(group, named[source]) for source, group in self.sources.items()}
        if graded:
            kinds = {source: "scored" if kind == "labelled" else kind for source, kind in kinds.items()}
        self.kinds = kinds
        self.groups = {  # each graded file's groups of pairs sharing a sentence: its bootstrap's units
            source: pair_groups(group)
            for source, group in self.sources.items()
            if kinds[source] != "retrieval"
        }
        self.kind = next(iter(kinds.values())) if len(set(kinds.values())) == 1 else "mixed"
        self.domain_tests: dict[str, int] = {}  # pairs of each domain test split (domain_tests.py)
        # the file's name and its bytes' sha256: is it the model's own training file?
        self.file_sha256: tuple[str, str] | None = None
        self.skipped: list[str] = [  # the lines under the table
            f"{named[source]}: {POSITIVES_ONLY}"
            for source, group in self.sources.items()
            if kinds[source] == "retrieval" and group[0].score is not None
        ]

    def __call__(self, model: Any, *, name: str = "") -> PairsReport:
        if len(self.sources) == 1:
            figures, primary, error, points = self._figures(
                model, self.pairs, self.kind, self.groups.get(self.pairs[0].source)
            )
            notes = self.skipped + _undefined_notes(figures)
            warned = self._warnings(model)
            return PairsReport(
                self.name, self.kind, len(self.pairs), figures, primary, name, notes, error, points, warned
            )
        figures, primaries, errors = {}, [], []
        for source, group in self.sources.items():
            own, primary, error, _ = self._figures(model, group, self.kinds[source], self.groups.get(source))
            figures.update({f"{source} {metric}": value for metric, value in own.items()})
            primaries.append(own[primary] or 0.0)
            errors.append(error)
        figures = {"mean_of_files": float(np.mean(primaries)), **figures}
        notes = self.skipped + _undefined_notes(figures)
        combined = None if None in errors else float(np.sqrt(np.sum(np.square(errors)))) / len(errors)
        return PairsReport(
            self.name, self.kind, len(self.pairs), figures, "mean_of_files", name, notes, combined,
            warnings=self._warnings(model),
        )  # fmt: skip

    def _warnings(self, model: Any) -> list[str]:
        """What the figures do not measure: the domain test splits the model may have seen,
        and the file being the model's own training file."""
        leaks = leak_warnings(model, self.domain_tests, len(self.pairs))
        return leaks + (in_sample_warnings(model, *self.file_sha256) if self.file_sha256 else [])

    def _figures(
        self, model: Any, pairs: list[TrainingPair], kind: str, groups: np.ndarray | None
    ) -> tuple[dict[str, float | None], str, float | None, PairPoints]:
        """The figures of one file's pairs, the primary one's name, its standard error (over
        ``groups``, the file's groups of pairs sharing a sentence), and the points they come from."""
        first = _unit(model, [p.s1 for p in pairs], self.batch_size)
        if kind == "retrieval":
            figures, hits, reciprocal = retrieval(first, pairs, model, self.batch_size)
            if figures["top1_accuracy"] is None:
                return figures, "top1_accuracy", None, PairPoints(kind)
            return (
                figures,
                "top1_accuracy",
                mean_error(hits),
                PairPoints(kind, ranks=1.0 / reciprocal, hits=hits),
            )
        second = _unit(model, [p.s2 for p in pairs], self.batch_size)
        cosines = np.einsum("ij,ij->i", first, second)
        gold = np.array([p.score for p in pairs], dtype=np.float64)
        figures, primary = _graded(cosines, gold, kind)
        metric = pearson if kind == "scored" else average_precision
        points = PairPoints(
            kind, cosines, gold, threshold=figures.get("threshold"), metric=metric, groups=groups
        )
        if figures[primary] is None:
            return figures, primary, None, points
        return figures, primary, bootstrap_error(cosines, gold, metric, groups), points


def _undefined_notes(figures: dict[str, float | None]) -> list[str]:
    """A line per reason under the table: the undefined figures (of several files, each named
    ``FILE metric``) grouped by why they are undefined."""
    by_reason: dict[str, list[str]] = {}
    for name, value in figures.items():
        if value is None:
            by_reason.setdefault(_REASONS[name.split()[-1]], []).append(name)
    return [f"{', '.join(names)}: {UNDEFINED[reason]}" for reason, names in by_reason.items()]


_REASONS = {
    "pearson": "constant",
    "spearman": "constant",
    "top1_accuracy": "one candidate",
    "mrr": "one candidate",
}


def _unit(model: Any, texts: list[str], batch_size: int) -> np.ndarray:
    return normalize_rows(as_matrix(model.encode(texts, batch_size=batch_size), finite=True, texts=texts))


def _graded(cosines: np.ndarray, gold: np.ndarray, kind: str) -> tuple[dict[str, float], str]:
    if kind == "scored":
        if np.ptp(cosines) == 0 or np.ptp(gold) == 0:
            return {"pearson": None, "spearman": None}, "pearson"
        return {"pearson": pearson(cosines, gold), "spearman": spearman(cosines, gold)}, "pearson"
    figures = {"average_precision": average_precision(cosines, gold), "roc_auc": roc_auc(cosines, gold)}
    decided = best_f1(cosines, gold)
    figures.update({k if k == "threshold" else f"{k}_at_threshold": v for k, v in decided.items()})
    return figures, "average_precision"


BOOTSTRAP_DRAWS = 200  # resamples for a figure's standard error (seeded: the same each call)


def bootstrap_error(
    cosines: np.ndarray, gold: np.ndarray, metric: Any, groups: np.ndarray | None = None
) -> float | None:
    """The standard error of ``metric(cosines, gold)`` over the pairs (:func:`bootstrap`)."""
    return bootstrap(gold, lambda sample, resampled: metric(cosines[sample], resampled), groups=groups)


def bootstrap(
    gold: np.ndarray, statistic: Any, draws: int = BOOTSTRAP_DRAWS, groups: np.ndarray | None = None
) -> float | None:
    """The spread of ``statistic(sample, gold[sample])`` over ``draws`` resamples of the pairs
    with replacement (Efron's bootstrap), the same draws for every model, so that two models'
    errors (and a paired difference: :meth:`PairPoints.paired_error`) are alike; None where too
    few resamples have varied gold to give a figure. What a held-out gain must clear under
    ``--selection clears-noise`` (:func:`parasent.training.trainer.selection_noise`).

    With ``groups`` (each pair's group of pairs sharing a sentence: :func:`pair_groups`), whole
    groups are resampled (the cluster bootstrap, Davison & Hinkley 1997, Sec. 3.8): pairs around
    one sentence (a tweet's topic) rise and fall together, and resampling them singly understates
    the error (PIT's held-out topics: 3-5 over pairs, 5-17 over topics)."""
    rng = np.random.default_rng(20161)
    members = _members(groups, len(gold))
    values = []
    for _ in range(draws):
        if members is None:
            sample = rng.integers(0, len(gold), len(gold))
        else:
            sample = np.concatenate([members[k] for k in rng.integers(0, len(members), len(members))])
        if np.ptp(gold[sample]) > 0:
            values.append(statistic(sample, gold[sample]))
    return float(np.std(values)) if len(values) > 1 else None


MIN_BOOTSTRAP_GROUPS = 5  # fewer groups resample to nothing (1 group: an error of 0): pairs then


def resampled_groups(groups: np.ndarray | None, count: int) -> int | None:
    """How many groups :func:`bootstrap` resamples, or None where it resamples the pairs: every
    pair its own group, or under :data:`MIN_BOOTSTRAP_GROUPS` groups (one shared reply can link
    every pair of a file into one group, whose resamples are all the same)."""
    if groups is None:
        return None
    distinct = len(np.unique(groups))
    return distinct if MIN_BOOTSTRAP_GROUPS <= distinct < count else None


def _members(groups: np.ndarray | None, count: int) -> list[np.ndarray] | None:
    """Each group's pair indices, or None where the bootstrap resamples pairs (:func:`resampled_groups`)."""
    if resampled_groups(groups, count) is None:
        return None
    order = np.argsort(groups, kind="stable")
    return np.split(order, np.flatnonzero(np.diff(groups[order])) + 1)


def pair_groups(pairs: Sequence[TrainingPair]) -> np.ndarray:
    """Each pair's group of pairs linked by a shared sentence (:func:`sentence_groups`)."""
    return np.asarray(sentence_groups([(p.s1, p.s2) for p in pairs]), dtype=np.int64)


def mean_error(values: np.ndarray) -> float:
    """The standard error (x100) of a mean of per-query values (top-1 hits)."""
    return float(np.std(values) / np.sqrt(len(values)) * 100)


def retrieval(
    first: np.ndarray, pairs: Sequence[TrainingPair], model: Any, batch_size: int
) -> tuple[dict[str, float | None], np.ndarray, np.ndarray]:
    """Each first sentence (unit rows ``first``) ranks the distinct second sentences of
    ``pairs``; its own pair's is the right answer: top-1 accuracy and mean reciprocal rank x100,
    undefined with one distinct candidate; and per first sentence the hit and the reciprocal
    rank (:func:`answer_ranks`). Ranked in the filtered setting (:func:`known_answers`): the
    query's own text and the file's other partners of it are not candidates against it."""
    texts = list(dict.fromkeys(p.s2 for p in pairs))
    if len(texts) < 2:
        return {"top1_accuracy": None, "mrr": None}, np.zeros(0), np.zeros(0)
    index = {text: k for k, text in enumerate(texts)}
    candidates = _unit(model, texts, batch_size)
    answers = np.array([index[p.s2] for p in pairs])
    hits, reciprocal = answer_ranks(first, candidates, answers, known_answers(pairs, index))
    figures = {"top1_accuracy": float(hits.mean() * 100), "mrr": float(reciprocal.mean() * 100)}
    return figures, hits, reciprocal


def known_answers(pairs: Sequence[TrainingPair], index: dict[str, int]) -> KnownAnswers:
    """Per pair, the candidates (``index``: text -> column) that are its first sentence itself
    or that the file pairs with it (either way round), its own answer among them. Such a
    candidate is a right answer too, not a miss: a question with several duplicates (Quora)
    would otherwise cap top-1 near one half whatever the model. Ranking without them is the
    "filtered" setting of link prediction (Bordes et al. 2013, Sec. 4.2). Kept once per
    distinct first sentence: memory in proportion to the pairs, however many share one."""
    partners: dict[str, set[str]] = {}
    for pair in pairs:
        partners.setdefault(pair.s1, set()).add(pair.s2)
        partners.setdefault(pair.s2, set()).add(pair.s1)
    group_of: dict[str, int] = {}
    columns: list[np.ndarray] = []
    groups = np.empty(len(pairs), dtype=np.int64)
    for i, pair in enumerate(pairs):
        if pair.s1 not in group_of:
            group_of[pair.s1] = len(columns)
            texts = partners[pair.s1] | {pair.s1}
            columns.append(np.array(sorted(index[t] for t in texts if t in index), dtype=np.int64))
        groups[i] = group_of[pair.s1]
    return KnownAnswers(groups, columns)


@dataclass(frozen=True)
class KnownAnswers:
    """Each query's group (its first sentence) and each group's known answers (columns)."""

    groups: np.ndarray
    columns: list[np.ndarray]

    def mask(self, block: np.ndarray, start: int) -> None:
        """Set the known answers of queries ``start ...`` (the rows of ``block``) to -inf."""
        groups = self.groups[start : start + len(block)]
        order = np.argsort(groups, kind="stable")
        bounds = np.flatnonzero(np.diff(groups[order])) + 1
        for rows in np.split(order, bounds):
            block[np.ix_(rows, self.columns[groups[rows[0]]])] = -np.inf


def rank_answers(queries: np.ndarray, candidates: np.ndarray, answers: np.ndarray) -> dict[str, float]:
    """Top-1 accuracy and MRR x100 of ``candidates[answers[i]]`` among all candidates for
    ``queries[i]`` (unit rows): :func:`answer_ranks`, averaged."""
    hits, reciprocal = answer_ranks(queries, candidates, answers)
    return {"top1_accuracy": float(hits.mean() * 100), "mrr": float(reciprocal.mean() * 100)}


def answer_ranks(
    queries: np.ndarray,
    candidates: np.ndarray,
    answers: np.ndarray,
    known: KnownAnswers | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Per query, the hit (1 when ``candidates[answers[i]]`` ranks first) and the reciprocal
    rank, a block of queries at a time: memory about :data:`RETRIEVAL_BLOCK` scores whatever
    the number of pairs. A candidate scored the same as the answer (a word average gives "the
    cat chased the dog" and "the dog chased the cat" one vector) is a tie broken at random:
    the values are their expectations (a hit shared by ``t + 1`` tied candidates counts
    ``1 / (t + 1)``), never a tie counted as a hit. ``known``: candidates that do not compete
    with a query's answer (:func:`known_answers`)."""
    hits, reciprocal = np.zeros(len(queries)), np.zeros(len(queries))
    harmonic = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, len(candidates) + 1))])
    step = max(1, RETRIEVAL_BLOCK // max(len(candidates), 1))
    for start in range(0, len(queries), step):
        block = queries[start : start + step] @ candidates.T
        own = block[np.arange(len(block)), answers[start : start + step]].copy()
        if known is not None:
            known.mask(block, start)  # the answer among them: counted back as tied with itself
        above = (block > own[:, None]).sum(axis=1)
        tied = (block == own[:, None]).sum(axis=1) + (known is not None)  # the answer, and any tied
        hits[start : start + step] = (above == 0) / tied
        reciprocal[start : start + step] = (harmonic[above + tied] - harmonic[above]) / tied  # mean of 1/rank
    return hits, reciprocal


#: What a run's --validation takes besides a suite or a file (said when it names neither).
VALIDATION_CHOICES = f"{HELD_OUT} (a share of the run's own pairs) or none (the last epoch)"


def read_pairs(
    spec: str, *, lenient: bool = False, others: str = ""
) -> tuple[list[TrainingPair], str, ReadReport]:
    """The pairs of ``FILE[:FORMAT]`` for evaluation (labelled files keep every label), the
    name they are reported under, and how their lines were read; ``others``: what else the
    option took, said when ``spec`` is neither a file nor a suite."""
    from parasent.data.registry.catalog import SIMILARITY, SUITES
    from parasent.data.training_text.pools import read_pair_file, resolve_pair_spec

    if spec in SUITES or spec in SIMILARITY:  # evaluate --pairs sts2016
        raise DataNotFoundError(f"{spec}: a suite, not a file of pairs (evaluate --suite {spec})")
    path, fmt = resolve_pair_spec(spec)  # mine.tsv:csv: an unknown format, named there
    if path == spec and "/" not in path and not Path(path).exists():  # --validation sts2106: a typo
        also = f", nor {others}" if others else ""
        raise DataNotFoundError(f"{spec}: no such file of pairs, nor a suite ({', '.join(SUITES)}){also}")
    report = ReadReport()
    pairs = list(read_pair_file(path, fmt, lenient=lenient, report=report, ranked=True))
    return pairs, f"{Path(path).name}:{fmt}", report


def named_sts(spec: str) -> bool:
    """Whether ``FILE:FORMAT`` names the ``sts`` format itself (a sniffed one never makes 0/1
    scores grades: such a file reads as labelled)."""
    from parasent.data.training_text.pools import split_pair_spec

    return split_pair_spec(spec, default=None)[1] == "sts"


def check_enough(pairs: Sequence[TrainingPair], name: str) -> None:
    """A user's file of fewer than :data:`MIN_FIGURE_PAIRS` pairs gets no figure, as training
    refuses to choose an epoch on fewer."""
    if len(pairs) < MIN_FIGURE_PAIRS:
        raise ValueError(
            f"{name}: {len(pairs)} pair(s); a figure needs at least {MIN_FIGURE_PAIRS} ({FEW_PAIRS_REASON})"
        )


def evaluate_pairs(
    model: Any, spec: str, *, name: str = "", lenient: bool = False, data_dir: str | Path | None = None
) -> PairsReport:
    """``model`` (a model, or its directory or shipped name) on the pairs of file
    ``FILE[:FORMAT]`` (format tsv, labelled or sts; sniffed from the file when not given);
    warned where the pairs are a domain test split the model's training may have seen
    (:mod:`parasent.evaluation.domain_tests`, from ``data_dir``'s splits)."""
    evaluator = file_evaluator(spec, lenient=lenient, data_dir=data_dir)  # a bad file before a load
    if isinstance(model, str | Path):  # a model's directory or shipped name, as the command takes it
        from parasent.core.model import load

        model, name = load(model), name or str(model)
    return evaluator(model, name=name)


def file_evaluator(spec: str, *, lenient: bool = False, data_dir: str | Path | None = None) -> PairsEvaluator:
    """The evaluator of the pairs of ``FILE[:FORMAT]``, read once, and the domain test splits
    they are."""
    pairs, label, report = read_pairs(spec, lenient=lenient)
    check_enough(pairs, label)
    evaluator = PairsEvaluator(pairs, label, graded=named_sts(spec))
    if report.skipped:
        evaluator.skipped.append(report.summary())
    evaluator.domain_tests = domain_tests_of(pairs, data_dir)
    evaluator.file_sha256 = _file_sha256(spec)
    return evaluator


def _file_sha256(spec: str) -> tuple[str, str] | None:
    """The name and sha256 of ``FILE[:FORMAT]``'s file, None for a pipe (read once, already)."""
    from parasent.data.training_text.pools import split_pair_spec
    from parasent.support.regular_files import sha256_of

    path = split_pair_spec(spec, default=None)[0]  # not sniffed again: a pipe's bytes are gone
    return (Path(path).name, sha256_of(path)) if Path(path).is_file() else None
