"""``parasent train``: train a model with the margin objective or Siamese CBOW.

Every training option's default lives in :class:`TrainConfig` (and, per objective, in
:data:`OBJECTIVE_PRESETS`); the parser leaves options the user did not type unset, so a
preset can never override what was typed.
"""

from __future__ import annotations

import argparse
from typing import Any

from parasent.commands.common import DEFAULT_RUN, add_data_dir, train_default
from parasent.commands.teacher_options import add_teacher_options, recipe_for


def _option(parser: argparse.ArgumentParser, flag: str, help: str, **kwargs: Any) -> None:
    """A training option: unset unless typed; its help names the default of each objective."""
    from parasent.training.config import OBJECTIVE_PRESETS, RECIPES

    field = flag.lstrip("-").replace("-", "_")
    default = kwargs.pop("shown_default", train_default(field))
    presets = {**OBJECTIVE_PRESETS, **{f"recipe {name}": values for name, values in RECIPES.items()}}
    others = "".join(f"; {name}: {preset[field]}" for name, preset in presets.items() if field in preset)
    parser.add_argument(
        flag, default=argparse.SUPPRESS, help=f"{help} (default: {default}{others})", **kwargs
    )


def register(commands: argparse._SubParsersAction) -> None:
    from parasent.training.config import OBJECTIVES
    from parasent.training.optim import LR_SCHEDULES, OPTIMIZERS

    parser = commands.add_parser(
        "train",
        help="train a model: margin objective (Wieting et al. 2016) or --objective siamese-cbow",
        description="Train a sentence encoder on paraphrase pairs (or running text); the best epoch on "
        "STS 2016 is kept. Options left out take the defaults of the chosen --objective.",
    )
    add_data_dir(parser)
    parser.add_argument(
        "--out",
        default=DEFAULT_RUN,
        help=f"run directory: model/, checkpoint, log.jsonl (default: {DEFAULT_RUN})",
    )
    parser.add_argument("--resume", action="store_true", help="continue the interrupted run in --out")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.add_argument(
        "--lenient",
        action="store_true",
        help="skip (and count) malformed lines in --pairs and --vectors files",
    )
    _option(parser, "--objective", "margin: paraphrase pairs (Wieting et al. 2016); siamese-cbow: running text "
            "(Kenter et al. 2016)", choices=OBJECTIVES)  # fmt: skip
    _option(parser, "--encoder", "word_averaging, projection, dan, rnn, identity_rnn, lstm, cse, charagram, "
            "char_cnn or char_lstm")  # fmt: skip
    parser.add_argument(
        "--encoder-option", action="append", default=argparse.SUPPRESS, metavar="KEY=VALUE",
        help="encoder hyperparameter, VALUE in JSON where not a plain word "
        "(activation=relu, layers=2, output_gate=false, widths=[1,2,3])",
    )  # fmt: skip
    _option(
        parser, "--vectors", "initial word vectors (GloVe/word2vec text); 'none' for random initialisation"
    )
    _option(parser, "--dim", "embedding dimension (required with --vectors none)", type=int)
    _option(
        parser,
        "--init-model",
        "continue this trained model (fine-tuning, cumulative training): its vocabulary and weights, "
        "scored on validation first (implies --vectors none)",
    )
    _option(parser, "--pool", "named training pool (standard, sts2012-train); 'none' to use only --pairs")
    parser.add_argument(
        "--pairs", action="append", default=argparse.SUPPRESS, metavar="FILE[:FORMAT]",
        help="extra paraphrase pairs; FORMAT is tsv (s1<TAB>s2), labelled, ppdb or sts (score<TAB>s1<TAB>s2)",
    )  # fmt: skip
    _option(parser, "--min-score", "scored pairs (--pool sts2012-train, --pairs FILE:sts) count as paraphrases "
            "from this gold score up (unset: the pool's own, 3.8 for sts2012-train)", type=float)  # fmt: skip
    _option(parser, "--synthetic", "add synthetic paraphrase pairs: ppdb (offline lexical substitution), file:PATH "
            "(sentence<TAB>paraphrase lines), python:MODULE:FUNCTION (e.g. a machine-translation round trip)",
            metavar="GENERATOR")  # fmt: skip
    _option(parser, "--synthetic-for", "whose sentences --synthetic paraphrases: 'train' (the training pairs) or a "
            "suite (e.g. validation: TRANSDUCTIVE, the pairs contain that suite's evaluation sentences)")  # fmt: skip
    _option(parser, "--corpus", "siamese-cbow: running text, a named corpus (standard, gutenberg, movie_reviews, "
            "state_union) or PATH[:sentences|wrapped|paragraphs]")  # fmt: skip
    _option(parser, "--max-pairs", "train on a seeded subsample of this many pairs", type=int)
    _option(parser, "--min-count", "training words below this count map to [UNK]", type=int)
    _option(
        parser,
        "--unknown",
        "out-of-vocabulary words: a trained [UNK] vector, or skipped",
        choices=["vector", "skip"],
    )
    _option(parser, "--init-std", "std of randomly initialised word vectors", type=float)
    _option(parser, "--epochs", "passes over the data", type=int)
    _option(parser, "--batch-size", "pairs (or sentences) per step", type=int)
    _option(parser, "--optimizer", "optimizer", choices=list(OPTIMIZERS))
    _option(
        parser, "--lr", "learning rate", type=float, shown_default="0.05 AdaGrad, 0.001 Adam, 1.0 AdaDelta"
    )
    _option(
        parser,
        "--lr-schedule",
        "linear: the rate decreases in proportion to the batches done",
        choices=LR_SCHEDULES,
    )
    _option(parser, "--delta", "margin", type=float)
    _option(parser, "--negatives", "negative selection in the mini-batch", choices=["max", "mix", "rand"])
    _option(parser, "--num-negatives", "siamese-cbow: random negative sentences per example (n)", type=int)
    _option(parser, "--lambda-w", "pull of word vectors to their initial values", type=float)
    _option(parser, "--lambda-c", "L2 on composition parameters", type=float)
    _option(parser, "--clip", "clip the gradient norm to this value", type=float)
    _option(parser, "--seed", "random seed (a CPU run is repeatable)", type=int)
    _option(parser, "--validation", "suite for model selection; 'none' keeps the last epoch")
    _option(parser, "--checkpoint-every", "also checkpoint every N steps", type=int)
    _option(parser, "--log-every", "log the running loss every N steps", type=int)
    _option(parser, "--device", "cpu, cuda, or auto")
    _option(parser, "--dropout", "dropout on embedding vectors while training", type=float)
    _option(
        parser,
        "--composition-prior",
        "what lambda_c pulls composition parameters to (auto: initial for identity_rnn and --init-model)",
        choices=["auto", "zero", "initial"],
    )
    _option(
        parser,
        "--length-buckets",
        "batch pairs of similar length (sorted within chunks of N batches; 0: random batches)",
        type=int,
    )
    _option(parser, "--max-ngrams", "cap on the character n-gram vocabulary (character encoders)", type=int)
    _option(parser, "--prepared", "train on the shards of a `parasent prepare` directory (its pairs and "
            "vocabulary; memory bounded by the shard size)", metavar="DIR")  # fmt: skip
    _option(parser, "--megabatch", "MAX negatives chosen among the sentences of M consecutive mini-batches "
            "(Wieting & Gimpel 2018)", type=int, metavar="M")  # fmt: skip
    _option(parser, "--megabatch-anneal", "grow the mega-batch from 1 by one every N steps up to --megabatch "
            "(0: M from the start)", type=int, metavar="N")  # fmt: skip
    _option(parser, "--negatives-across-ranks", "under torchrun: MAX negatives among the batches of every "
            "process (the global batch)", action="store_true")  # fmt: skip
    add_teacher_options(parser, _option)


