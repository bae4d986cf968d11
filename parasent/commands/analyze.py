"""``parasent analyze``: the papers' analyses as tables (Wieting et al. 2016, Sec. 5-6;
Jiao et al. 2018, Sec. 5.3). Models are named as ``[LABEL=]DIR`` or ``[LABEL=]vectors:PATH``."""

from __future__ import annotations

import argparse

from parasent.commands.common import (
    add_data_dir,
    add_json_output,
    add_quiet,
    check_output_dir,
    check_output_file,
    report_stream,
    train_default,
    write_json,
)

MODEL_SPEC = "model or run directory, or vectors:PATH for averaged word vectors; LABEL=SPEC names it"


def _common(parser: argparse.ArgumentParser) -> None:
    add_data_dir(parser, "the training pools and evaluation sets an analysis reads")
    add_json_output(parser, "the result")
    parser.add_argument("--markdown", action="store_true", help="print markdown tables")


def _pool_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--pool", help="training pool whose word counts to use (default: the model's, else standard); 'none'"
    )
    parser.add_argument(
        "--pairs", action="append", default=[], metavar="FILE[:FORMAT]", help="extra training pairs"
    )


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "analyze",
        help="the papers' analyses: length, oov, learning-curve, words, norm-weights, errors, significance",
        description="Analyses of Wieting et al. (2016) and Jiao et al. (2018), printed as tables.",
    )
    analyses = parser.add_subparsers(dest="analysis", required=True, metavar="ANALYSIS")
    fmt = argparse.ArgumentDefaultsHelpFormatter
    for add in (
        _add_length,
        _add_oov,
        _add_learning_curve,
        _add_words,
        _add_norm_weights,
        _add_errors,
        _add_significance,
    ):
        add(analyses, fmt)


def _add_length(analyses: argparse._SubParsersAction, fmt: type) -> None:
    p = analyses.add_parser(
        "length", help="Pearson r by the max tokens of a pair (Wieting Table 7)", formatter_class=fmt
    )
    _common(p)
    p.add_argument("models", nargs="+", metavar="MODEL", help=MODEL_SPEC)
    p.add_argument(
        "--suite", default="sts2012,sts2013,sts2014,sts2015", help="suites/datasets, comma-separated"
    )
    p.add_argument("--low", type=int, default=4, help="first bin: max length <= LOW")
    p.add_argument("--high", type=int, default=10, help="last bin: max length >= HIGH")


def _add_oov(analyses: argparse._SubParsersAction, fmt: type) -> None:
    p = analyses.add_parser(
        "oov",
        help="unknown / under-trained words vs deviation per dataset (Wieting Sec. 5.1)",
        formatter_class=fmt,
    )
    _common(p)
    p.add_argument("model", help=MODEL_SPEC)
    p.add_argument("--suite", default="transfer")
    p.add_argument(
        "--min-count", type=int, default=100, help="a word seen fewer times in training is under-trained"
    )
    p.add_argument(
        "--reference",
        choices=["mean", "p75"],
        default="mean",
        help="deviation from the model's mean, or from the SemEval 75th percentile",
    )
    _pool_options(p)


def _add_learning_curve(analyses: argparse._SubParsersAction, fmt: type) -> None:
    p = analyses.add_parser(
        "learning-curve",
        help="transfer mean vs training pairs, ordered and random (Wieting Fig. 1)",
        formatter_class=fmt,
    )
    _common(p)
    p.add_argument("--out", required=True, help="directory for the models, curve.jsonl and the plot")
    p.add_argument("--png", help="plot path (default: OUT/learning_curve.png)")
    p.add_argument("--orders", default="ordered,random")
    p.add_argument("--smallest", type=int, default=10, help="halve until fewer than this many pairs")
    p.add_argument("--suite", default="transfer", help="what each model is scored on")
    p.add_argument("--epochs", type=int, default=10, help="epochs per model (the paper: 10)")
    p.add_argument(
        "--validation", default="none", help="suite for epoch selection; 'none' keeps the last epoch"
    )
    p.add_argument("--vectors", default=train_default("vectors"), help="initial word vectors")
    p.add_argument("--pool", default=train_default("pool"), help="training pool; 'none' for --pairs only")
    p.add_argument(
        "--pairs", action="append", default=[], metavar="FILE[:FORMAT]", help="pairs, in their order"
    )
    for option in ("batch_size", "delta", "lambda_w", "min_count", "seed"):
        p.add_argument(
            f"--{option.replace('_', '-')}", type=type(train_default(option)), default=train_default(option)
        )
    p.add_argument("--optimizer", default=train_default("optimizer"), choices=["adagrad", "adam", "sgd"])
    p.add_argument("--negatives", default=train_default("negatives"), choices=["max", "mix", "rand"])
    add_quiet(p)


