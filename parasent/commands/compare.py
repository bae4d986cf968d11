"""``parasent compare``: train every encoder of the papers on the same pairs, budget and seeds,
and write the comparison table (Wieting et al. 2016, Table 2 layout)."""

from __future__ import annotations

import argparse
from pathlib import Path

from parasent.commands.common import add_data_dir, add_quiet, add_threads, train_default

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
    add_data_dir(parser, "the training pools and evaluation sets of the compared runs")
    add_threads(parser)
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
    add_quiet(parser)
    parser.add_argument(
        "--protocol",
        choices=["standard", "ppdb"],
        default="standard",
        help="ppdb: no Pavlick pair (nor any pair sharing a phrase with the PPDB test half) is trained on, "
        "and the best epoch is kept on the PPDB dev half",
    )
    parser.add_argument("--validation", help="selection suite (default: the protocol's)")
    parser.add_argument(
        "--also-evaluate", nargs="+", default=[], metavar="SUITE", help="score each run on these suites too"
    )
    parser.add_argument(
        "--ppdb-table",
        action="store_true",
        help="Table 3 of Wieting et al. (2016): every variant under the ppdb protocol, selected once on PPDB "
        "dev and once on STS 2016 (OUT/ppdb-selection, OUT/sts-selection), scored on PPDB dev/test and "
        "transfer; writes OUT/table3.md",
    )


def run(args: argparse.Namespace) -> int:
    import time

    from parasent.commands.common import check_output_dir, use_threads
    from parasent.experiments.compare import run_comparison
    from parasent.experiments.tables import comparison_table

    use_threads(args)
    from parasent.experiments.variants import select_variants
    from parasent.support.validation import check_number
    from parasent.training.config import TrainConfig

    check_output_dir(args.out, "--out")
    _check_comparison_dir(Path(args.out), ppdb=args.ppdb_table)
    for name in ("seeds", "epochs", "max_pairs"):
        check_number(f"--{name.replace('_', '-')}", getattr(args, name), "positive", optional=True)
    started = time.perf_counter()
    preset = PRESETS[args.preset]
    epochs = args.epochs if args.epochs is not None else preset["epochs"]
    max_pairs = args.max_pairs if args.max_pairs is not None else preset["max_pairs"]
    seeds = list(range(1, (args.seeds if args.seeds is not None else preset["seeds"]) + 1))
    variants = select_variants(args.variants)
    base = TrainConfig.preset(
        epochs=epochs, max_pairs=max_pairs, pool=args.pool, vectors=args.vectors, protocol=args.protocol
    )
    if args.validation:
        base = base.replace(validation=None if args.validation == "none" else args.validation)
    if args.ppdb_table:
        return _ppdb_table(args, base, variants, seeds, started)
    print(
        f"comparing {len(variants)} encoder(s) x {len(seeds)} seed(s): {epochs} epoch(s), "
        f"pool {args.pool}{f' (subsample {max_pairs})' if max_pairs else ''}, vectors {args.vectors}"
    )
    baseline, records = run_comparison(
        base,
        variants,
        seeds,
        args.out,
        data_dir=args.data_dir,
        progress=not args.quiet,
        extra_suites=tuple(args.also_evaluate),
    )
    table = comparison_table(variants, records, baseline)
    elapsed = time.perf_counter() - started
    footer = (
        f"\n\nBudget: {epochs} epoch(s) on the {args.pool} pool"
        f"{f' (seeded subsample of {max_pairs} pairs)' if max_pairs else ''}, initial vectors {args.vectors}, "
        f"each run keeping its best epoch on {base.validation}"
        f"{' (protocol ppdb: no Pavlick pair trained on)' if args.protocol == 'ppdb' else ''}. "
        f"This invocation took {elapsed:.0f}s."
    )
    from parasent.support.staging import write_run_file

    path = Path(args.out) / "table.md"
    write_run_file(path, table + footer + "\n")
    print(table + footer)
    print(f"table written to {path}; total time {elapsed:.0f}s")
    return 0


def _check_comparison_dir(out: Path, *, ppdb: bool) -> None:
    """compare writes its runs, ``runs.jsonl`` and its table into ``--out``, and continues an
    earlier comparison there (one stopped in its first run has no ``runs.jsonl`` yet, only its
    baseline and run folders); a directory holding anything else is the user's: refused before
    any work (a ``table.md`` of theirs would be replaced)."""
    from parasent.errors import OptionError
    from parasent.experiments.compare import BASELINE_FILE
    from parasent.experiments.table3 import ARMS
    from parasent.experiments.variants import all_variants
    from parasent.support.runlock import LOCK_FILE
    from parasent.support.sweep import RUNS_FILE

    if not out.is_dir() or (out / RUNS_FILE).is_file():
        return
    own = {LOCK_FILE, BASELINE_FILE, *(variant.key for variant in all_variants())}
    own |= {*ARMS, "table3.md"} if ppdb else set()
    held = sorted(entry.name for entry in out.iterdir() if entry.name not in own)
    if held:
        shown = ", ".join(held[:4]) + (", ..." if len(held) > 4 else "")
        raise OptionError(
            f"--out {out}: holds {shown} and no earlier comparison ({RUNS_FILE}); compare writes its "
            "runs and table there: choose a new or empty directory"
        )


def _ppdb_table(args: argparse.Namespace, base, variants: list, seeds: list[int], started: float) -> int:
    """Both arms of Table 3 (same pool, two selection suites) and OUT/table3.md."""
    import time

    from parasent.experiments.compare import run_comparison
    from parasent.experiments.table3 import ARMS, PPDB_SUITES, ppdb_table

    base = base.replace(protocol="ppdb")
    arms = {}
    for arm, validation in ARMS.items():
        print(f"== {arm}: protocol ppdb pool, best epoch on {validation}")
        arms[arm] = run_comparison(
            base.replace(validation=validation),
            variants,
            seeds,
            Path(args.out) / arm,
            data_dir=args.data_dir,
            progress=not args.quiet,
            extra_suites=PPDB_SUITES,
        )
    elapsed = time.perf_counter() - started
    max_pairs = base.data.max_pairs
    footer = (
        f"\n\nPPDB columns: Spearman rho x 100 on the seeded halves of the Pavlick et al. (2015) pairs; STS "
        f"transfer: mean Pearson r x 100 over the 21 transfer sets; medians over seed(s) {seeds}. Budget: "
        f"{base.epochs} epoch(s) on the {base.data.pool} pool under the ppdb protocol"
        f"{f' (seeded subsample of {max_pairs} pairs)' if max_pairs else ''}, initial vectors "
        f"{base.encoder.vectors}. This invocation took {elapsed:.0f}s."
    )
    table = ppdb_table(variants, arms) + footer
    from parasent.support.staging import write_run_file

    path = Path(args.out) / "table3.md"
    write_run_file(path, table + "\n")
    print(table)
    print(f"table written to {path}")
    return 0
