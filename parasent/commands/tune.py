"""``parasent tune``: grid search over training hyperparameters, selected by validation (STS 2016,
or the PPDB dev half with ``--protocol ppdb``)."""

from __future__ import annotations

import argparse

from parasent.commands.config_options import add_training_options, config_from_args


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "tune",
        help="grid search over the paper's hyperparameters, selecting by STS 2016 (or --protocol ppdb: PPDB dev)",
        description=(
            "Train one run per grid point (every training option of 'parasent train' sets the base); "
            "each trial's config and best validation score go to OUT/trials.jsonl, the winner to OUT/best.json. "
            "Without --grid, the paper's grid for the encoder (Wieting et al. 2016, Sec. 4.2.1). "
            "--protocol ppdb selects on the PPDB dev half, as the paper tunes."
        ),
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add_training_options(parser)
    parser.set_defaults(out="runs/tune")
    parser.add_argument(
        "--grid",
        action="append",
        default=[],
        metavar="KEY=V1,V2",
        help="values of a training option (delta=0.4,0.6) or encoder_options.NAME; replaces the paper's grid",
    )
    parser.add_argument(
        "--trials", type=int, help="a seeded random sample of this many grid points (default: all)"
    )
    parser.add_argument("--trial-seed", type=int, default=0, help="seed of the trial sample")


def parse_grid(values: list[str]) -> dict[str, list]:
    import json

    grid: dict[str, list] = {}
    for value in values:
        key, sep, raw = value.partition("=")
        if not sep or not key or not raw:
            raise ValueError(f"--grid {value!r}: expected KEY=V1,V2,...")
        items = []
        for item in raw.split(","):
            try:
                items.append(json.loads(item))
            except json.JSONDecodeError:
                items.append(item)
        grid[key.replace("-", "_")] = items
    return grid


def run(args: argparse.Namespace) -> int:
    from parasent.commands.common import check_output_dir, use_threads
    from parasent.experiments.search import format_trials, grid_search, paper_grid
    from parasent.support.validation import check_number

    check_output_dir(args.out, "--out")
    check_number("--trials", args.trials, "positive", optional=True)
    use_threads(args)

    if getattr(args, "recipe", "auto") == "auto":
        args.recipe = "paper"  # the paper's grids are for the paper's recipe (GloVe-4k start)
    base = config_from_args(args)
    grid = parse_grid(args.grid) if args.grid else paper_grid(base.encoder.name)
    results = grid_search(
        base,
        grid,
        args.out,
        data_dir=args.data_dir,
        trials=args.trials,
        seed=args.trial_seed,
        progress=not args.quiet,
    )
    print(format_trials(results))
    best = results[0]
    if best.validation is None:
        print("every trial failed")
        return 2
    print(f"best: trial {best.index}, validation {best.validation:.2f}, model in {best.model}")
    return 0
