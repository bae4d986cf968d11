"""``parasent analyze``: the papers' analyses as tables (Wieting et al. 2016, Sec. 5-6;
Jiao et al. 2018, Sec. 5.3). Models are named as ``[LABEL=]DIR`` or ``[LABEL=]vectors:PATH``."""

from __future__ import annotations

import argparse
from pathlib import Path

from parasent.commands.common import (
    add_data_dir,
    check_output_dir,
    check_output_file,
    train_default,
    write_json,
)

MODEL_SPEC = "model or run directory, or vectors:PATH for averaged word vectors; LABEL=SPEC names it"


def _common(parser: argparse.ArgumentParser) -> None:
    add_data_dir(parser)
    parser.add_argument("--json", help="also write the result as JSON to this path")


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
    p.add_argument("--quiet", action="store_true")

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
        help="without --index: N pairs where each of the first two models is most ahead",
    )
    p.add_argument(
        "--pairs-file", help="score<TAB>sentence1<TAB>sentence2 lines to show instead of a dataset"
    )
    p.add_argument("--scale", choices=["affine", "minmax"], default="affine")

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


def _models(specs: list[str], data_dir: Path):
    from parasent.model_spec import load_model_spec

    return [load_model_spec(spec, data_dir) for spec in specs]


def _training_counts(args: argparse.Namespace, named, data_dir: Path):
    """Word counts of the training pairs: --pool/--pairs, else the pool the model was trained on."""
    from parasent.analysis.coverage import training_word_counts
    from parasent.commands.train import _parse_pairs

    training = named.model.metadata.get("training", {}) if named is not None else {}
    if args.pool is not None:
        pool = None if args.pool.lower() == "none" else args.pool
        files = _parse_pairs(args.pairs)
    else:
        pool = training.get("pool", "standard")
        files = _parse_pairs(args.pairs) or training.get("pair_files", [])
    return training_word_counts(data_dir, pool, [(p, f) for p, f in files])


# Numeric options of the analyses, checked before any work (parasent.validation rules).
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
    from parasent.validation import check_numbers

    check_output_file(args.json, "--json")
    check_numbers(args, {k: v for k, v in NUMBER_RULES.items() if hasattr(args, k)}, prefix="--")
    if getattr(args, "out", None) is not None:
        check_output_dir(args.out, "--out")
    from parasent.paths import resolve_data_dir

    data_dir = resolve_data_dir(args.data_dir)
    result = globals()[f"_{args.analysis.replace('-', '_')}"](args, data_dir)
    print(result.format_table())
    if args.json:
        write_json(args.json, result.to_dict())
    return 0


def _length(args, data_dir):
    from parasent.analysis.common import suite_evaluator
    from parasent.analysis.length import performance_by_length

    return performance_by_length(
        _models(args.models, data_dir), suite_evaluator(args.suite, data_dir), low=args.low, high=args.high
    )


def _oov(args, data_dir):
    from parasent.analysis.common import suite_evaluator
    from parasent.analysis.coverage import coverage_analysis

    (named,) = _models([args.model], data_dir)
    counts = _training_counts(args, named, data_dir)
    return coverage_analysis(
        named,
        suite_evaluator(args.suite, data_dir),
        counts,
        min_count=args.min_count,
        reference=args.reference,
    )


