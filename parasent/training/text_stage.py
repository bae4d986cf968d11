"""Stage 1 of a training run, the *training text*: paraphrase pairs (a pool, the user's files,
scored pairs above ``min_score``, synthetic pairs) for the margin objective, or running text
for Siamese CBOW; never a sentence of an evaluation or validation set (the leakage guard).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from parasent.core.model_card import DOMAIN_TEST_NAMES, NOT_COMPARABLE
from parasent.data.training_text.corpus import CorpusReport, Document, iter_sentences, read_corpus
from parasent.data.training_text.leakage import GUARD_STATES, GUARD_SWITCH, normalize_for_leakage
from parasent.data.training_text.pools import (
    PoolReport,
    TrainingPair,
    build_pool,
    filter_pairs,
    held_domain_tests,
    protocol_exclusions,
    unguarded_note,
)
from parasent.data.training_text.shards import PreparedCorpus, prepared_guard
from parasent.errors import DataNotFoundError, OptionError
from parasent.evaluation.file_pairs import FEW_PAIRS_REASON, HELD_OUT, MIN_FIGURE_PAIRS, pair_groups

if TYPE_CHECKING:
    from parasent.training.config import DataConfig, TrainConfig

#: ``(forbidden texts, forbidden pairs)`` of the run's protocol (:func:`protocol_exclusions`)
Exclusions = tuple[set[str], set[tuple[str, str]]]


@dataclass
class TrainingText:
    """What the later stages read: ``pairs`` (margin) or ``documents`` (Siamese CBOW), the
    reports of how they were read, and the normalised evaluation sentences they exclude."""

    pairs: list[TrainingPair] = field(default_factory=list)
    held_out: list[TrainingPair] = field(default_factory=list)  # --validation held-out: selects epochs
    documents: list[Document] | None = None
    pool: PoolReport | None = None
    corpus: CorpusReport | None = None
    forbidden: set[str] = field(default_factory=set)
    prepared: PreparedCorpus | None = None  # pairs tokenized by `parasent prepare` (filtered there)

    def sentences(self) -> Iterator[str]:
        """Every training sentence, in order (the text a vocabulary is counted on)."""
        if self.documents is not None:
            return iter_sentences(self.documents)
        return (s for pair in self.pairs for s in (pair.s1, pair.s2))


def subsample(pairs: list[TrainingPair], limit: int | None, seed: int) -> list[TrainingPair]:
    """A seeded subsample of ``limit`` pairs, in their order (all of them without a limit)."""
    if limit is None or limit >= len(pairs):
        return pairs
    keep = np.sort(np.random.default_rng([seed, 7]).choice(len(pairs), size=limit, replace=False))
    return [pairs[i] for i in keep]


def read_training_text(
    config: TrainConfig, root: Path, *, lenient: bool = False, say: Callable[[str], None] = print
) -> TrainingText:
    """The training text of ``config``: its ``data`` section (running text for the Siamese CBOW
    ``objective``), read from the data directory ``root``, without the sentences its
    ``protocol`` excludes. ``lenient`` skips (and reports) malformed lines in the user's pair
    files."""
    data = config.data
    if data.prepared is not None:
        check_prepared_guard(data.prepared, config.data.leakage_guard, say)
    # evaluation sentences, and under the ppdb protocol the PPDB task's pairs and test phrases
    exclusions = run_exclusions(config, root, say)
    forbidden, forbidden_pairs = exclusions
    if config.objective.name == "siamese-cbow":
        documents, report = read_corpus(root, data.corpus, forbidden=forbidden)
        say(report.summary())
        return TrainingText(documents=documents, corpus=report, forbidden=forbidden)
    if data.prepared is not None:
        prepared = PreparedCorpus.open(data.prepared)
        say(prepared.summary())
        return TrainingText(forbidden=forbidden, prepared=prepared)
    pairs, pool = build_pool(
        root,
        data.pool,
        files=[(p, f) for p, f in data.pair_files],
        forbidden=forbidden | validation_file_sentences(config.validation_file, lenient=lenient),
        forbidden_pairs=forbidden_pairs,
        min_score=data.min_score,
        lenient=lenient,
        ranked=data.scores == "rank",
    )
    pool.guard = config.data.leakage_guard
    pool.domain_tests = held_domain_tests(root) if pool.guard == "on" else []
    say(pool.summary())
    pairs = subsample(pairs, data.max_pairs, config.seed)
    if data.synthetic:
        pairs = add_synthetic_pairs(data, root, pairs, pool, exclusions, seed=config.seed, say=say)
    held_out: list[TrainingPair] = []
    if config.validation == HELD_OUT:
        total = len(pairs)
        pairs, held_out = split_held_out(pairs, data.held_out, config.seed)
        check_held_out(held_out, total, pool)
        dropped = total - len(pairs) - len(held_out)
        say(
            f"held out {len(held_out)} of {total} pairs ({len(held_out) / max(total, 1):.0%}; --held-out "
            f"{data.held_out:g}, seed {config.seed}) to select the epoch on; no sentence of theirs is in a training pair"
            + (f" ({dropped} training pairs sharing one dropped)" if dropped else "")
        )
        note = few_groups_note(held_out)
        if note:
            say(note)
    return TrainingText(pairs=pairs, held_out=held_out, pool=pool, forbidden=forbidden)


FEW_HELD_OUT_GROUPS = 30  # held-out groups of linked pairs under which the draw moves the figure


def few_groups_note(held_out: list[TrainingPair]) -> str | None:
    """A note when the held-out pairs are a few large groups (pairs linked by shared sentences:
    a tweet's topic, a question's duplicates), drawn whole: the figure then depends on which
    groups were drawn more than its standard error, a bootstrap of these few groups, can say
    (PIT-2015's dev file: 8-19 topics held out, the default's held-out Pearson 17.6-58.3 over
    four seeds, its error 4.6 at seed 1)."""
    count = len(np.unique(pair_groups(held_out))) if held_out else 0
    if not 0 < count < FEW_HELD_OUT_GROUPS or count * 5 > len(held_out):
        return None
    return (
        f"note: the held-out pairs are {count} groups that share sentences, drawn whole: their figure "
        "depends on which groups were drawn (--seed) more than its standard error says; --held-out a "
        "larger share, or --validation FILE of your own, is steadier"
    )


def guard_on(config: TrainConfig) -> bool:
    """Whether the run keeps evaluation sentences out of its training text (``--leakage-guard``)."""
    return config.data.leakage_guard != "off"


def check_prepared_guard(directory: str | Path, state: str, say: Callable[[str], None] = print) -> None:
    """A prepared set's pairs were filtered by its own guard (``parasent prepare --leakage-guard``),
    not the run's: a run whose guard differs is refused, naming both, or the model would record
    a guard its pairs did not have. A set that does not say is taken, and said to be."""
    made, _ = prepared_guard(directory)
    if made is None:
        say(
            f"note: {directory} does not record the leakage guard it was prepared with (an older parasent, or "
            "prepare_pairs without guard=): its pairs are taken as they are, and the model records no domain "
            "test split as kept out"
        )
    elif made not in GUARD_STATES:
        raise ValueError(
            f"{directory}: its manifest records a leakage guard {made!r}, not one of {', '.join(GUARD_STATES)}: "
            "prepare the pairs again (parasent prepare --leakage-guard ...)"
        )
    elif made != state:
        raise ValueError(
            f"{directory}: prepared with --leakage-guard {made}, and this run's is {state}: train with "
            f"--leakage-guard {made}, or prepare the pairs again with --leakage-guard {state}"
        )


def run_exclusions(config: TrainConfig, root: Path, say: Callable[[str], None]) -> Exclusions:
    """What the run keeps out of training: its protocol's exclusions (:func:`protocol_exclusions`),
    or nothing with the leakage guard off (said, with what it costs)."""
    state = config.data.leakage_guard
    if state == "suites":
        say(
            f"leakage guard suites: the domain test splits ({DOMAIN_TEST_NAMES}) are not kept out; this run's "
            "figures on them are not comparable (its transfer and STS 2016 figures are)"
        )
    elif state == "on" and (note := unguarded_note(root, held_domain_tests(root))):
        say(note)
    if guard_on(config):
        return protocol_exclusions(root, config.protocol, domains=state == "on")
    say(
        f"leakage guard off ({GUARD_SWITCH}): training text that shares a sentence with the transfer suite, "
        f"STS 2016 or a domain test split is kept; this run's transfer and STS 2016 figures are {NOT_COMPARABLE}, "
        "and so is any on a domain test split"
    )
    return set(), set()


MIN_HELD_OUT_PAIRS = MIN_FIGURE_PAIRS  # pairs to choose an epoch on: as many as any figure needs


def check_held_out(held_out: list[TrainingPair], total: int, pool: PoolReport | None = None) -> None:
    """Refuse, before any other work, to choose epochs on a handful of held-out pairs; when the
    leakage guard took most of a file, the refusal says so (``pool``), and how to turn it off."""
    if len(held_out) < MIN_HELD_OUT_PAIRS:
        notes = pool.guard_notes() if pool is not None else []
        raise DataNotFoundError(
            f"--validation held-out: {len(held_out)} pair(s) held out of {total} (at least "
            f"{MIN_HELD_OUT_PAIRS}: {FEW_PAIRS_REASON}); "
            + "".join(f"{note}; or " for note in notes)
            + "bring more pairs, --held-out a larger share, --validation FILE[:FORMAT] / a suite, or "
            "--validation none (the last epoch)"
        )


def validation_file_sentences(validation_file: str | None, *, lenient: bool) -> set[str]:
    """The normalised sentences of a validation file (``--validation FILE[:FORMAT]``,
    :attr:`TrainConfig.validation_file`): kept out of training like the evaluation sets' (empty
    without one)."""
    from parasent.evaluation.file_pairs import VALIDATION_CHOICES, read_pairs

    if validation_file is None:
        return set()
    pairs, _, _ = read_pairs(validation_file, lenient=lenient, others=VALIDATION_CHOICES)
    return {normalize_for_leakage(s) for pair in pairs for s in (pair.s1, pair.s2)}


def split_held_out(
    pairs: list[TrainingPair], share: float, seed: int
) -> tuple[list[TrainingPair], list[TrainingPair]]:
    """``(training, held out)``: about ``share`` of the pairs of the user's files (of all pairs
    when there are none) held out, whole groups of pairs linked by a shared sentence at a time,
    drawn with ``seed``, so that no held-out sentence is trained on (a pair-level split would
    score the model on sentences it was trained on; sentences compare as the leakage guard
    normalises them). Where one group holds most pairs, pairs are drawn singly and the training
    pairs sharing their sentences dropped; should that leave under half the pairs to train on (a
    hub sentence in every pair), the split is refused in one line."""
    own = [i for i, p in enumerate(pairs) if p.source.startswith("file:")] or list(range(len(pairs)))
    groups = pair_groups([pairs[i] for i in own])
    rng = np.random.default_rng([seed, 11])
    wanted = max(1, round(share * len(own)))
    held = _held_groups(groups, _label_strata([pairs[i] for i in own], groups), share, rng)
    held = [own[k] for k in held]
    if len(held) < wanted // 2:  # one group holds nearly everything: pairs singly
        held = [own[k] for k in rng.permutation(len(own))[:wanted]]
    chosen = set(held)
    held_texts = {normalize_for_leakage(s) for i in chosen for s in (pairs[i].s1, pairs[i].s2)}
    training = [
        p
        for i, p in enumerate(pairs)
        if i not in chosen and not {normalize_for_leakage(p.s1), normalize_for_leakage(p.s2)} & held_texts
    ]
    if len(training) < (len(pairs) - len(chosen)) / 2:
        raise OptionError(
            f"--validation held-out: the pairs share their sentences so much that holding {len(chosen)} out "
            f"leaves {len(training)} of {len(pairs) - len(chosen)} to train on; select on a file of yours "
            "instead (--validation FILE[:FORMAT]) or on a suite (--validation validation)"
        )
    return training, [pairs[i] for i in sorted(chosen)]


def _label_strata(pairs: list[TrainingPair], groups: np.ndarray) -> np.ndarray:
    """Per group, its stratum: for labelled pairs (0/1) whether most of its pairs are
    paraphrases, so the held-out part keeps the file's balance (a held-out set of one class
    ranks nothing); one stratum for scored or plain pairs."""
    count = int(groups.max()) + 1 if len(groups) else 0
    scores = [p.score for p in pairs]
    if not scores or any(s not in (0.0, 1.0) for s in scores):
        return np.zeros(count, dtype=np.int64)
    positives = np.bincount(groups, weights=np.asarray(scores, dtype=np.float64), minlength=count)
    return (positives * 2 >= np.bincount(groups, minlength=count)).astype(np.int64)


def _held_groups(groups: np.ndarray, strata: np.ndarray, share: float, rng: np.random.Generator) -> list[int]:
    """Pairs (indices into ``groups``) of whole groups drawn in a seeded order until each
    stratum holds about ``share`` of its pairs (a group that would take a stratum past twice
    its share is passed over)."""
    sizes = np.bincount(groups, minlength=len(strata))
    wanted = {int(k): max(1, round(share * int(sizes[strata == k].sum()))) for k in np.unique(strata)}
    members = np.split(np.argsort(groups, kind="stable"), np.cumsum(sizes)[:-1])  # each group's pairs
    taken = dict.fromkeys(wanted, 0)
    held: list[int] = []
    for group in rng.permutation(len(strata)):
        if all(taken[k] >= wanted[k] for k in wanted):
            break
        key = int(strata[group])
        if taken[key] >= wanted[key] or taken[key] + sizes[group] > 2 * wanted[key]:
            continue
        taken[key] += int(sizes[group])
        held.extend(members[group].tolist())
    return held


def add_synthetic_pairs(
    data: DataConfig,
    root: Path,
    pairs: list[TrainingPair],
    report: PoolReport,
    exclusions: Exclusions,
    *,
    seed: int,
    say: Callable[[str], None],
) -> list[TrainingPair]:
    """Pairs of ``data.synthetic`` for the sentences of ``data.synthetic_for``: the training
    pairs (``train``; leakage filtered as usual, by the run's ``exclusions``), or a suite, whose
    sentences are evaluation sentences (the transductive setting of Hokamp & Arora 2016, Sec. 3.2:
    not leakage filtered)."""
    from parasent.data.registry.catalog import suite_datasets
    from parasent.paraphrase import build_generator, synthetic_pairs

    generator = build_generator(data.synthetic, root, seed=seed)
    if data.synthetic_for == "train":
        made = synthetic_pairs(generator, (s for p in pairs for s in (p.s1, p.s2)), label="train")
        texts, task_pairs = exclusions
        made, extra = filter_pairs(made, texts, forbidden_pairs=task_pairs)
        leaked = extra.total_leaked + sum(extra.excluded.values())
    else:
        sentences = [
            s for spec in suite_datasets(data.synthetic_for) for p in spec.load(root) for s in (p.s1, p.s2)
        ]
        made = synthetic_pairs(generator, sentences, label=data.synthetic_for)
        leaked = 0
    source = made[0].source if made else f"synthetic:{generator.name}"
    report.read[source] += len(made) + leaked
    report.leaked[source] += leaked
    report.kept[source] += len(made)
    transductive = data.synthetic_for != "train"
    say(
        f"synthetic: {len(made)} pair(s) from generator {generator.name!r} for the sentences of "
        f"{data.synthetic_for!r}"
        + (" (TRANSDUCTIVE: they contain evaluation sentences, by design)" if transductive else "")
    )
    return pairs + made
