"""Coordinate search of supervised-head hyperparameters on the task's dev split, over the
grids of Wieting et al. (2016), footnotes 16-17: optimizer (AdaGrad 0.05 / Adam 0.001),
batch size {25, 50, 100}, hidden size {50, 150, 300}, lambda_s {1e-3 .. 1e-6}, lambda_w
{1e-3, 1e-5, 1e-7} (not for frozen features). One axis at a time from the defaults, keeping
the best dev score; prints every run and the chosen setting with its test figures.

    python scripts/tune_heads.py --task sick-relatedness --setting universal --init runs/pp
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import replace

from parasent.supervised.config import HeadConfig
from parasent.supervised.run import train_head

AXES = {
    "optimizer": [("adagrad", None), ("adam", None)],
    "batch_size": [25, 50, 100],
    "hidden_dim": [50, 150, 300],
    "lambda_s": [1e-3, 1e-4, 1e-5, 1e-6],
    "lambda_w": [1e-3, 1e-5, 1e-7],
}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--task", default="sick-relatedness")
    parser.add_argument("--setting", default="scratch")
    parser.add_argument("--init")
    parser.add_argument("--data-dir")
    parser.add_argument("--axes", default=",".join(AXES), help="axes to search, in order")
    parser.add_argument("--max-examples", type=int, help="reduced runs: subsample the training split")
    parser.add_argument("--log", help="append every run as JSON lines to this file")
    args = parser.parse_args()

    best_config = HeadConfig(
        task=args.task, setting=args.setting, init=args.init, max_examples=args.max_examples
    )
    best_score, best_result, tried = None, None, {}
    with tempfile.TemporaryDirectory() as scratch:

        def evaluate(config: HeadConfig):
            key = json.dumps({k: v for k, v in config.to_dict().items()}, sort_keys=True)
            if key not in tried:
                result = train_head(
                    config, f"{scratch}/run", data_dir=args.data_dir, progress=False, say=lambda _: None
                )
                tried[key] = result
                row = {
                    "optimizer": config.optimizer,
                    "batch_size": config.batch_size,
                    "hidden_dim": config.hidden_dim,
                    "lambda_s": config.lambda_s,
                    "lambda_w": config.lambda_w,
                    "best_epoch": result.state.best_epoch,
                    "dev": round(result.dev.primary, 2),
                }
                print(json.dumps(row), flush=True)
                if args.log:
                    with open(args.log, "a") as handle:
                        handle.write(
                            json.dumps(
                                {
                                    "task": args.task,
                                    "setting": args.setting,
                                    **row,
                                    "test": result.test.metrics,
                                }
                            )
                            + "\n"
                        )
            return tried[key]

        for axis in args.axes.split(","):
            if axis == "lambda_w" and args.setting == "features":
                continue
            for value in AXES[axis]:
                if axis == "optimizer":
                    candidate = replace(best_config, optimizer=value[0], lr=value[1])
                else:
                    candidate = replace(best_config, **{axis: value})
                result = evaluate(candidate)
                if best_score is None or result.dev.primary > best_score:
                    best_score, best_config, best_result = result.dev.primary, candidate, result
    chosen = {
        k: getattr(best_config, k) for k in ("optimizer", "batch_size", "hidden_dim", "lambda_s", "lambda_w")
    }
    print(
        f"chosen on dev: {json.dumps(chosen)}; dev {best_score:.2f}; test {json.dumps(best_result.test.metrics)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
