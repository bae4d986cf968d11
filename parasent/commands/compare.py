"""``parasent compare``: train every encoder of the papers on the same pairs, budget and seeds,
and write the comparison table (Wieting et al. 2016, Table 2 layout)."""

from __future__ import annotations

import argparse

from parasent.commands.common import add_data_dir, train_default

#: Budgets. ``full`` is the documented comparison (README); ``ci`` the reduced setting the
#: test suite runs on the shared data.
PRESETS = {
    "full": {"epochs": 3, "max_pairs": None, "seeds": 5},
    "ci": {"epochs": 1, "max_pairs": 1000, "seeds": 1},
}


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "compare",
        help="train every encoder with the same budget and seeds; write the Table 2 comparison",
        description=(
            "Each encoder variant is trained on the same pool with the same epochs and seeds "
            "(best epoch on STS 2016 kept) and scored on the transfer suite; OUT/table.md gets the "
            "table (median over seeds), OUT/runs.jsonl every run. Finished runs are not repeated."
        ),
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add_data_dir(parser)
    parser.add_argument("--out", default="runs/compare", help="directory for runs, runs.jsonl and table.md")
    parser.add_argument("--preset", choices=list(PRESETS), default="full", help="budget: " + str(PRESETS))
    parser.add_argument(
        "--variants", nargs="+", help="variant keys (default: all; see docs/paper-encoders-comparison.md)"
    )
    parser.add_argument("--seeds", type=int, help="number of seeds (1..N); default from --preset")
    parser.add_argument("--epochs", type=int, help="default from --preset")
    parser.add_argument("--max-pairs", type=int, help="seeded subsample of the pool; default from --preset")
    parser.add_argument("--pool", default=train_default("pool"))
    parser.add_argument("--vectors", default=train_default("vectors"), help="initial word vectors")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")


def run(args: argparse.Namespace) -> int:
    import time
    from pathlib import Path

    from parasent.experiments.compare import run_comparison
    from parasent.experiments.tables import comparison_table
    from parasent.experiments.variants import select_variants
    from parasent.training.config import TrainConfig

    started = time.perf_counter()
    preset = PRESETS[args.preset]
    epochs = args.epochs or preset["epochs"]
    max_pairs = args.max_pairs if args.max_pairs is not None else preset["max_pairs"]
    seeds = list(range(1, (args.seeds or preset["seeds"]) + 1))
    variants = select_variants(args.variants)
    base = TrainConfig.from_flat(
        epochs=epochs,
        max_pairs=max_pairs,
        pool=args.pool,
        vectors=args.vectors,
    )
    print(
        f"comparing {len(variants)} encoder(s) x {len(seeds)} seed(s): {epochs} epoch(s), "
        f"pool {args.pool}{f' (subsample {max_pairs})' if max_pairs else ''}, vectors {args.vectors}"
    )
    baseline, records = run_comparison(
        base, variants, seeds, args.out, data_dir=args.data_dir, progress=not args.quiet
    )
    table = comparison_table(variants, records, baseline)
    elapsed = time.perf_counter() - started
    footer = (
        f"\n\nBudget: {epochs} epoch(s) on the {args.pool} pool"
        f"{f' (seeded subsample of {max_pairs} pairs)' if max_pairs else ''}, initial vectors {args.vectors}, "
        f"each run keeping its best epoch on STS 2016. This invocation took {elapsed:.0f}s."
    )
    path = Path(args.out) / "table.md"
    path.write_text(table + footer + "\n")
    print(table + footer)
    print(f"table written to {path}; total time {elapsed:.0f}s")
    return 0