def _parse_pairs(values: list[str]) -> list[list[str]]:
    from parasent.data.pools import PAIR_FORMATS

    files = []
    for value in values:
        path, sep, fmt = value.rpartition(":")
        files.append([path, fmt] if sep and fmt in PAIR_FORMATS else [value, "tsv"])
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
    """The objective's preset with every option the user typed on top ('none' means None)."""
    from dataclasses import fields

    from parasent.training.config import TrainConfig

    typed: dict[str, Any] = {}
    for field in fields(TrainConfig):
        if hasattr(args, field.name):
            value = getattr(args, field.name)
            typed[field.name] = None if isinstance(value, str) and value.lower() == "none" else value
    if hasattr(args, "pairs"):
        typed["pair_files"] = _parse_pairs(args.pairs)
    if hasattr(args, "encoder_option"):
        typed["encoder_options"] = parse_encoder_options(args.encoder_option)
    if typed.get("prepared") and "pool" not in typed:
        typed["pool"] = None  # the prepared directory holds the pairs
    if typed.get("init_model") and "vectors" not in typed:
        typed["vectors"] = None  # the model brings its own vectors
    objective = typed.pop("objective", "margin")
    recipe = recipe_for(getattr(args, "recipe", "auto"), objective, typed)
    if typed.get("prepared") and getattr(args, "recipe", "auto") == "auto":
        recipe = "paper"  # the distilled recipe reads the pool and a teacher; prepared pairs are plain
    return TrainConfig.preset(objective, recipe=recipe, **typed)


def run(args: argparse.Namespace) -> int:
    from parasent.training.run import train

    config = config_from_args(args)
    result = train(
        config,
        args.out,
        data_dir=args.data_dir,
        resume=args.resume,
        progress=not args.quiet,
        lenient=args.lenient,
    )
    state = result.state
    best = f"{state.best_score:.2f}" if state.best_score is not None else "n/a"
    print(
        f"done: {state.step} steps; best validation {best} at epoch {state.best_epoch}; model in {result.model_path}"
    )
    return 0
