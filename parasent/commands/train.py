"""``parasent train``: train a model with the margin objective or Siamese CBOW.

Every training option's default and help text lives in :class:`TrainConfig` (and, per
objective and recipe, in :data:`OBJECTIVE_PRESETS` and :data:`RECIPES`); the options are
generated from it (:mod:`parasent.commands.config_options`).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from parasent.commands.common import (
    RUN_OVERWRITE,
    add_overwrite,
    add_plot,
    check_plot,
    check_run_dir,
    use_threads,
)
from parasent.commands.config_options import add_training_options, config_from_args, typed_options


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "train",
        help="train a model: margin objective (Wieting et al. 2016) or --objective siamese-cbow",
        description="Train a sentence encoder on paraphrase pairs (or running text); the best epoch on "
        "STS 2016 is kept. Options left out take the defaults of the chosen --objective.",
    )
    add_training_options(parser)
    add_overwrite(parser, RUN_OVERWRITE)
    add_plot(
        parser,
        "the run's curves: the figure that chooses the epoch (held-out pairs, STS 2016, ...) per epoch with "
        "the chosen one marked, STS 2016 at the start and the end of a fine-tune, and the training loss",
    )


def run(args: argparse.Namespace) -> int:
    from parasent.support.validation import check_device
    from parasent.training.run import train

    check_run_dir(
        args.out,
        "--out",
        resume=args.resume,
        overwrite=args.overwrite,
        start=getattr(args, "init_model", None),
    )
    from parasent.training.distributed import voice

    config = resumed_config(args) or config_from_args(args, say=voice(print))
    check_plot(args, inputs=[path for path, _ in config.data.pair_files] + [config.validation_file])
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
    from parasent.training.fine_tuning import finished_lines

    state = result.state
    lines, standard = finished_lines(config, result, args.data_dir)
    for line in lines:
        print(line)
    if args.plot and result.is_writer:  # one process draws it
        _plot(args, config, state, standard)
    return 0


def resumed_config(args: argparse.Namespace) -> Any:
    """With ``--resume``: the run's own options, read from its checkpoint, with the options
    typed on top (those of ``RESUMABLE_CHANGES``, ``--epochs`` among them, may change; any other
    change is refused by name, as the checkpoint's check finds it). None without ``--resume``."""
    from parasent.training.checkpoint import resumed_options
    from parasent.training.trainer import CHECKPOINT_FILE

    if not args.resume:
        return None
    path = Path(args.out) / CHECKPOINT_FILE
    typed = typed_options(args)
    resumed = resumed_options(path, typed)  # refused before saying it resumes
    own = [name for name in typed if hasattr(args, name)]  # not what typed_options implied from them
    named = sorted(resumed.FLAGS.get(name, "--" + name.replace("_", "-")) for name in own)
    print(f"resuming with the run's own options ({path}){' and ' + ', '.join(named) if named else ''}")
    return resumed


def _plot(
    args: argparse.Namespace, config: Any, state: Any, standard: tuple[float, float] | str | None
) -> None:
    """``--plot``: the run's per-epoch curves, STS 2016 before and after a fine-tune beside them."""
    from parasent.analysis.plots import epoch_curves
    from parasent.training.fine_tuning import STANDARD_VALIDATION

    label = "STS 2016" if config.validation == STANDARD_VALIDATION else str(config.validation)
    marks = {}
    if isinstance(standard, tuple):
        marks["STS 2016: start and chosen model"] = [(0, standard[0]), (state.best_epoch, standard[1])]
    epoch_curves(
        state.history,
        args.plot,
        best_epoch=state.best_epoch,
        label=label,
        marks=marks,
        overwrite=args.overwrite,
    )
    print(f"plot: {args.plot}")
