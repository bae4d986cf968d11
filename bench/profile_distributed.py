"""Where a training step's time goes, in one process or in each process of a torchrun.

Runs ``parasent train`` with its arguments, timing the phases of every step: the batch
(reading this process's slice), the forward pass (loss, negatives, the collectives inside
it), the backward pass (with the gradient all-reduce of gathered vectors), the gradient sync
(sparse rows, dense parameters, loss and stop), the optimizer step, and the collectives
themselves (count and time). Each process writes its means (ms per step) to
``$PROFILE_OUT.<rank>.json`` and prints them.

    OMP_NUM_THREADS=1 python bench/profile_distributed.py train --pool none --pairs P ... --batch-size 100
    OMP_NUM_THREADS=1 torchrun --standalone --nproc_per_node 2 bench/profile_distributed.py train ... \
        --batch-size 50 --negatives-across-ranks
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

import torch
import torch.distributed as dist

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TOTALS: dict[str, float] = defaultdict(float)
COUNTS: dict[str, int] = defaultdict(int)


def timed(name: str, function):
    def run(*args, **kwargs):
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            TOTALS[name] += time.perf_counter() - started
            COUNTS[name] += 1

    return run


def instrument() -> None:
    from parasent.training import distributed, optim, pairs, trainer

    for name in ("all_gather", "all_reduce", "barrier", "all_gather_into_tensor"):
        if hasattr(dist, name):
            setattr(dist, name, timed(f"collective {name}", getattr(dist, name)))
    torch.autograd.backward = timed("backward", torch.autograd.backward)
    trainer.Trainer.train_step = timed("step (all)", trainer.Trainer.train_step)
    optim.OptimizerSet.step = timed("optimizer step", optim.OptimizerSet.step)
    pairs.PairData.batch = timed("batch", pairs.PairData.batch)
    from parasent.objectives import margin

    margin.MarginLoss.forward = timed("forward", margin.MarginLoss.forward)
    distributed.DistributedMarginLoss.forward = timed("forward", distributed.DistributedMarginLoss.forward)
    for cls in [
        getattr(distributed, n) for n in ("GradientSync", "PackedGradientSync") if hasattr(distributed, n)
    ]:
        cls.__call__ = timed("gradient sync", cls.__call__)


def report() -> None:
    rank = int(os.environ.get("RANK", "0"))
    steps = max(COUNTS["step (all)"], 1)
    means = {name: 1000 * total / steps for name, total in sorted(TOTALS.items())}
    per_step = {name: COUNTS[name] / steps for name in sorted(COUNTS)}
    result = {"rank": rank, "steps": steps, "ms_per_step": means, "calls_per_step": per_step}
    print(json.dumps(result, indent=1), file=sys.stderr)
    if os.environ.get("PROFILE_OUT"):
        Path(f"{os.environ['PROFILE_OUT']}.{rank}.json").write_text(json.dumps(result))


def main() -> int:
    instrument()
    from parasent.cli import main as cli

    code = cli(sys.argv[1:])
    report()
    return code


if __name__ == "__main__":
    sys.exit(main())
