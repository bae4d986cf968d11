"""``parasent compare-models``: trained models side by side on a suite, with the Wilcoxon test of Kenter et al."""

from __future__ import annotations

import argparse

from parasent.commands.common import (
    add_data_dir,
    add_json_output,
    check_output_file,
    report_stream,
    write_json,
)
from parasent.support.validation import probability


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "compare-models",
        help="several models side by side on a suite, with a Wilcoxon test against a reference",
        description="Pearson (Spearman) x100 per dataset for each model, as Table 1 of Kenter et al. "
        "(2016): a dagger marks a model whose similarity scores differ from the reference model's on "
        "the same pairs (Wilcoxon signed-rank, p < --alpha).",
    )
    add_data_dir(parser, "the evaluation sets the models are compared on")
    parser.add_argument(
        "models",
        nargs="+",
        metavar="[NAME=]MODEL",
        help="a model or run directory, or vectors:FILE for plain averaging of word vectors",
    )
    parser.add_argument("--suite", default="transfer", help="suite or dataset name")
    parser.add_argument("--reference", help="NAME of the model the others are tested against")
    parser.add_argument("--alpha", type=probability, default=1e-4, help="significance level (the paper's)")
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")
    add_json_output(parser, "the comparison")


def run(args: argparse.Namespace) -> int:
    check_output_file(args.json, "--json", overwrite=args.overwrite)
    from parasent.core.model_spec import load_model_spec
    from parasent.evaluation.paired import compare_models
    from parasent.support.paths import resolve_data_dir

    data_dir = resolve_data_dir(args.data_dir)
    models = [
        (named.label, named.model) for named in (load_model_spec(item, data_dir) for item in args.models)
    ]
    comparison = compare_models(models, args.suite, data_dir, reference=args.reference, alpha=args.alpha)
    print(comparison.format_table(markdown=args.markdown), file=report_stream(args.json))
    if args.json:
        write_json(args.json, comparison.to_dict(), overwrite=args.overwrite)
    return 0