def _add_words(analyses: argparse._SubParsersAction, fmt: type) -> None:
    p = analyses.add_parser(
        "words", help="nearest neighbours and largest/smallest norms (Wieting Table 8)", formatter_class=fmt
    )
    _common(p)
    p.add_argument("models", nargs="+", metavar="MODEL", help=MODEL_SPEC)
    p.add_argument("--words", default="unlike,2,ladies,lookin,disagree", help="comma-separated query words")
    p.add_argument(
        "--restrict", type=int, default=10000, help="search among this many most common training words"
    )
    p.add_argument("-k", type=int, default=7, help="neighbours per word")
    p.add_argument("--norms", type=int, default=10, help="words listed with the largest / smallest norms")
    _pool_options(p)


def _add_norm_weights(analyses: argparse._SubParsersAction, fmt: type) -> None:
    p = analyses.add_parser(
        "norm-weights",
        help="initial vectors scaled by trained L1 norms (Wieting Sec. 6)",
        formatter_class=fmt,
    )
    _common(p)
    p.add_argument("model", help="the trained model (" + MODEL_SPEC + ")")
    p.add_argument("--vectors", help="its initial word vectors (default: those it was trained from)")
    p.add_argument("--suite", default="transfer")
    p.add_argument("--no-frequency", action="store_true", help="skip the inverse-frequency baseline")
    _pool_options(p)


def _add_errors(analyses: argparse._SubParsersAction, fmt: type) -> None:
    p = analyses.add_parser(
        "errors", help="two models' predictions scaled to 0-5 beside gold (Jiao Table 6)", formatter_class=fmt
    )
    _common(p)
    p.add_argument("models", nargs="+", metavar="MODEL", help=MODEL_SPEC + " (two or more)")
    p.add_argument("--dataset", default="sts2014/images", help="dataset the pairs come from")
    p.add_argument(
        "--index",
        help="pairs to show, comma-separated: N (of --dataset) or DATASET#N (1-based, scored pairs)",
    )
    p.add_argument(
        "--select",
        type=int,
        default=4,
        help="without --index or --pairs-file (whose pairs are all shown): N pairs where each of the first "
        "two models is most ahead",
    )
    p.add_argument(
        "--pairs-file",
        help="score<TAB>sentence1<TAB>sentence2 lines (scores 0-5, as the scaled predictions) to show instead of a dataset",
    )
    p.add_argument("--scale", choices=["affine", "minmax"], default="affine")


def _add_significance(analyses: argparse._SubParsersAction, fmt: type) -> None:
    p = analyses.add_parser(
        "significance", help="Wilcoxon signed-rank test between two models per dataset", formatter_class=fmt
    )
    _common(p)
    p.add_argument("model_a", metavar="MODEL_A", help=MODEL_SPEC)
    p.add_argument("model_b", metavar="MODEL_B", help=MODEL_SPEC)
    p.add_argument("--suite", default="transfer", help="suites/datasets, comma-separated")
    p.add_argument("--scale", choices=["fit", "affine"], default="fit", help="cosine-to-gold map for errors")
    p.add_argument(
        "--on",
        choices=["errors", "scores"],
        default="errors",
        help="test per-pair errors, or the scores (Kenter et al.)",
    )
    p.add_argument("--alpha", type=float, default=0.05)


# Numeric options of the analyses, checked before any work (parasent.support.validation rules).
NUMBER_RULES = {
    "low": "positive",
    "high": "positive",
    "min_count": "non-negative",
    "smallest": "positive",
    "epochs": "positive",
    "restrict": "positive",
    "k": "positive",
    "norms": "non-negative",
    "select": "positive",
    "alpha": "probability",
}


def run(args: argparse.Namespace) -> int:
    from parasent.analysis.analyses import ANALYSES
    from parasent.commands.config_options import parse_pairs
    from parasent.support.paths import resolve_data_dir
    from parasent.support.validation import check_numbers

    check_output_file(args.json, "--json", overwrite=args.overwrite)
    check_numbers(args, {k: v for k, v in NUMBER_RULES.items() if hasattr(args, k)}, prefix="--")
    if getattr(args, "out", None) is not None:
        check_output_dir(args.out, "--out")

    options = {
        k: v
        for k, v in vars(args).items()
        if k not in ("command", "analysis", "json", "overwrite", "data_dir", "markdown")
    }
    if "pairs" in options:
        options["pairs"] = [tuple(p) for p in parse_pairs(options["pairs"])]
    result = ANALYSES[args.analysis](data_dir=resolve_data_dir(args.data_dir), **options)
    stream = report_stream(args.json)
    print(result.format_table(markdown=args.markdown), file=stream)
    if getattr(result, "plot_path", None):
        print(f"plot: {result.plot_path}", file=stream)
    if args.json:
        write_json(args.json, result.to_dict(), overwrite=args.overwrite)
    return 0
