"""``parasent train``: train a model with the margin objective or Siamese CBOW."""

from __future__ import annotations

import argparse

from parasent.commands.common import DEFAULT_RUN, add_data_dir, train_default


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "train",
        help="train a model: margin objective (Wieting et al. 2016) or --objective siamese-cbow",
        description="Train a sentence encoder on paraphrase pairs; the best epoch on STS 2016 is kept.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add_data_dir(parser)
    parser.add_argument("--out", default=DEFAULT_RUN, help="run directory: model/, checkpoint, log.jsonl")
    parser.add_argument("--resume", action="store_true", help="continue the interrupted run in --out")
    parser.add_argument("--encoder", default=train_default("encoder"), help="encoder name (see the registry)")
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
        help="extra paraphrase pairs; FORMAT is tsv (s1<TAB>s2), labelled, ppdb or sts (score<TAB>s1<TAB>s2)",
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
    add_issue4_options(parser)


def add_issue4_options(parser: argparse.ArgumentParser) -> None:
    """Siamese CBOW (Kenter et al. 2016) and the DCU-SEManiacs fine-tuning (Hokamp & Arora 2016)."""
    from parasent.training.config import OBJECTIVE_PRESETS, OBJECTIVES
    from parasent.training.optim import LR_SCHEDULES, OPTIMIZERS

    parser.add_argument(
        "--objective",
        choices=OBJECTIVES,
        default=train_default("objective"),
        help="margin: paraphrase pairs (Wieting et al. 2016); siamese-cbow: running text (Kenter et al. 2016), "
        "which also changes the defaults marked 'siamese-cbow:'",
    )
    parser.add_argument(
        "--corpus",
        help="siamese-cbow: running text, a named corpus (standard, gutenberg, movie_reviews, state_union) "
        "or PATH[:sentences|wrapped|paragraphs]",
    )
    parser.add_argument(
        "--num-negatives",
        type=int,
        default=train_default("num_negatives"),
        help="siamese-cbow: random negative sentences per example (n)",
    )
    parser.add_argument("--init-std", type=float, help="std of randomly initialised word vectors")
    parser.add_argument(
        "--lr-schedule",
        choices=LR_SCHEDULES,
        default=train_default("lr_schedule"),
        help="linear: the rate decreases in proportion to the batches done",
    )
    parser.add_argument(
        "--unknown",
        choices=["vector", "skip"],
        default=train_default("unknown"),
        help="out-of-vocabulary words: a trained [UNK] vector, or skipped",
    )
    parser.add_argument(
        "--init-model",
        help="fine-tune this model: start from its vocabulary and vectors (implies --vectors none)",
    )
    parser.add_argument(
        "--min-score",
        type=float,
        help="scored pairs (--pool sts2012-train, --pairs FILE:sts) count as paraphrases from this "
        "gold score up (unset: the pool's own, 3.8 for sts2012-train)",
    )
    parser.add_argument(
        "--synthetic",
        metavar="GENERATOR",
        help="add synthetic paraphrase pairs: ppdb (offline lexical substitution), file:PATH "
        "(sentence<TAB>paraphrase lines), python:MODULE:FUNCTION (e.g. a machine-translation round trip)",
    )
    parser.add_argument(
        "--synthetic-for",
        default=train_default("synthetic_for"),
        help="whose sentences --synthetic paraphrases: 'train' (the training pairs) or a suite "
        "(e.g. validation: TRANSDUCTIVE, the pairs contain that suite's evaluation sentences)",
    )
    for action in parser._actions:
        if action.dest == "optimizer":
            action.choices = list(OPTIMIZERS)
    # Defaults that depend on --objective: mark argparse's defaults so that run() can tell
    # them from values the user typed, and list the other objectives' defaults in --help.
    preset_keys = {key for preset in OBJECTIVE_PRESETS.values() for key in preset}
    for action in parser._actions:
        if action.dest in preset_keys:
            action.default = _tag_default(action.default)
            others = "; ".join(
                f"{name}: {preset[action.dest]}"
                for name, preset in OBJECTIVE_PRESETS.items()
                if action.dest in preset
            )
            action.help = f"{action.help or ''} ({others})".strip()


class _DefaultStr(str):
    pass


class _DefaultInt(int):
    pass


class _DefaultFloat(float):
    pass


def _tag_default(value):
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str):
        return _DefaultStr(value)
    if isinstance(value, int):
        return _DefaultInt(value)
    if isinstance(value, float):
        return _DefaultFloat(value)
    return value


def apply_objective_preset(args: argparse.Namespace) -> None:
    """Replace every option the user did not give by the default of ``--objective``."""
    from parasent.training.config import OBJECTIVE_PRESETS

    for key, value in OBJECTIVE_PRESETS[args.objective].items():
        current = getattr(args, key, None)
        if current is None or type(current) in (_DefaultStr, _DefaultInt, _DefaultFloat):
            setattr(args, key, value)
    if getattr(args, "init_model", None) and type(args.vectors) is _DefaultStr:
        args.vectors = None  # the model brings its own vectors
    for key, value in vars(args).items():  # plain values from here on
        for tagged, plain in ((_DefaultStr, str), (_DefaultInt, int), (_DefaultFloat, float)):
            if type(value) is tagged:
                setattr(args, key, plain(value))


def _parse_pairs(values: list[str]) -> list[list[str]]:
    from parasent.data.pools import PAIR_FORMATS

    files = []
    for value in values:
        path, _, fmt = (
            value.rpartition(":") if value.rsplit(":", 1)[-1] in PAIR_FORMATS else (value, "", "tsv")
        )
        files.append([path, fmt])
    return files


def run(args: argparse.Namespace) -> int:
    from parasent.training.config import TrainConfig
    from parasent.training.run import train

    apply_objective_preset(args)
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
        objective=args.objective,
        corpus=args.corpus,
        num_negatives=args.num_negatives,
        init_std=args.init_std,
        lr_schedule=args.lr_schedule,
        unknown=args.unknown,
        init_model=args.init_model,
        min_score=args.min_score,
        synthetic=args.synthetic,
        synthetic_for=args.synthetic_for,
    )
    result = train(config, args.out, data_dir=args.data_dir, resume=args.resume, progress=not args.quiet)
    state = result.state
    best = f"{state.best_score:.2f}" if state.best_score is not None else "n/a"
    print(
        f"done: {state.step} steps; best validation {best} at epoch {state.best_epoch}; model in {result.model_path}"
    )
    return 0