def _learning_curve(args, data_dir):
    from parasent.analysis.common import suite_evaluator
    from parasent.analysis.learning_curve import ORDERS, learning_curve
    from parasent.commands.train import _parse_pairs
    from parasent.model_spec import load_model_spec
    from parasent.training.config import TrainConfig

    orders = [o.strip() for o in args.orders.split(",") if o.strip()]
    unknown = [o for o in orders if o not in ORDERS]
    if unknown:
        raise ValueError(f"unknown order(s) {', '.join(unknown)} (known: {', '.join(ORDERS)})")
    vectors = None if args.vectors.lower() == "none" else args.vectors
    base = TrainConfig(
        vectors=vectors,
        pool=None if args.pool.lower() == "none" else args.pool,
        pair_files=_parse_pairs(args.pairs),
        epochs=args.epochs,
        validation=None if args.validation.lower() == "none" else args.validation,
        batch_size=args.batch_size,
        delta=args.delta,
        lambda_w=args.lambda_w,
        min_count=args.min_count,
        seed=args.seed,
        optimizer=args.optimizer,
        negatives=args.negatives,
    )
    evaluator = suite_evaluator(args.suite, data_dir)
    curve = learning_curve(
        base,
        args.out,
        evaluator,
        data_dir=data_dir,
        orders=orders,
        smallest=args.smallest,
        progress=not args.quiet,
    )
    if vectors is not None:
        curve.baselines[f"averaged {Path(vectors).name}"] = evaluator(
            load_model_spec(f"vectors:{vectors}", data_dir).model
        ).primary
    png = curve.plot(args.png or Path(args.out) / "learning_curve.png")
    print(f"plot: {png}")
    return curve


def _words(args, data_dir):
    from parasent.analysis.words import common_words, word_analysis
    from parasent.text.tokenizer import pre_tokenize

    models = _models(args.models, data_dir)
    trained = next((m for m in models if "training" in m.model.metadata), models[0])
    counts = _training_counts(args, trained, data_dir)
    words = [w for text in args.words.split(",") for w in pre_tokenize(text)]
    return word_analysis(models, words, common_words(counts, args.restrict), k=args.k, norms=args.norms)


def _norm_weights(args, data_dir):
    from parasent.analysis.common import suite_evaluator
    from parasent.analysis.norm_weights import norm_weight_experiment
    from parasent.data.vectors import read_word_vectors
    from parasent.training.run import resolve_vectors_path

    (named,) = _models([args.model], data_dir)
    vectors = args.vectors or named.model.metadata.get("training", {}).get("vectors")
    if not vectors:
        raise ValueError(f"{args.model}: no initial vectors recorded in the model; pass --vectors")
    counts = None if args.no_frequency else _training_counts(args, named, data_dir)
    initial = read_word_vectors(resolve_vectors_path(vectors, data_dir))
    return norm_weight_experiment(named, initial, suite_evaluator(args.suite, data_dir), counts)


def _errors(args, data_dir):
    from parasent.analysis.errors import (
        ErrorTable,
        contrasting_pairs,
        error_rows,
        parse_pair_refs,
        scale_to_five,
    )
    from parasent.data.sts import read_sts
    from parasent.evaluation.evaluator import SimilarityEvaluator

    models = _models(args.models, data_dir)
    if len(models) < 2:
        raise ValueError("error analysis compares at least two models")
    if args.pairs_file:
        name = Path(args.pairs_file).name
        sets = {name: list(read_sts(args.pairs_file))}
        refs = (
            parse_pair_refs(args.index, name) if args.index else [(name, i) for i in range(len(sets[name]))]
        )
    else:
        from parasent.analysis.common import load_datasets

        refs = parse_pair_refs(args.index, args.dataset) if args.index else None
        names = list(dict.fromkeys(n for n, _ in refs)) if refs else [args.dataset]
        sets = load_datasets(",".join(names), data_dir)
    evaluator = SimilarityEvaluator("errors", datasets=sets)
    predictions = {m.label: evaluator.predictions(m.model) for m in models}
    if refs is None:  # the pairs where each of the first two models is most ahead
        name = args.dataset
        a, b = (scale_to_five(predictions[m.label][name], args.scale) for m in models[:2])
        refs = [(name, i) for i in contrasting_pairs(a, b, evaluator.gold(name), args.select)]
    rows = []
    for name, index in refs:
        cosines = {label: by_set[name] for label, by_set in predictions.items()}
        rows += error_rows(name, sets[name], cosines, [index], args.scale)
    return ErrorTable(rows, args.scale)


def _significance(args, data_dir):
    from parasent.analysis.common import suite_evaluator
    from parasent.evaluation.significance import significance_report

    a, b = _models([args.model_a, args.model_b], data_dir)
    return significance_report(
        a, b, suite_evaluator(args.suite, data_dir), scale=args.scale, on=args.on, alpha=args.alpha
    )
