"""``parasent sts-system``: the DCU-SEManiacs STS system (Hokamp & Arora 2016) on STS 2016."""

from __future__ import annotations

import argparse
import math

from parasent.commands.common import add_data_dir, add_quiet, add_threads, use_threads


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "sts-system",
        help="fine-tune a model on task-internal STS pairs, add synthetic paraphrases, fit the ensemble",
        description="The DCU-SEManiacs system on STS 2016, trained on the STS 2012 training sets: the raw "
        "model, fine-tuned on pairs with gold score >= --threshold (AdaDelta, delta 0.8, lambda_w 1e-5, "
        "random negatives, batch 100), fine-tuned with synthetic paraphrases of the STS 2016 sentences "
        "(TRANSDUCTIVE), and gradient-boosting ensembles over lexical features and the models' cosines.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add_data_dir(parser, "the STS training and test sets of the system")
    add_threads(parser)
    parser.add_argument("--model", required=True, help="the raw model (e.g. a PARAGRAM-PHRASE run)")
    parser.add_argument(
        "--out", required=True, help="directory for the fine-tuned models, ensembles, results"
    )
    parser.add_argument(
        "--threshold", type=float, default=3.8, help="min gold score of a training paraphrase"
    )
    parser.add_argument("--epochs", type=int, default=10, help="fine-tuning epochs (the last is kept)")
    parser.add_argument(
        "--synthetic",
        default="ppdb",
        metavar="GENERATOR",
        help="paraphrase generator for the STS 2016 sentences (ppdb, file:PATH, python:MODULE:FUNCTION); "
        "'none' skips the synthetic model",
    )
    parser.add_argument(
        "--sweep",
        metavar="LOW:HIGH:STEP",
        help="also fine-tune at every threshold of this range (the paper tuned 3:4.5:0.1) and print "
        "STS 2016 per threshold",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--markdown", action="store_true", help="print markdown tables")
    add_quiet(parser, also=", nor training output")


def _thresholds(spec: str) -> list[float]:
    try:
        low, high, step = (float(x) for x in spec.split(":"))
    except ValueError:
        raise ValueError(f"--sweep expects LOW:HIGH:STEP, got {spec!r}") from None
    if not all(math.isfinite(x) for x in (low, high, step)) or step <= 0 or high < low:
        raise ValueError(f"--sweep {spec!r}: need finite LOW <= HIGH and STEP > 0")
    if (high - low) / step > 1000:
        raise ValueError(f"--sweep {spec!r}: more than 1000 thresholds")
    count = int(round((high - low) / step)) + 1
    return [round(low + i * step, 6) for i in range(count)]


def run(args: argparse.Namespace) -> int:
    from parasent.commands.common import check_output_dir
    from parasent.sts.pipeline import run_system
    from parasent.support.paths import resolve_data_dir
    from parasent.support.validation import check_number

    check_output_dir(args.out, "--out")
    use_threads(args)
    check_number("--epochs", args.epochs, "positive")
    check_number("--threshold", args.threshold, "non-negative")
    check_number("--seed", args.seed, "non-negative")
    results = run_system(
        args.model,
        args.out,
        data_dir=resolve_data_dir(args.data_dir),
        threshold=args.threshold,
        epochs=args.epochs,
        synthetic=None if args.synthetic.lower() == "none" else args.synthetic,
        sweep_thresholds=_thresholds(args.sweep) if args.sweep else (),
        seed=args.seed,
        progress=not args.quiet,
        say=(lambda _: None) if args.quiet else print,
    )
    print(results.format_table(markdown=args.markdown))
    return 0
