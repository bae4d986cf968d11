"""The contextual tier's speed beside the default, model2vec and the teacher, as a user meets it.

Each model is loaded in a fresh process of its own (so its load time and peak memory are its
own), then encodes text that process has never seen:

- **one sentence per call, unseen**: ``encode([s])`` once per sentence, over --batch1-sentences
  sentences of running text and captions that are in no evaluation set (bench_encode.py's pool);
- **batch 1,024, unseen**: ``encode(slice, batch_size=1024)`` over the unique sentences of the
  transfer suite and STS 2016, each slice once (the first pass the process makes over them);
- ``import + load`` in seconds, and the process's peak resident memory.

The processes run one after another, --rounds times in turn (the engines' order rotating), and
each cell is the best round: this machine has slow spells, and rounds in turn share them. The
teacher is sentence-transformers on the installed all-MiniLM-L6-v2 (``parasent[distill]``);
model2vec is ``distill`` of the same teacher at 256 dimensions (bench_peers.py's build, once,
into --work) unless --model2vec names one, or --skip model2vec.

    python bench/bench_contextual.py                                   # default, contextual, teacher, model2vec
    python bench/bench_contextual.py --contextual runs/contextual --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from bench_encode import _load, sentences, unseen_pool  # each library's encode; the texts
from harness import peak_rss_mb, run_case

HERE = Path(__file__).resolve()
BATCH = 1024


def worker(args: argparse.Namespace) -> None:
    """One engine in this process: load, then the two unseen rows; prints one JSON line."""
    suite = json.loads(Path(args.sentences).read_text())
    pool = Path(args.pool).read_text(encoding="utf-8").splitlines()[: args.batch1_sentences]
    started = time.perf_counter()
    encode = _load(args.engine, args.path)
    load_s = time.perf_counter() - started
    started = time.perf_counter()
    for text in pool:
        encode([text], 1)
    one = len(pool) / (time.perf_counter() - started)
    started = time.perf_counter()
    for first in range(0, len(suite), BATCH):
        encode(suite[first : first + BATCH], BATCH)
    batch = len(suite) / (time.perf_counter() - started)
    print(json.dumps({"load_s": load_s, "one": one, "batch": batch, "peak_rss_mb": peak_rss_mb()}))


def engines(args: argparse.Namespace, work: Path) -> dict[str, tuple[str, str]]:
    from parasent.core.model import resolve_model_path
    from parasent.distillation.teacher import resolve_teacher_path

    out = {
        "parasent default": ("parasent", str(resolve_model_path("default"))),
        "parasent contextual": ("parasent", str(resolve_model_path(args.contextual))),
    }
    if "teacher" not in args.skip:
        out["teacher (sentence-transformers, all-MiniLM-L6-v2)"] = (
            "sentence-transformers",
            str(resolve_teacher_path("auto")),
        )
    if "model2vec" not in args.skip:
        path = Path(args.model2vec) if args.model2vec else work / "m2v-distill"
        if not path.is_dir():
            run_case(str(HERE.parent / "bench_peers.py"), ["--case", "model2vec", "--out", str(path)])
        out["model2vec (distilled, 256 d)"] = ("model2vec", str(path))
    return out


def run(args: argparse.Namespace) -> None:
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    suite = sentences(args.data_dir)
    (work / "sentences.json").write_text(json.dumps(suite))
    pool = unseen_pool(args.data_dir, suite)
    (work / "pool.txt").write_text("".join(t + "\n" for t in pool[: args.batch1_sentences]), encoding="utf-8")
    named = engines(args, work)
    best: dict[str, dict[str, float]] = {}
    for round_ in range(args.rounds):
        order = list(named)[round_ % len(named) :] + list(named)[: round_ % len(named)]
        for name in order:
            engine, path = named[name]
            argv = [
                "--case",
                "worker",
                "--engine",
                engine,
                "--path",
                path,
                "--sentences",
                str(work / "sentences.json"),
            ]
            argv += ["--pool", str(work / "pool.txt"), "--batch1-sentences", str(args.batch1_sentences)]
            figures = run_case(str(HERE), argv)
            own = best.setdefault(
                name, {"one": 0.0, "batch": 0.0, "load_s": float("inf"), "peak_rss_mb": float("inf")}
            )
            for key in ("one", "batch"):
                own[key] = max(own[key], figures[key])
            for key in ("load_s", "peak_rss_mb"):
                own[key] = min(own[key], figures[key])
    print(
        f"{len(suite):,} unique suite sentences at batch {BATCH:,}; one sentence per call on {args.batch1_sentences:,} "
        f"sentences of other text; each process new (every text unseen); best of {args.rounds} round(s); "
        f"{os.cpu_count()} cores"
    )
    teacher = next((v for k, v in best.items() if k.startswith("teacher")), None)
    print(
        f"{'model':<52}{'1 per call /s':>14}{'batch 1,024 /s':>16}{'x teacher':>11}{'load s':>8}{'peak MB':>9}"
    )
    for name, f in best.items():
        ratio = f"{f['batch'] / teacher['batch']:.0f}x" if teacher else "-"
        print(
            f"{name:<52}{f['one']:>14,.0f}{f['batch']:>16,.0f}{ratio:>11}{f['load_s']:>8.2f}{f['peak_rss_mb']:>9.0f}"
        )
    print(json.dumps(best))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--case", choices=["worker"])
    parser.add_argument("--engine")
    parser.add_argument("--path")
    parser.add_argument("--sentences")
    parser.add_argument("--pool")
    parser.add_argument(
        "--contextual", default="contextual", help="the contextual model (default: the shipped one)"
    )
    parser.add_argument("--model2vec", help="a model2vec directory (default: distilled into --work once)")
    parser.add_argument("--skip", nargs="*", default=[], choices=["teacher", "model2vec"])
    parser.add_argument("--batch1-sentences", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--data-dir")
    parser.add_argument("--work", default="runs/bench-contextual")
    args = parser.parse_args()
    if args.case == "worker":
        worker(args)
    else:
        run(args)


if __name__ == "__main__":
    main()
