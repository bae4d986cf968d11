"""Coordinate search of supervised-head hyperparameters on the task's dev split, over the
grids of Wieting et al. (2016), footnotes 16-17: optimizer (AdaGrad 0.05 / Adam 0.001),
batch size {25, 50, 100}, hidden size {50, 150, 300}, lambda_s {1e-3 .. 1e-6}, lambda_w
{1e-3, 1e-5, 1e-7} (not for frozen features). One axis at a time from the defaults, keeping
the best dev score; prints every run and the chosen setting with its test figures.

Every run trains into OUT/<hash of its settings> and is logged in OUT/runs.jsonl by a
``parasent.support.sweep.Sweep``: a search that is stopped, or run again, reuses finished runs.

    python scripts/tune_heads.py --task sick-relatedness --setting universal --init runs/pp
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from dataclasses import replace
from pathlib import Path

from parasent.supervised.head_config import HeadConfig
from parasent.supervised.run import train_head
from parasent.support.sweep import Sweep

AXES = {
    "optimizer": [("adagrad", None), ("adam", None)],
    "batch_size": [25, 50, 100],
    "hidden_dim": [50, 150, 300],
    "lambda_s": [1e-3, 1e-4, 1e-5, 1e-6],
    "lambda_w": [1e-3, 1e-5, 1e-7],
}
SHOWN = ("optimizer", "batch_size", "hidden_dim", "lambda_s", "lambda_w")


def _work(config: HeadConfig, data_dir: str | None):
    def work(run_dir: Path) -> dict:
        result = train_head(config, run_dir, data_dir=data_dir, progress=False, say=lambda _: None)
        return {"best_epoch": result.state.best_epoch, "dev": result.dev.primary, "test": result.test.metrics}

    return work


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--task", default="sick-relatedness")
    parser.add_argument("--setting", default="scratch")
    parser.add_argument("--init")
    parser.add_argument("--data-dir")
    parser.add_argument(
        "--out", help="directory of the runs and runs.jsonl (default: runs/tune-heads/TASK-SETTING)"
    )
    parser.add_argument("--axes", default=",".join(AXES), help="axes to search, in order")
    parser.add_argument("--max-examples", type=int, help="reduced runs: subsample the training split")
    args = parser.parse_args()

    sweep = Sweep(args.out or f"runs/tune-heads/{args.task}-{args.setting}")
    best_config = HeadConfig(
        task=args.task, setting=args.setting, init=args.init, max_examples=args.max_examples
    )
    best = None
    for axis in args.axes.split(","):
        if axis == "lambda_w" and args.setting == "features":
            continue
        for value in AXES[axis]:
            if axis == "optimizer":
                candidate = replace(best_config, optimizer=value[0], lr=value[1])
            else:
                candidate = replace(best_config, **{axis: value})
            config = candidate.to_dict()
            key = hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:12]
            fresh = sweep.finished(key, config) is None
            result = sweep.run(key, config, _work(candidate, args.data_dir)).result
            if fresh:
                row = {k: getattr(candidate, k) for k in SHOWN}
                print(
                    json.dumps({**row, "best_epoch": result["best_epoch"], "dev": round(result["dev"], 2)}),
                    flush=True,
                )
            if best is None or result["dev"] > best["dev"]:
                best, best_config = result, candidate
    chosen = {k: getattr(best_config, k) for k in SHOWN}
    print(f"chosen on dev: {json.dumps(chosen)}; dev {best['dev']:.2f}; test {json.dumps(best['test'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
