"""Benchmark of parasent past one process: the teacher pass on 1 and N processes, data-parallel
training on 1 and N processes, and encoding a corpus on Ray Data against ``parasent encode``.

- **teacher pass**: ``parasent teacher-pass`` (the distilled recipe's contextual pass:
  all-MiniLM-L6-v2 token embeddings, sums per word and piece, sentence targets) over
  ``--teacher-sentences`` shared sentences, on 1 process and through ``--ranks N``, each with
  its own empty cache; sentences/s is the pass's sentences over its wall time as process 0
  reports it (model loading included), and the stored sums and targets are compared.
- **training**: ``parasent train`` (paper recipe, margin objective, MAX negatives) on
  ``--pairs`` synthetic pairs, one epoch, global batch ``--batch`` (per process ``batch / N``,
  ``--negatives-across-ranks``); pairs/s is the epoch's pairs over its wall time.
- **Ray Data**: ``parasent.ray.embed`` on a local Ray cluster (``ray.init(num_cpus=N + 1)``:
  N workers of one CPU each and one CPU for the read and write tasks; workers already
  started: the cluster's start is left out) over
  ``--ray-sentences`` shared sentences, read from a text file and written to Parquet, against
  ``parasent encode`` in one process on the same file; the vectors are compared.

Every process runs one thread (OMP_NUM_THREADS=1, PARASENT_NUM_THREADS=1). Prints a table.

    python bench/bench_distributed.py                          # everything, 1 and 2 processes, CPU
    python bench/bench_distributed.py --only training --batch 100 1000 2000
    python bench/bench_distributed.py --processes 1 2 4 --device cuda   # on a GPU machine (nccl)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_scale import base_sentences, generate
from harness import print_table

ROOT = Path(__file__).resolve().parents[1]


def environment() -> dict[str, str]:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PARASENT_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return env


def launcher(processes: int) -> list[str]:
    if processes == 1:
        return [sys.executable]
    return [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", str(processes)]


def train_case(processes: int, batch: int, pairs: Path, out: Path, args: argparse.Namespace) -> dict:
    command = ["train", "--pool", "none", "--pairs", str(pairs), "--epochs", "1", "--batch-size"]
    command += [str(batch // processes), "--validation", "none", "--device", args.device, "--out", str(out)]
    command += ["--quiet", "--recipe", "paper"] + (["--negatives-across-ranks"] if processes > 1 else [])
    done = subprocess.run(
        [*launcher(processes), "-m", "parasent", *command], env=environment(), capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"training on {processes} process(es) failed:\n{done.stderr[-4000:]}")
    records = [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]
    epoch = next(r for r in records if r["event"] == "epoch")
    return {"pairs_per_s": args.pairs / epoch["seconds"], "seconds": epoch["seconds"]}


def teacher_case(processes: int, sentences: Path, cache: Path, args: argparse.Namespace) -> dict:
    command = ["teacher-pass", "--recipe", "distilled", "--pool", "none", "--teacher-text", str(sentences)]
    command += ["--cache-dir", str(cache), "--device", args.device, "--quiet", "--ranks", str(processes)]
    done = subprocess.run(
        [sys.executable, "-m", "parasent", *command], env=environment(), capture_output=True, text=True
    )
    found = re.search(r"teacher pass: (\d+) sentences on (\d+) process\(es\) in ([\d.]+) s", done.stdout)
    if done.returncode != 0 or not found:
        raise SystemExit(
            f"teacher pass on {processes} process(es) failed:\n{done.stdout[-2000:]}{done.stderr[-4000:]}"
        )
    count, seconds = int(found.group(1)), float(found.group(3))
    return {"sentences": count, "seconds": seconds, "sentences_per_s": count / seconds}


def stored_pass(cache: Path) -> tuple:
    """The contextual sums file and every sentence target of a teacher cache."""
    import numpy as np
    from safetensors.numpy import load_file

    sys.path.insert(0, str(ROOT))
    from parasent.distillation.cache import CONTEXTUAL_FOLDER, _read_sums

    (path,) = cache.glob(f"*/{CONTEXTUAL_FOLDER}/*.safetensors")
    shards = [load_file(str(s)) for s in sorted(cache.glob("*/*.safetensors"))]
    keys = np.concatenate([s["keys"] for s in shards])
    order = np.lexsort(keys.T[::-1])
    return _read_sums(path)[0], keys[order], np.concatenate([s["vectors"] for s in shards])[order]


def same_pass(one: Path, other: Path) -> str:
    import numpy as np

    (sums1, keys1, targets1), (sums2, keys2, targets2) = stored_pass(one), stored_pass(other)
    same_rows = sums1.words == sums2.words and np.array_equal(sums1.counts, sums2.counts)
    # float32 sums added in another order: compare the means a word's vector is made from, and
    # the gap relative to the largest sum of the row
    means1, means2 = (s.sums / np.maximum(s.counts, 1)[:, None] for s in (sums1, sums2))
    close = same_rows and np.allclose(means1, means2, rtol=1e-5, atol=1e-6)
    scale = np.maximum(np.abs(sums1.sums).max(axis=1, keepdims=True), 1e-12)
    gap = float((np.abs(sums1.sums - sums2.sums) / scale).max()) if same_rows else float("nan")
    targets = np.array_equal(keys1, keys2) and np.array_equal(targets1, targets2)
    return (
        f"same rows and counts: {same_rows}; means equal to 1e-5: {close} (largest sum gap {gap:.1e} of its "
        f"row's largest sum); sentence targets identical: {targets}"
    )


def ray_case(workers: int, corpus: Path, model: Path, out: Path, batch_size: int) -> dict:
    """A case in a fresh process (its own Ray cluster): see :func:`ray_worker`."""
    done = subprocess.run(
        [sys.executable, __file__, "--ray-worker", str(workers), str(corpus), str(model), str(out), str(batch_size)],
        env=environment(), capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"Ray with {workers} worker(s) failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def ray_worker(workers: int, corpus: str, model: str, out: str, batch_size: int) -> None:
    import ray

    import parasent.ray

    env = {"OMP_NUM_THREADS": "1", "PARASENT_NUM_THREADS": "1", "PYTHONPATH": environment()["PYTHONPATH"]}
    # one CPU per worker, plus one for Ray Data's read and write tasks (the workers would hold every
    # CPU otherwise, and the reads would wait for one forever)
    ray.init(
        num_cpus=workers + 1, include_dashboard=False, log_to_driver=False, runtime_env={"env_vars": env}
    )
    ray.data.DataContext.get_current().execution_options.preserve_order = True
    ray.data.DataContext.get_current().enable_progress_bars = False
    warm = ray.data.from_items([{"text": "warm up"}] * workers, override_num_blocks=workers)
    parasent.ray.embed(warm, model, concurrency=workers, batch_size=1, num_cpus=1).materialize()  # start them
    started = time.perf_counter()
    dataset = ray.data.read_text(corpus)
    parasent.ray.embed(dataset, model, concurrency=workers, batch_size=batch_size, num_cpus=1).write_parquet(
        out
    )
    seconds = time.perf_counter() - started
    ray.shutdown()
    count = sum(1 for _ in open(corpus, encoding="utf-8"))
    print(json.dumps({"seconds": seconds, "sentences_per_s": count / seconds}))


def encode_case(corpus: Path, model: Path, out: Path) -> dict:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "parasent", "encode", str(corpus), "--model", str(model), "-o", str(out), "--overwrite"],
        env=environment(), capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"parasent encode failed:\n{done.stderr[-4000:]}")
    count = sum(1 for _ in open(corpus, encoding="utf-8"))
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "sentences_per_s": count / seconds}


def glove_model(path: Path) -> Path:
    sys.path.insert(0, str(ROOT))
    from parasent.core.model import SentenceModel
    from parasent.support.paths import resolve_data_dir
    from parasent.text.word_vectors import read_word_vectors, resolve_vectors_path
    from parasent.training.config import DEFAULT_VECTORS

    vectors = read_word_vectors(resolve_vectors_path(DEFAULT_VECTORS, resolve_data_dir(None)))
    SentenceModel.from_vectors(vectors).save(path)
    return path


def teacher_rows(work: Path, args: argparse.Namespace) -> list:
    sentences = work / "teacher-text.txt"
    sentences.write_text("\n".join(base_sentences()[: args.teacher_sentences]) + "\n", encoding="utf-8")
    rows, caches = [], {}
    for processes in args.processes:
        caches[processes] = work / f"teacher-cache-{processes}"
        result = teacher_case(processes, sentences, caches[processes], args)
        print(f"teacher pass, {processes} process(es): {result}", flush=True)
        rows.append(
            (f"teacher pass, {processes} process(es)", f"{result['sentences_per_s']:,.1f} sentences/s", "-")
        )
    for processes in args.processes[1:]:
        print(
            f"teacher pass, {processes} vs {args.processes[0]}: {same_pass(caches[args.processes[0]], caches[processes])}"
        )
    return rows


def training_rows(work: Path, args: argparse.Namespace) -> list:
    pairs = work / "pairs.tsv"
    generate(pairs, args.pairs)
    rows = []
    for batch in args.batch:
        for processes in args.processes:
            result = train_case(processes, batch, pairs, work / f"run-{batch}-{processes}", args)
            print(f"training, global batch {batch}, {processes} process(es): {result}", flush=True)
            rows.append((f"training, batch {batch}, {processes} process(es), {args.device}", f"{result['pairs_per_s']:,.0f} pairs/s", "-"))  # fmt: skip
    return rows


def ray_rows(work: Path, args: argparse.Namespace) -> list:
    import numpy as np

    sys.path.insert(0, str(ROOT))
    from parasent.ray import read_vectors

    corpus = work / "corpus.txt"
    corpus.write_text("\n".join(base_sentences()[: args.ray_sentences]) + "\n", encoding="utf-8")
    model = Path(args.model) if args.model else glove_model(work / "glove-model")
    reference = encode_case(corpus, model, work / "encoded.npy")
    print(f"parasent encode, 1 process: {reference}", flush=True)
    rows = [("parasent encode, 1 process", f"{reference['sentences_per_s']:,.0f} sentences/s", "-")]
    expected = np.load(work / "encoded.npy")
    for workers in args.processes:
        out = work / f"ray-{workers}"
        result = ray_case(workers, corpus, model, out, args.ray_batch)
        _, vectors = read_vectors(out, text_column=None)
        result["identical"] = bool(np.array_equal(vectors, expected))
        print(f"Ray Data, {workers} worker(s): {result}", flush=True)
        rows.append((f"Ray Data map_batches, {workers} worker(s)", f"{result['sentences_per_s']:,.0f} sentences/s", "-"))  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--only", nargs="+", choices=["teacher", "training", "ray"], default=["teacher", "training", "ray"])  # fmt: skip
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--pairs", type=int, default=20_000)
    parser.add_argument("--batch", type=int, nargs="+", default=[100], help="global batch sizes")
    parser.add_argument("--teacher-sentences", type=int, default=8_192)
    parser.add_argument("--ray-sentences", type=int, default=200_000)
    parser.add_argument("--ray-batch", type=int, default=4096, help="rows per map_batches call")
    parser.add_argument("--model", help="model for the Ray and encode rows (default: averaged GloVe-4k)")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="parasent-bench-dist-") as work:
        for part, build in (("teacher", teacher_rows), ("training", training_rows), ("ray", ray_rows)):
            if part in args.only:
                rows += build(Path(work), args)
    print_table(rows)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--ray-worker":
        ray_worker(int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]))
    else:
        main()
