"""Benchmark of training at scale: a synthetic corpus of N paraphrase pairs (made from the
shared data's sentences), prepared into shards (``parasent prepare``) and trained from them
(``train --prepared``) for a fixed number of steps spread over the epoch (so that every part
of the corpus, and so every shard, is visited). Each case runs in its own subprocess: its
peak RSS is its own. Prints prepare pairs/s, train pairs/s and peak RSS per corpus size.

    python bench/bench_scale.py --pairs 100000 10000000   # the docs' figures
    python bench/bench_scale.py --pairs 100000            # a quick look

The corpus and the prepared directory go to --work (default: a folder under /tmp) and are
deleted afterwards. Synthetic pairs: a sentence of the standard pool or running-text corpora,
and the same sentence with a random vocabulary word appended (so nearly every pair is
distinct and survives deduplication).
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from harness import peak_rss_mb, print_table, run_case


def base_sentences(limit: int = 200_000) -> list[str]:
    from parasent.data.training_text.corpus import iter_sentences, read_corpus
    from parasent.data.training_text.pools import build_pool
    from parasent.support.paths import resolve_data_dir

    root = resolve_data_dir(None)
    pairs, _ = build_pool(root, "standard")
    sentences = {s for p in pairs for s in (p.s1, p.s2)}
    documents, _ = read_corpus(root, "standard", forbidden=set())
    for sentence in iter_sentences(documents):
        if len(sentences) >= limit:
            break
        sentences.add(sentence)
    return sorted(sentences)


def generate(path: Path, count: int, seed: int = 0) -> None:
    """``count`` synthetic pairs, TSV: a sentence, and the sentence with a random word appended."""
    import numpy as np

    sentences = base_sentences()
    vocabulary = sorted({w for s in sentences for w in s.split()})
    rng = np.random.default_rng(seed)
    with open(path, "w", encoding="utf-8") as out:
        for start in range(0, count, 100_000):
            size = min(100_000, count - start)
            chosen = rng.integers(len(sentences), size=size).tolist()
            words = rng.integers(len(vocabulary), size=size).tolist()
            out.writelines(
                f"{sentences[a]}\t{sentences[a]} {vocabulary[w]}\n"
                for a, w in zip(chosen, words, strict=True)
            )


def replicate(prepared: Path, copies: int, target: Path) -> None:
    """A prepared directory of ``copies`` times the shards of ``prepared`` (symbolic links, no
    disk): a corpus as large as the machine's time allows preparing, times ``copies``, for the
    training side of the benchmark (equal sentences in different copies count as duplicates)."""
    import json

    from parasent.data.training_text.shards import ARRAYS, MANIFEST, TOKEN_COUNTS, TOKENIZER

    manifest = json.loads((prepared / MANIFEST).read_text())
    target.mkdir()
    shards = []
    for _ in range(copies):
        for shard in manifest["shards"]:
            name = f"shard-{len(shards):05d}"
            for array in ARRAYS:
                (target / f"{name}.{array}.npy").symlink_to(prepared / f"{shard['name']}.{array}.npy")
            shards.append({**shard, "name": name})
    for name in (TOKENIZER, TOKEN_COUNTS):
        (target / name).symlink_to(prepared / name)
    for key in ("pairs", "sentences", "tokens"):
        manifest[key] *= copies
    manifest["shards"] = shards
    (target / MANIFEST).write_text(json.dumps(manifest))


def case_prepare(args: argparse.Namespace) -> dict:
    from parasent.data.training_text.pools import evaluation_sentences
    from parasent.data.training_text.prepare import prepare_pairs
    from parasent.support.paths import resolve_data_dir
    from parasent.text.word_vectors import read_word_vectors

    root = resolve_data_dir(None)
    forbidden = evaluation_sentences(root)
    words = read_word_vectors(root / "wordvecs/glove50_4k.txt.gz").words
    started = time.perf_counter()
    result = prepare_pairs(
        [(args.input, "tsv")],
        args.prepared,
        forbidden=forbidden,
        vocabulary_words=words,
        shard_pairs=args.shard_pairs,
    )
    elapsed = time.perf_counter() - started
    filtered = result.manifest["filter"]
    return {
        "pairs_read": sum(filtered["read"].values()),
        "pairs_kept": result.manifest["pairs"],
        "pairs_per_s": sum(filtered["read"].values()) / elapsed,
        "seconds": elapsed,
        "peak_rss_mb": peak_rss_mb(),
    }


def case_train(args: argparse.Namespace) -> dict:
    from parasent.training.config import TrainConfig
    from parasent.training.run import assemble

    config = TrainConfig.from_flat(prepared=args.prepared, pool=None, validation=None, device="cpu", epochs=1)
    with tempfile.TemporaryDirectory() as out:
        trainer = assemble(config, out, progress=False, say=lambda _: None).trainer
        data, size = trainer.data, config.batch_size
        total = data.num_batches(size)
        segments = 10
        per_segment = args.steps // segments
        parameters = trainer.trainable_parameters()
        started, pairs = time.perf_counter(), 0
        for segment in range(segments):
            batches = data.batches(0, config.seed, size, start=segment * total // segments)
            for _, batch in zip(range(per_segment), batches, strict=False):
                trainer.train_step(batch, parameters)
                pairs += len(batch)
        elapsed = time.perf_counter() - started
    return {"pairs_per_s": pairs / elapsed, "steps": per_segment * segments, "peak_rss_mb": peak_rss_mb()}


def row(name: str, result: dict) -> tuple[str, str, str]:
    return name, f"{result['pairs_per_s']:,.0f} pairs/s", f"{result['peak_rss_mb']:.0f} MB"


def bench_size(count: int, work: Path, args: argparse.Namespace) -> list[tuple[str, str, str]]:
    """Generate, prepare and train ``count`` pairs in ``work`` (and train ``--replicate`` copies)."""
    corpus, prepared = work / "pairs.tsv", work / "prepared"
    started = time.perf_counter()
    generate(corpus, count)
    print(
        f"{count} pairs generated in {time.perf_counter() - started:.0f}s ({corpus.stat().st_size >> 20} MB)"
    )
    common = ["--input", str(corpus), "--prepared", str(prepared), "--shard-pairs", str(args.shard_pairs)]
    prep = run_case(__file__, ["--case", "prepare", *common])
    print(f"prepare {count}: {prep}")
    os.remove(corpus)
    train = run_case(__file__, ["--case", "train", "--steps", str(args.steps), *common])
    print(f"train {count}: {train}")
    rows = [row(f"prepare {count:,} pairs", prep), row(f"train {count:,} pairs", train)]
    if args.replicate:
        replicate(prepared, args.replicate, work / "replicated")
        common[3] = str(work / "replicated")
        copied = run_case(__file__, ["--case", "train", "--steps", str(args.steps), *common])
        print(f"train {count} x {args.replicate}: {copied}")
        rows.append(row(f"train {count * args.replicate:,} pairs ({args.replicate} copies)", copied))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pairs", type=int, nargs="+", default=[100_000, 10_000_000])
    parser.add_argument("--steps", type=int, default=1000, help="training steps (batch 100) per case")
    parser.add_argument("--shard-pairs", type=int, default=100_000)
    parser.add_argument(
        "--replicate",
        type=int,
        default=0,
        help="also train from K copies of each prepared corpus (symlinked shards)",
    )
    parser.add_argument("--work", help="folder for the corpus and shards (deleted afterwards)")
    parser.add_argument("--case", choices=["prepare", "train"], help=argparse.SUPPRESS)
    parser.add_argument("--input", help=argparse.SUPPRESS)
    parser.add_argument("--prepared", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        import json

        print(json.dumps(case_prepare(args) if args.case == "prepare" else case_train(args)))
        return
    rows = []
    for count in args.pairs:
        work = Path(tempfile.mkdtemp(prefix="parasent-bench-scale-", dir=args.work))
        try:
            rows.extend(bench_size(count, work, args))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    print_table(rows)


if __name__ == "__main__":
    main()
