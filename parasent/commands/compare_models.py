"""``parasent compare-models``: trained models side by side on a suite, with the Wilcoxon test of
Kenter et al.; or, with ``--pairs FILE``, on a user's own pairs with each model's speed (the table
of ``evaluate --pairs FILE --model A --model B``, by the same code: :func:`parasent.commands.common.side_by_side`)."""

from __future__ import annotations

import argparse

from parasent.commands.common import (
    add_data_dir,
    add_json_output,
    add_lenient,
    add_plot,
    check_output_file,
    check_plot,
    report_stream,
    side_by_side,
    write_json,
)
from parasent.support.validation import probability


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "compare-models",
        help="several models side by side on a suite, with a Wilcoxon test against a reference",
        description="Pearson (Spearman) x100 per dataset for each model, as Table 1 of Kenter et al. "
        "(2016): a dagger marks a model whose similarity scores differ from the reference model's on "
        "the same pairs (Wilcoxon signed-rank, p < --alpha). With --pairs FILE: the models on your own "
        "pairs, each model's figures and speed (as evaluate --pairs FILE --model A --model B).",
    )
    add_data_dir(parser, "the evaluation sets the models are compared on")
    parser.add_argument(
        "models",
        nargs="+",
        metavar="[NAME=]MODEL",
        help="a model or run directory, or vectors:FILE for plain averaging of word vectors",
    )
    parser.add_argument("--suite", default="transfer", help="suite or dataset name")
    parser.add_argument(
        "--pairs",
        metavar="FILE[:FORMAT]",
        help="compare on your own pairs instead of a suite (formats as evaluate --pairs: sts, labelled, "
        "tsv; read from the file if not given): each model's figures and sentences per second",
    )
    add_lenient(parser, "--pairs")
    parser.add_argument("--reference", help="NAME of the model the others are tested against")
    parser.add_argument("--alpha", type=probability, default=1e-4, help="significance level (the paper's)")
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")
    add_json_output(parser, "the comparison", outputs="--json or --plot")
    add_plot(parser, "with --pairs, what each model's figures come from (as evaluate --pairs --plot)")


def run(args: argparse.Namespace) -> int:
    check_output_file(args.json, "--json", overwrite=args.overwrite, inputs=[args.pairs])
    _check_pairs_options(args)
    from parasent.core.model_spec import load_model_spec
    from parasent.evaluation.paired import compare_models
    from parasent.support.paths import resolve_data_dir

    data_dir = args.data_dir if args.pairs else resolve_data_dir(args.data_dir)  # --pairs: only vectors:
    models = [
        (named.label, named.model) for named in (load_model_spec(item, data_dir) for item in args.models)
    ]
    if args.pairs:
        return side_by_side(args, models)
    comparison = compare_models(models, args.suite, data_dir, reference=args.reference, alpha=args.alpha)
    print(comparison.format_table(markdown=args.markdown), file=report_stream(args.json))
    if args.json:
        write_json(args.json, comparison.to_dict(), overwrite=args.overwrite)
    return 0


def _check_pairs_options(args: argparse.Namespace) -> None:
    """What applies to a suite only is refused with ``--pairs`` (and ``--plot`` without it)."""
    from parasent.errors import OptionError

    if not args.pairs:
        if args.plot or args.lenient:
            raise OptionError(f"{'--plot' if args.plot else '--lenient'} goes with --pairs FILE")
        return
    given = [
        option for option, value in (("--reference", args.reference), ("--markdown", args.markdown)) if value
    ]
    if given:
        raise OptionError(
            f"{', '.join(given)}: a suite's options; with --pairs the table is evaluate --pairs's"
        )
    check_plot(args, inputs=[args.pairs])
