"""The teacher pass of a distilled run on its own, in one process or shared by N (``torchrun``).

The pass over a run's teacher text (the sentence targets of the regression and the contextual
sums of its words and pieces) is most of a first build; ``parasent train`` then finds it in the
teacher cache. Under torchrun each process passes the texts of its share, split by text key
(:func:`parasent.distillation.teacher_cache.rank_share`), into a file of its own that it
resumes alone if killed; process 0 adds the shares into the file one process would have
written (sums and counts to float tolerance, the same rows in the same order), and every
sentence target is the one a single process computes for that text.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from parasent.distillation.provider import DISTILLED, TeacherSide
from parasent.distillation.teacher_cache import Ranks, rank_share
from parasent.errors import OptionError
from parasent.support.paths import resolve_data_dir
from parasent.training.text_stage import read_training_text

if TYPE_CHECKING:
    from parasent.training.config import TrainConfig

# A share can take hours (a large teacher text, one share resumed and the other not): the
# processes wait that long for each other at the barriers, not gloo's default 30 minutes.
BARRIER_TIMEOUT = timedelta(hours=48)


@dataclass(frozen=True)
class PassReport:
    """What one process of the pass did: the run's distinct teacher sentences, the seconds of
    the pass (teacher loading included), and its place among the processes."""

    sentences: int
    seconds: float
    rank: int
    size: int


def rank_device(device: str, local_rank: int) -> str:
    """The teacher device of a process: on CUDA each process takes the GPU of its ``LOCAL_RANK``."""
    return f"cuda:{local_rank}" if device == "cuda" else device


def join_ranks() -> Ranks | None:
    """This process's place under torchrun (None when not launched by it): a gloo group, whatever
    the device, since the processes exchange nothing but barriers (the sums go through files)."""
    from parasent.training.distributed import launched

    if not launched():
        return None
    import torch.distributed as dist

    if not dist.is_initialized():
        dist.init_process_group("gloo", timeout=BARRIER_TIMEOUT)
    return Ranks(dist.get_rank(), dist.get_world_size(), dist.barrier)


def teacher_pass(
    config: TrainConfig,
    data_dir: str | Path | None = None,
    *,
    progress: bool = True,
    say: Callable[[str], None] = print,
) -> PassReport:
    """The teacher pass of ``config``'s run (its teacher text, its teacher), into the cache."""
    from parasent.training.distributed import leave

    ranks = join_ranks()
    try:
        report = _pass(config, resolve_data_dir(data_dir), ranks, progress=progress, say=say)
    except BaseException:
        leave(finished=False)
        raise
    leave()
    return report


def _pass(
    config: TrainConfig, root: Path, ranks: Ranks | None, *, progress: bool, say: Callable[[str], None]
) -> PassReport:
    from parasent.training.trainer import resolve_device

    rank, size = (ranks.rank, ranks.size) if ranks else (0, 1)
    if rank:  # one voice, one progress bar: process 0's
        say, progress = (lambda _message: None), False
    device = str(resolve_device(config.device))
    if device.startswith("cuda"):
        device = rank_device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
    text = read_training_text(config, root, say=say)
    distilled = config.encoder.vectors == DISTILLED
    side = TeacherSide.prepare(
        config.teacher,
        root,
        text.pairs,
        text.forbidden,
        seed=config.seed,
        distilled=distilled,
        device=device,
        say=say,
        progress=progress,
    )
    if side.teacher is None or not side.sentences:
        raise OptionError(
            "the run has no teacher pass: it needs a teacher and teacher text (--recipe distilled)"
        )
    started = time.perf_counter()
    contextual = config.teacher.distill_context and distilled
    sums = side.teacher.contextual(side.sentences, ranks=ranks) if contextual else None
    if sums is None:  # no token pass (not asked, or a teacher without token embeddings): targets alone
        unique = sorted(set(side.sentences))
        side.teacher.encode(rank_share(unique, rank, size) if ranks else unique, desc="teacher (sentences)")
        if ranks:
            ranks.barrier()
    seconds = time.perf_counter() - started
    count = len(set(side.sentences))
    say(
        f"teacher pass: {count} sentences on {size} process(es) in {seconds:.1f} s ({count / seconds:,.1f} sentences/s)"
    )
    return PassReport(count, seconds, rank, size)
