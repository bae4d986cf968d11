"""``parasent train``: train a model with the margin objective or Siamese CBOW.

Every training option's default and help text lives in :class:`TrainConfig` (and, per
objective and recipe, in :data:`OBJECTIVE_PRESETS` and :data:`RECIPES`); the options are
generated from it (:mod:`parasent.commands.config_options`).
"""

from __future__ import annotations

import argparse

from parasent.commands.common import check_run_dir, use_threads
from parasent.commands.config_options import add_training_options, config_from_args


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "train",
        help="train a model: margin objective (Wieting et al. 2016) or --objective siamese-cbow",
        description="Train a sentence encoder on paraphrase pairs (or running text); the best epoch on "
        "STS 2016 is kept. Options left out take the defaults of the chosen --objective.",
    )
    add_training_options(parser)
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="start over in an --out that holds a run (its model is replaced)",
    )


def run(args: argparse.Namespace) -> int:
    from parasent.support.validation import check_device
    from parasent.training.run import train

    check_run_dir(args.out, "--out", resume=args.resume, overwrite=args.overwrite)
    config = config_from_args(args, say=print)
    check_device(config.device)
    use_threads(args)
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
    from parasent.training.fine_tuning import comparable_mark, selection_lines, standard_lines

    mark = comparable_mark(config, config.validation) if state.best_score is not None else ""
    print(
        f"done: {state.step} steps; best validation {best}{mark} at epoch {state.best_epoch}; model in {result.model_path}"
    )
    if config.encoder.init_model:
        for line in selection_lines(config, state) + standard_lines(
            config, result.model_path, args.data_dir, state.best_epoch
        ):
            print(line)
    return 0
