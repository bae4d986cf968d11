"""Kill-injection check: ``kill -9`` a training run at chosen moments and check that nothing is
lost (docs/robustness.md).

Each case runs ``parasent train`` in a child process and kills it with SIGKILL, either at a
time (during the training loop) or at an exact point of a write (inside a checkpoint write,
between the two renames of a model save, before the old model is removed). Then it checks
that the run directory still loads as a model (where one had been saved), counts the
leftover staging files, resumes the run (``--resume``, or a fresh start when no checkpoint
was written yet) and compares the final weights with those of an uninterrupted run.

    python scripts/kill_injection.py [--work DIR] [--epochs 3]

Prints one line per kill point and a summary; exits 1 if any check failed.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]

# Code run in the child before the command line: patch one function to SIGKILL the process at
# the chosen point (the patches only observe; they change nothing else).
PATCHES = {
    "none": "",
    "checkpoint-write": """
import parasent.training.checkpoint as m
real = m.save_file
count = [0]
def save_file(tensors, path, metadata=None):
    real(tensors, path, metadata=metadata)
    count[0] += 1
    if count[0] == 3:
        os.kill(os.getpid(), signal.SIGKILL)  # the new checkpoint written, not yet renamed into place
m.save_file = save_file
""",
    "model-swap": """
import parasent.support.staging as m
real = m.rename_no_replace
count = [0]
def rename_no_replace(source, target):
    if m.Path(source).name.startswith(".model.tmp-"):
        count[0] += 1
        if count[0] == 2:
            os.kill(os.getpid(), signal.SIGKILL)  # the old model moved aside, the new one not in place
    return real(source, target)
m.rename_no_replace = rename_no_replace
""",
    "model-cleanup": """
import parasent.support.staging as m
real = m.shutil.rmtree
count = [0]
def rmtree(path, *a, **k):
    if ".model.old-" in str(path):
        count[0] += 1
        if count[0] == 2:
            os.kill(os.getpid(), signal.SIGKILL)  # both renames done, the old copy not yet removed
    return real(path, *a, **k)
m.shutil.rmtree = rmtree
""",
}


def child_command(patch: str, argv: list[str]) -> list[str]:
    code = (
        "import os, signal, sys\n"
        + PATCHES[patch]
        + f"\nfrom parasent.cli import main\nsys.exit(main({argv!r}))\n"
    )
    return [sys.executable, "-c", code]


def train_argv(run: Path, pairs: Path, epochs: int, resume: bool = False) -> list[str]:
    argv = [
        "train", "--out", str(run), "--pool", "none", "--pairs", str(pairs), "--recipe", "paper",
        "--vectors", "wordvecs/glove50_4k.txt.gz", "--validation", "none", "--epochs", str(epochs),
        "--batch-size", "50", "--checkpoint-every", "10", "--quiet", "--seed", "7", "--device", "cpu",
    ]  # fmt: skip
    return argv + (["--resume"] if resume else [])


def leftovers(run: Path) -> list[str]:
    return sorted(p.name for p in run.rglob(".*") if ".tmp-" in p.name or ".old-" in p.name)


def weights(run: Path) -> np.ndarray:
    from parasent.core.model import load

    return np.array(load(run).weights["embedding.weight"])


def run_child(patch: str, argv: list[str], kill_after: float | None = None) -> int:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        child_command(patch, argv), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    if kill_after is not None:
        try:
            child.wait(timeout=kill_after)
        except subprocess.TimeoutExpired:
            child.send_signal(signal.SIGKILL)
    _, err = child.communicate()
    if child.returncode not in (0, -signal.SIGKILL):
        sys.stderr.write(err.decode()[-2000:])
    return child.returncode


def check_case(
    name: str, patch: str, kill_after: float | None, work: Path, pairs: Path, epochs: int, reference
):
    run = work / name
    shutil.rmtree(run, ignore_errors=True)
    code = run_child(patch, train_argv(run, pairs, epochs), kill_after)
    killed = code == -signal.SIGKILL
    left_after_kill = leftovers(run)
    had_model = any(p.name.startswith((".model.", "model")) for p in run.iterdir()) if run.exists() else False
    loadable = "-"
    if had_model:
        try:
            weights(run)  # restores a model whose swap was interrupted
            loadable = "yes"
        except Exception as exc:  # noqa: BLE001 - reported, not raised
            loadable = f"NO ({exc})"
    resume = (run / "checkpoint.safetensors").is_file()
    code = run_child("none", train_argv(run, pairs, epochs, resume=resume))
    identical = code == 0 and np.array_equal(weights(run), reference)
    left_after = leftovers(run)
    ok = code == 0 and identical and not left_after and loadable in ("-", "yes")
    print(
        f"{name:<18} killed={'yes' if killed else 'no ':<3} model loads after kill={loadable:<4} "
        f"leftovers after kill={len(left_after_kill)} after resume={len(left_after)} "
        f"{'resumed' if resume else 'restarted'} identical={'yes' if identical else 'NO'}",
        flush=True,
    )
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", help="scratch directory (default: a temporary one)")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--pairs", type=int, default=3000, help="training pairs (MSRP paraphrases)")
    parser.add_argument(
        "--times", default="0.35,0.55,0.75,0.9", help="timed kills, as fractions of the reference run's time"
    )
    parser.add_argument(
        "--cases", default="checkpoint-write,model-swap,model-cleanup,timed", help="kill points to check"
    )
    args = parser.parse_args()
    cases = args.cases.split(",")
    work = Path(args.work or tempfile.mkdtemp(prefix="parasent-kill-"))
    work.mkdir(parents=True, exist_ok=True)
    pairs = work / "pairs.tsv"
    source = Path(os.environ.get("PARASENT_DATA", REPO.parent / "shared" / "data")) / "paraphrase"
    lines = []
    for path in sorted(source.rglob("*train*")):
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                fields = line.rstrip("\n").split("\t")
                if len(fields) >= 3 and fields[0] == "1":
                    lines.append(f"{fields[1]}\t{fields[2]}")
        if len(lines) >= args.pairs:
            break
    pairs.write_text("\n".join(lines[: args.pairs]) + "\n")
    started = time.perf_counter()
    assert run_child("none", train_argv(work / "reference", pairs, args.epochs)) == 0, "reference run failed"
    duration = time.perf_counter() - started
    print(
        f"reference run: {len(lines[: args.pairs])} pairs, {args.epochs} epochs, {duration:.0f}s", flush=True
    )
    reference = weights(work / "reference")
    results = []
    for name in ("checkpoint-write", "model-swap", "model-cleanup"):
        if name in cases:
            results.append(check_case(name, name, None, work, pairs, args.epochs, reference))
    for fraction in (float(t) for t in args.times.split(",")) if "timed" in cases else ():
        seconds = round(fraction * duration, 1)
        results.append(
            check_case(f"timed-{seconds:g}s", "none", seconds, work, pairs, args.epochs, reference)
        )
    print(f"kill points: {len(results)}, all checks passed: {all(results)}")
    print(json.dumps({"kill_points": len(results), "passed": sum(results)}))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
