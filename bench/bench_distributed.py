"""Benchmark of data-parallel training (torch.distributed): training pairs/s of one process
(batch 100) and of ``torchrun --nproc_per_node N`` (batch 100 / N per process, negatives
across processes, the same global batch) on a synthetic corpus made from the shared
sentences. Each case is its own ``parasent train`` run; pairs/s is the epoch's pairs over
its wall time (logged by process 0). Prints a table.

    python bench/bench_distributed.py                    # 1 and 2 processes, CPU (gloo)
    python bench/bench_distributed.py --processes 1 2 4 --device cuda   # on a GPU machine (nccl)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_scale import generate
from harness import print_table


def run(processes: int, pairs: Path, out: Path, args: argparse.Namespace) -> dict:
    batch = 100 // processes
    command = ["train", "--pool", "none", "--pairs", str(pairs), "--epochs", "1", "--batch-size", str(batch)]
    command += [
        "--validation",
        "none",
        "--device",
        args.device,
        "--out",
        str(out),
        "--quiet",
        "--recipe",
        "paper",
    ]
    if processes > 1:
        launcher = [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--standalone",
            "--nproc_per_node",
            str(processes),
        ]
        command.append("--negatives-across-ranks")
    else:
        launcher = [sys.executable]
    env = {**os.environ, "OMP_NUM_THREADS": str(args.threads)}
    done = subprocess.run([*launcher, "-m", "parasent", *command], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{processes} process(es) failed:\n{done.stderr}")
    records = [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]
    epoch = next(r for r in records if r["event"] == "epoch")
    return {"pairs_per_s": args.pairs / epoch["seconds"], "seconds": epoch["seconds"]}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--pairs", type=int, default=20_000)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=1, help="OMP threads per process")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="parasent-bench-dist-") as work:
        pairs = Path(work) / "pairs.tsv"
        generate(pairs, args.pairs)
        for processes in args.processes:
            result = run(processes, pairs, Path(work) / f"run-{processes}", args)
            print(f"{processes} process(es): {result}")
            rows.append(
                (f"{processes} process(es), {args.device}", f"{result['pairs_per_s']:,.0f} pairs/s", "-")
            )
    print_table(rows)


if __name__ == "__main__":
    main()
