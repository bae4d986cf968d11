"""Benchmark of the core: training pairs/s of PARAGRAM-PHRASE at two vocabulary sizes,
training pairs/s of every registered encoder in the comparison's setting, encoding
sentences/s over the transfer suite, and peak memory of each.

Each case runs in its own subprocess so that its peak RSS is its own. Prints a table.

    python bench/bench_core.py                       # 50k and 500k words, 300 dimensions
    python bench/bench_core.py --model runs/default  # encode with a trained model
    python bench/bench_core.py --encoders lstm cse   # only these encoders ('none' for none)
    python bench/bench_core.py --vocab 30000 500000 --pull lazy exact --encoders none
                                                     # step cost of the lambda_w pull, both modes
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from harness import peak_rss_mb, print_table, run_case


def case_train(args: argparse.Namespace) -> dict:
    import torch

    from parasent.distillation.provider import TeacherSide
    from parasent.support.paths import resolve_data_dir
    from parasent.text import WordTokenizer, count_words
    from parasent.training.config import TrainConfig
    from parasent.training.encoder_stage import new_encoder
    from parasent.training.features_stage import Features, Start
    from parasent.training.objective_stage import batch_source, build_margin_objective
    from parasent.training.optim import build_optimizer
    from parasent.training.text_stage import read_training_text
    from parasent.training.trainer import Trainer

    config = TrainConfig.from_flat(
        vectors=None,
        dim=args.dim,
        batch_size=100,
        negatives="max",
        optimizer=args.optimizer,
        validation=None,
        device="cpu",
        pull=args.pull[0],
        pull_rows="all",  # the rows start random here: pull them all, as a real vocabulary's would be
    )
    text = read_training_text(config, resolve_data_dir(args.data_dir), say=lambda _: None)
    words = sorted(count_words(text.sentences()))
    if len(words) > args.vocab - 2:
        raise SystemExit(f"the pool has {len(words)} words, more than --vocab {args.vocab}")
    # Pad the vocabulary with words that never occur: the table is as large as a real one.
    vocabulary = words + [f"<filler{i}>" for i in range(args.vocab - 2 - len(words))]
    features = Features(WordTokenizer.from_vocabulary(vocabulary), "words")
    tokenizer = features.tokenizer
    data = batch_source(config, text, tokenizer)
    torch.manual_seed(0)
    encoder = new_encoder("word_averaging", {}, features, args.dim)
    encoder.set_embeddings(torch.randn(tokenizer.vocab_size, args.dim) * 0.1)
    trainer = Trainer(
        objective=build_margin_objective(config, encoder, features, Start(), TeacherSide()),
        optimizer=build_optimizer(encoder, args.optimizer),
        data=data,
        config=config,
        out_dir=args.scratch,
        tokenizer=tokenizer,
        progress=False,
    )
    rates = []
    batches = data.batches(0, 1, 100)
    for _ in range(args.warmup):
        trainer.train_step(next(batches))
    for _ in range(args.repeats):
        started = time.perf_counter()
        for _ in range(args.steps):
            batch = next(batches, None)
            if batch is None:
                batches = data.batches(trainer.state.epoch + 1, 1, 100)
                batch = next(batches)
            trainer.train_step(batch)
        rates.append(args.steps * 100 / (time.perf_counter() - started))
    return {
        "pairs_per_s": statistics.median(rates),
        "runs": rates,
        "vocab": tokenizer.vocab_size,
        "dim": args.dim,
        "pairs": len(data),
        "peak_rss_mb": peak_rss_mb(),
        "threads": torch.get_num_threads(),
    }


def case_encoder(args: argparse.Namespace) -> dict:
    """Training steps of one encoder as ``parasent train`` builds it: the standard pool,
    GloVe-4k 50d initial vectors (character encoders: 50d, their own features), batch 100,
    MAX negatives, the default optimizer; the batches of epoch 1 in order."""
    import torch

    from parasent.training.config import TrainConfig
    from parasent.training.run import assemble

    config = TrainConfig.from_flat(
        encoder=args.encoder, batch_size=100, negatives="max", validation=None, device="cpu", seed=1
    )
    trainer = assemble(
        config, args.scratch, data_dir=args.data_dir, progress=False, say=lambda _: None
    ).trainer
    trainer.objective.to(trainer.device)
    trainer.objective.train()
    batches = trainer.data.batches(0, 1, 100)
    for _ in range(args.warmup):
        trainer.train_step(next(batches))
    rates = []
    for _ in range(args.repeats):
        started, pairs = time.perf_counter(), 0
        for _ in range(args.encoder_steps):
            batch = next(batches, None)
            if batch is None:
                batches = trainer.data.batches(trainer.state.epoch + 1, 1, 100)
                batch = next(batches)
            trainer.train_step(batch)
            pairs += len(batch)
        rates.append(pairs / (time.perf_counter() - started))
    return {
        "pairs_per_s": statistics.median(rates),
        "runs": rates,
        "encoder": args.encoder,
        "config": trainer.encoder.config(),
        "pairs": len(trainer.data),
        "peak_rss_mb": peak_rss_mb(),
        "threads": torch.get_num_threads(),
    }


def case_encode(args: argparse.Namespace) -> dict:
    started = time.perf_counter()
    from parasent.evaluation.evaluator import SimilarityEvaluator

    sentences = SimilarityEvaluator("transfer", args.data_dir).sentences
    if args.model:
        from parasent import load

        model = load(args.model)
    else:
        from parasent.core.model import SentenceModel
        from parasent.text.word_vectors import read_word_vectors

        model = SentenceModel.from_vectors(
            read_word_vectors(Path(args.data_dir) / "wordvecs/glove50_4k.txt.gz")
        )
    setup = time.perf_counter() - started
    rates = []
    for _ in range(args.repeats):
        started = time.perf_counter()
        vectors = model.encode(sentences, batch_size=args.batch_size)
        rates.append(len(sentences) / (time.perf_counter() - started))
    return {
        "sentences_per_s": statistics.median(rates),
        "runs": rates,
        "sentences": len(sentences),
        "dim": int(vectors.shape[1]),
        "setup_s": setup,
        "peak_rss_mb": peak_rss_mb(),
        "torch_imported": "torch" in sys.modules,
    }


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--model", help="model for the encoding case (default: averaged GloVe-4k)")
    parser.add_argument("--vocab", type=int, nargs="+", default=[50_000, 500_000])
    parser.add_argument("--dim", type=int, default=300)
    parser.add_argument("--optimizer", default="adagrad")
    parser.add_argument(
        "--pull", nargs="+", default=["lazy"], choices=["lazy", "exact"], help="lambda_w pull modes to time"
    )
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=4096, help="encoding batch")
    parser.add_argument(
        "--encoders",
        nargs="+",
        default=None,
        help="encoders to time in the comparison setting (default: all)",
    )
    parser.add_argument("--encoder-steps", type=int, default=30, help="timed steps per encoder and repeat")
    parser.add_argument("--encoder", help=argparse.SUPPRESS)
    parser.add_argument("--case", choices=["train", "encoder", "encode"], help=argparse.SUPPRESS)
    parser.add_argument("--scratch", default="/tmp/parasent-bench", help=argparse.SUPPRESS)
    return parser.parse_args()


def train_rows(args: argparse.Namespace, common: list[str]) -> tuple[list[tuple], list[float]]:
    """One row per vocabulary size of the PARAGRAM-PHRASE training case, and its rates."""
    rows, train_rates = [], []
    for vocab in args.vocab:
        for pull in args.pull:
            result = run_case(
                __file__,
                ["--case", "train", "--vocab", str(vocab), "--dim", str(args.dim), "--steps", str(args.steps)]
                + ["--warmup", str(args.warmup), "--optimizer", args.optimizer, "--pull", pull, *common],
            )
            rows.append(
                (
                    f"train PARAGRAM-PHRASE, {result['vocab']:,} words x {result['dim']}, batch 100, MAX, "
                    f"{args.optimizer}, {pull} pull",
                    f"{result['pairs_per_s']:,.0f} pairs/s, {100_000 / result['pairs_per_s']:,.1f} ms/step",
                    f"{result['peak_rss_mb']:,.0f} MB",
                )
            )
            if pull == args.pull[0]:
                train_rates.append(result["pairs_per_s"])
    return rows, train_rates


def encoder_rows(args: argparse.Namespace, common: list[str]) -> list[tuple]:
    """One row per encoder, trained as ``parasent train`` builds it."""
    from parasent.encoders import ENCODERS

    rows = []

    encoders = list(ENCODERS) if args.encoders is None else [e for e in args.encoders if e != "none"]
    for name in encoders:
        result = run_case(
            __file__,
            [
                "--case",
                "encoder",
                "--encoder",
                name,
                "--encoder-steps",
                str(args.encoder_steps),
                "--warmup",
                "3",
                *common,
            ],
        )
        options = {k: v for k, v in result["config"].items() if k not in ("name", "vocab_size")}
        rows.append(
            (
                f"train {name} {json.dumps(options, separators=(',', ':'))}, standard pool, batch 100, MAX",
                f"{result['pairs_per_s']:,.0f} pairs/s",
                f"{result['peak_rss_mb']:,.0f} MB",
            )
        )
    return rows


def main() -> None:
    args = parse_args()
    from parasent.support.paths import resolve_data_dir

    args.data_dir = str(resolve_data_dir(args.data_dir))
    if args.case is not None:
        if args.case == "train":
            args.vocab = args.vocab[0]
        case = {"train": case_train, "encoder": case_encoder, "encode": case_encode}[args.case]
        print(json.dumps(case(args)))
        return
    common = ["--data-dir", args.data_dir, "--repeats", str(args.repeats)]
    rows, train_rates = train_rows(args, common)
    rows += encoder_rows(args, common)
    encode = run_case(
        __file__,
        ["--case", "encode", "--batch-size", str(args.batch_size), *common]
        + (["--model", args.model] if args.model else []),
    )
    rows.append(
        (
            f"encode {encode['sentences']:,} unique transfer sentences ({args.model or 'GloVe-4k average'}, "
            f"{encode['dim']}d, torch imported: {encode['torch_imported']})",
            f"{encode['sentences_per_s']:,.0f} sentences/s",
            f"{encode['peak_rss_mb']:,.0f} MB",
        )
    )
    print_table(rows)
    if len(train_rates) > 1:
        ratio = train_rates[-1] / train_rates[0]
        print(f"training speed at {args.vocab[-1]:,} words / at {args.vocab[0]:,} words: {ratio:.2f}")


if __name__ == "__main__":
    main()
