"""The ``parasent`` command line: train, evaluate, encode, similarity.

Imports are deferred to each command so that ``parasent similarity`` starts fast and never
imports torch for a word-averaging model.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

DEFAULT_RUN = "runs/default"
MODEL_ENV = "PARASENT_MODEL"


def _default_model() -> str:
    return os.environ.get(MODEL_ENV, DEFAULT_RUN)


def _default(option: str):
    """The default of a training option, from :class:`TrainConfig` (the one source of truth)."""
    from dataclasses import fields

    from parasent.training.config import TrainConfig

    return {f.name: f.default for f in fields(TrainConfig)}[option]


def _add_data_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-dir", help="shared data directory (default: $PARASENT_DATA, else ../shared/data)"
    )


def build_parser() -> argparse.ArgumentParser:
    from parasent import __version__

    parser = argparse.ArgumentParser(prog="parasent", description="Paraphrastic sentence embeddings.")
    parser.add_argument("--version", action="version", version=f"parasent {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    train = commands.add_parser(
        "train",
        help="train a model with the margin objective (Wieting et al. 2016, Eq. 1)",
        description="Train a sentence encoder on paraphrase pairs; the best epoch on STS 2016 is kept.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    _add_data_dir(train)
    train.add_argument("--out", default=DEFAULT_RUN, help="run directory: model/, checkpoint, log.jsonl")
    train.add_argument("--resume", action="store_true", help="continue the interrupted run in --out")
    train.add_argument("--encoder", default=_default("encoder"), help="encoder name (see the registry)")
    train.add_argument(
        "--vectors",
        default=_default("vectors"),
        help="initial word vectors (GloVe/word2vec text); 'none' for random initialisation",
    )
    train.add_argument("--dim", type=int, help="embedding dimension (required with --vectors none)")
    train.add_argument(
        "--pool", default=_default("pool"), help="named training pool; 'none' to use only --pairs"
    )
    train.add_argument(
        "--pairs",
        action="append",
        default=[],
        metavar="FILE[:FORMAT]",
        help="extra paraphrase pairs; FORMAT is tsv (s1<TAB>s2), labelled or ppdb",
    )
    train.add_argument("--max-pairs", type=int, help="train on a seeded subsample of this many pairs")
    train.add_argument(
        "--min-count",
        type=int,
        default=_default("min_count"),
        help="training words below this count map to [UNK]",
    )
    train.add_argument("--epochs", type=int, default=_default("epochs"))
    train.add_argument("--batch-size", type=int, default=_default("batch_size"))
    train.add_argument("--optimizer", choices=["adagrad", "adam", "sgd"], default=_default("optimizer"))
    train.add_argument("--lr", type=float, help="learning rate (default: 0.05 AdaGrad, 0.001 Adam)")
    train.add_argument("--delta", type=float, default=_default("delta"), help="margin")
    train.add_argument("--negatives", choices=["max", "mix", "rand"], default=_default("negatives"))
    train.add_argument(
        "--lambda-w",
        type=float,
        default=_default("lambda_w"),
        help="pull of word vectors to their initial values",
    )
    train.add_argument(
        "--lambda-c", type=float, default=_default("lambda_c"), help="L2 on composition parameters"
    )
    train.add_argument("--clip", type=float, help="clip the gradient norm to this value")
    train.add_argument("--seed", type=int, default=_default("seed"))
    train.add_argument(
        "--validation",
        default=_default("validation"),
        help="suite for model selection; 'none' keeps the last epoch",
    )
    train.add_argument(
        "--checkpoint-every",
        type=int,
        default=_default("checkpoint_every"),
        help="also checkpoint every N steps",
    )
    train.add_argument("--device", default=_default("device"), help="cpu, cuda, or auto")
    train.add_argument("--quiet", action="store_true", help="no progress bars")

    evaluate = commands.add_parser(
        "evaluate",
        help="evaluate a model (or averaged vectors) on an STS suite",
        description="Pearson/Spearman x100 of cosine similarity against gold scores, per dataset and aggregated.",
    )
    _add_data_dir(evaluate)
    source = evaluate.add_mutually_exclusive_group()
    source.add_argument("--model", help=f"model or run directory (default: ${MODEL_ENV}, else {DEFAULT_RUN})")
    source.add_argument("--vectors", help="score plain averaging of these word vectors (baseline)")
    evaluate.add_argument(
        "--suite",
        default="transfer",
        help="transfer, validation, sts2012..sts2016, sick, twitter, or one dataset name",
    )
    evaluate.add_argument("--json", help="also write the results as JSON to this path")

    encode = commands.add_parser("encode", help="encode sentences (one per line) to .npy or JSONL")
    encode.add_argument(
        "input", nargs="?", default="-", help="text file, one sentence per line ('-' = stdin)"
    )
    encode.add_argument("--model", help=f"model directory (default: ${MODEL_ENV}, else {DEFAULT_RUN})")
    encode.add_argument(
        "-o", "--output", default="-", help="output path (.npy or .jsonl); '-' = JSONL on stdout"
    )
    encode.add_argument(
        "--format", choices=["npy", "jsonl"], help="output format (default: from the extension)"
    )
    encode.add_argument("--normalize", action="store_true", help="unit-length vectors")
    encode.add_argument("--batch-size", type=int, default=4096)

    similarity = commands.add_parser("similarity", help="cosine similarity of two sentences")
    similarity.add_argument("sentence1")
    similarity.add_argument("sentence2")
    similarity.add_argument("--model", help=f"model directory (default: ${MODEL_ENV}, else {DEFAULT_RUN})")
    return parser


def _parse_pairs(values: list[str]) -> list[list[str]]:
    files = []
    for value in values:
        path, _, fmt = (
            value.rpartition(":")
            if value.rsplit(":", 1)[-1] in ("tsv", "labelled", "ppdb")
            else (value, "", "tsv")
        )
        files.append([path, fmt])
    return files


def cmd_train(args: argparse.Namespace) -> int:
    from parasent.training.config import TrainConfig
    from parasent.training.run import train

    config = TrainConfig(
        encoder=args.encoder,
        vectors=None if args.vectors is None or args.vectors.lower() == "none" else args.vectors,
        dim=args.dim,
        pool=None if args.pool is None or args.pool.lower() == "none" else args.pool,
        pair_files=_parse_pairs(args.pairs),
        max_pairs=args.max_pairs,
        min_count=args.min_count,
        epochs=args.epochs,
        batch_size=args.batch_size,
        optimizer=args.optimizer,
        lr=args.lr,
        delta=args.delta,
        negatives=args.negatives,
        lambda_w=args.lambda_w,
        lambda_c=args.lambda_c,
        clip=args.clip,
        seed=args.seed,
        validation=None if args.validation is None or args.validation.lower() == "none" else args.validation,
        checkpoint_every=args.checkpoint_every,
        device=args.device,
    )
    result = train(config, args.out, data_dir=args.data_dir, resume=args.resume, progress=not args.quiet)
    state = result.state
    best = f"{state.best_score:.2f}" if state.best_score is not None else "n/a"
    print(
        f"done: {state.step} steps; best validation {best} at epoch {state.best_epoch}; model in {result.model_path}"
    )
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    from parasent.evaluation.evaluator import evaluate
    from parasent.paths import resolve_data_dir

    data_dir = resolve_data_dir(args.data_dir)
    if args.vectors:
        from parasent.data.vectors import read_word_vectors
        from parasent.model import SentenceModel

        model = SentenceModel.from_vectors(read_word_vectors(args.vectors))
        name = f"average of {args.vectors}"
    else:
        from parasent.model import load

        path = args.model or _default_model()
        model = load(path)
        name = str(path)
    report = evaluate(model, args.suite, data_dir, name=name)
    print(report.format_table())
    if args.json:
        Path(args.json).write_text(json.dumps(report.to_dict(), indent=2) + "\n")
    return 0


def cmd_encode(args: argparse.Namespace) -> int:
    import numpy as np

    from parasent.model import load

    model = load(args.model or _default_model())
    if args.input == "-":
        sentences = [line.rstrip("\r\n") for line in sys.stdin]
    else:
        with open(args.input, encoding="utf-8") as handle:
            sentences = [line.rstrip("\r\n") for line in handle]
    fmt = args.format or ("npy" if args.output.endswith(".npy") else "jsonl")
    chunks = model.iter_encode(sentences, batch_size=args.batch_size, normalize=args.normalize)
    if fmt == "npy":
        if args.output == "-":
            raise SystemExit("parasent: error: .npy output needs a file path (--output FILE.npy)")
        out = np.lib.format.open_memmap(
            args.output, mode="w+", dtype=np.float32, shape=(len(sentences), model.dim)
        )
        row = 0
        for chunk in chunks:
            out[row : row + len(chunk)] = chunk
            row += len(chunk)
        out.flush()
        del out
    else:
        handle = sys.stdout if args.output == "-" else open(args.output, "w", encoding="utf-8")
        try:
            row = 0
            for chunk in chunks:
                for vector in chunk:
                    handle.write(
                        json.dumps(
                            {"text": sentences[row], "embedding": [round(float(x), 6) for x in vector]}
                        )
                        + "\n"
                    )
                    row += 1
        finally:
            if handle is not sys.stdout:
                handle.close()
    if args.output != "-":
        print(f"encoded {len(sentences)} sentence(s) to {args.output}", file=sys.stderr)
    return 0


def cmd_similarity(args: argparse.Namespace) -> int:
    from parasent.model import load

    model = load(args.model or _default_model())
    print(f"{model.similarity(args.sentence1, args.sentence2):.4f}")
    return 0


COMMANDS = {"train": cmd_train, "evaluate": cmd_evaluate, "encode": cmd_encode, "similarity": cmd_similarity}


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from parasent.errors import ParasentError

    try:
        return COMMANDS[args.command](args)
    except ParasentError as exc:
        from parasent.training.trainer import TrainingInterrupted

        print(
            f"parasent: {'stopped' if isinstance(exc, TrainingInterrupted) else 'error'}: {exc}",
            file=sys.stderr,
        )
        return 130 if isinstance(exc, TrainingInterrupted) else 2
    except (KeyError, ValueError) as exc:
        message = exc.args[0] if exc.args else str(exc)
        print(f"parasent: error: {message}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
