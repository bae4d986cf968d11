"""The teacher's pass over a run's teacher text, in one process or shared by N (``torchrun``).

The pass (the sentence targets of the regression and the contextual sums of the words and
pieces; with ``--teacher-tokens``, each word's state too) is most of a first distilled build; ``parasent train`` then finds it in the teacher's
cache (:mod:`parasent.distillation.cache`). Shared by N processes, each passes the texts of its
share, split by text key (:func:`parasent.distillation.cache.rank_share`), into a file of its
own that it resumes alone if killed; process 0 adds the shares into the file one process would
have written (sums and counts to float tolerance, the same rows in the same order), and every
sentence target is the one a single process computes for that text. The run's side of it (its
text, its teacher, its process group) is :func:`parasent.training.run.teacher_pass`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from parasent.distillation.cache import CONTEXTUAL_CHUNK, Ranks, rank_share
from parasent.distillation.provider import TeacherSide
from parasent.errors import OptionError


@dataclass(frozen=True)
class PassReport:
    """What one process of the pass did: the run's distinct teacher sentences, the seconds of
    the pass (teacher loading included), and its place among the processes."""

    sentences: int
    seconds: float
    rank: int
    size: int


def pass_teacher_text(
    side: TeacherSide,
    ranks: Ranks | None,
    *,
    contextual: bool,
    say: Callable[[str], None],
    word_states: bool = False,
) -> PassReport:
    """Encode the side's teacher sentences into its cache: with the contextual sums of their
    words and pieces when ``contextual`` (and the teacher gives token embeddings), else the
    sentence targets alone; then, with ``word_states`` (a run with ``--teacher-tokens``), each
    word's state, the per-token term's second pass; this process's share of them under ``ranks``."""
    if side.teacher is None or not side.sentences:
        raise OptionError(
            "the run has no teacher pass: it needs a teacher (--teacher), teacher text (--teacher-text) "
            "and a teacher weight above 0 (--teacher-weight; --recipe distilled sets all three)"
        )
    if word_states:
        side.teacher.check_word_states()  # on every process alike, before any pass
    rank, size = (ranks.rank, ranks.size) if ranks else (0, 1)
    started = time.perf_counter()
    sums = side.teacher.contextual(side.sentences, ranks=ranks) if contextual else None
    if sums is None:  # no token pass (not asked, or a teacher without token embeddings): targets alone
        unique = sorted(set(side.sentences))
        side.teacher.encode(rank_share(unique, rank, size) if ranks else unique, desc="teacher (sentences)")
        if ranks:
            ranks.barrier()
    seconds = time.perf_counter() - started
    count = len(set(side.sentences))
    rate = f"{count / seconds:,.1f} sentences/s" if seconds >= 1 else "under a second"
    say(f"teacher pass: {count} sentences on {size} process(es) in {seconds:.1f} s ({rate})")
    if word_states:
        _pass_word_states(side, ranks, say)
    return PassReport(count, seconds, rank, size)


def _pass_word_states(
    side: TeacherSide, ranks: Ranks | None, say: Callable[[str], None], chunk: int = CONTEXTUAL_CHUNK
) -> None:
    """The teacher's word states of the side's sentences into its cache (each process its
    share of ``chunk``-text slices, shards named by process), so that the run reads them
    instead of passing them."""
    from parasent.distillation.provider import pass_estimate

    assert side.teacher is not None
    started = time.perf_counter()
    unique = sorted(set(side.sentences))
    share = rank_share(unique, ranks.rank, ranks.size, chunk) if ranks else unique
    missing, seconds = side.teacher.word_states_estimate(share)
    if missing:
        say(pass_estimate("teacher pass (word states)", missing, len(share), seconds))
    side.teacher.word_states(share)
    if ranks:
        ranks.barrier()
    mine = f" ({len(share)} of them this process's share)" if ranks else ""
    say(f"teacher pass (word states): {len(unique)} sentences{mine} in {time.perf_counter() - started:.1f} s")
