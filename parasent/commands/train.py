"""``parasent train``: train a model with the margin objective."""

from __future__ import annotations

import argparse

from parasent.commands.common import DEFAULT_RUN, add_data_dir, train_default


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "train",
        help="train a model with the margin objective (Wieting et al. 2016, Eq. 1)",
        description="Train a sentence encoder on paraphrase pairs; the best epoch on STS 2016 is kept.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add_data_dir(parser)
    parser.add_argument("--out", default=DEFAULT_RUN, help="run directory: model/, checkpoint, log.jsonl")
    parser.add_argument("--resume", action="store_true", help="continue the interrupted run in --out")
    parser.add_argument(
        "--encoder",
        default=train_default("encoder"),
        help="word_averaging, projection, dan, rnn, identity_rnn, lstm, cse, charagram, char_cnn or char_lstm",
    )
    parser.add_argument(
        "--vectors",
        default=train_default("vectors"),
        help="initial word vectors (GloVe/word2vec text); 'none' for random initialisation",
    )
    parser.add_argument("--dim", type=int, help="embedding dimension (required with --vectors none)")
    parser.add_argument(
        "--pool", default=train_default("pool"), help="named training pool; 'none' to use only --pairs"
    )
    parser.add_argument(
        "--pairs",
        action="append",
        default=[],
        metavar="FILE[:FORMAT]",
        help="extra paraphrase pairs; FORMAT is tsv (s1<TAB>s2), labelled or ppdb",
    )
    parser.add_argument("--max-pairs", type=int, help="train on a seeded subsample of this many pairs")
    parser.add_argument(
        "--min-count",
        type=int,
        default=train_default("min_count"),
        help="training words below this count map to [UNK]",
    )
    parser.add_argument("--epochs", type=int, default=train_default("epochs"))
    parser.add_argument("--batch-size", type=int, default=train_default("batch_size"))
    parser.add_argument("--optimizer", choices=["adagrad", "adam", "sgd"], default=train_default("optimizer"))
    parser.add_argument("--lr", type=float, help="learning rate (default: 0.05 AdaGrad, 0.001 Adam)")
    parser.add_argument("--delta", type=float, default=train_default("delta"), help="margin")
    parser.add_argument("--negatives", choices=["max", "mix", "rand"], default=train_default("negatives"))
    parser.add_argument(
        "--lambda-w",
        type=float,
        default=train_default("lambda_w"),
        help="pull of word vectors to their initial values",
    )
    parser.add_argument(
        "--lambda-c", type=float, default=train_default("lambda_c"), help="L2 on composition parameters"
    )
    parser.add_argument("--clip", type=float, help="clip the gradient norm to this value")
    parser.add_argument("--seed", type=int, default=train_default("seed"))
    parser.add_argument(
        "--validation",
        default=train_default("validation"),
        help="suite for model selection; 'none' keeps the last epoch",
    )
    parser.add_argument(
        "--checkpoint-every",
        type=int,
        default=train_default("checkpoint_every"),
        help="also checkpoint every N steps",
    )
    parser.add_argument("--device", default=train_default("device"), help="cpu, cuda, or auto")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.add_argument(
        "--encoder-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="encoder hyperparameter, VALUE in JSON where not a plain word "
        "(activation=relu, layers=2, output_gate=false, widths=[1,2,3])",
    )
    parser.add_argument(
        "--dropout", type=float, default=train_default("dropout"), help="dropout on embedding vectors"
    )
    parser.add_argument(
        "--init-model",
        help="continue this trained model (cumulative training; keeps its vocabulary, scores it first)",
    )
    parser.add_argument(
        "--composition-prior",
        choices=["auto", "zero", "initial"],
        default=train_default("composition_prior"),
        help="what lambda_c pulls composition parameters to (auto: initial for identity_rnn and --init-model)",
    )
    parser.add_argument(
        "--length-buckets",
        type=int,
        default=train_default("length_buckets"),
        help="batch pairs of similar length (sorted within chunks of N batches; 0: random batches)",
    )
    parser.add_argument(
        "--max-ngrams",
        type=int,
        default=train_default("max_ngrams"),
        help="cap on the character n-gram vocabulary (character encoders)",
    )


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


def parse_encoder_options(values: list[str]) -> dict:
    """``KEY=VALUE`` pairs; a VALUE that is not valid JSON is taken as a string."""
    import json

    options = {}
    for value in values:
        key, sep, raw = value.partition("=")
        if not sep or not key:
            raise ValueError(f"--encoder-option {value!r}: expected KEY=VALUE")
        try:
            options[key.replace("-", "_")] = json.loads(raw)
        except json.JSONDecodeError:
            options[key.replace("-", "_")] = raw
    return options


def config_from_args(args: argparse.Namespace):
    """The :class:`TrainConfig` the parsed training options describe."""
    from parasent.training.config import TrainConfig

    return TrainConfig(
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
        encoder_options=parse_encoder_options(args.encoder_option),
        dropout=args.dropout,
        init_model=args.init_model,
        composition_prior=args.composition_prior,
        max_ngrams=args.max_ngrams,
        length_buckets=args.length_buckets,
    )


def run(args: argparse.Namespace) -> int:
    from parasent.training.run import train

    config = config_from_args(args)
    result = train(config, args.out, data_dir=args.data_dir, resume=args.resume, progress=not args.quiet)
    state = result.state
    best = f"{state.best_score:.2f}" if state.best_score is not None else "n/a"
    print(
        f"done: {state.step} steps; best validation {best} at epoch {state.best_epoch}; model in {result.model_path}"
    )
    return 0
