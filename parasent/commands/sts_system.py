"""``parasent sts-system``: the DCU-SEManiacs STS system (Hokamp & Arora 2016) on STS 2016."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from parasent.commands.common import add_data_dir


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
    add_data_dir(parser)
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
    parser.add_argument("--quiet", action="store_true", help="no progress bars or training output")


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
    from parasent.evaluation.evaluator import SimilarityEvaluator
    from parasent.evaluation.paired import compare_predictions
    from parasent.model import load
    from parasent.paths import resolve_data_dir
    from parasent.sts.system import build_ensemble, finetune_config, sts_training_pairs
    from parasent.training.run import train
    from parasent.validation import check_number

    check_output_dir(args.out, "--out")
    check_number("--epochs", args.epochs, "positive")
    check_number("--threshold", args.threshold, "non-negative")
    check_number("--seed", args.seed, "non-negative")
    thresholds = _thresholds(args.sweep) if args.sweep else []  # a bad range fails before any training
    root = resolve_data_dir(args.data_dir)
    out = Path(args.out)
    say = (lambda _: None) if args.quiet else print
    progress = not args.quiet

    def finetune(name: str, threshold: float, synthetic: str | None = None):
        config = finetune_config(
            args.model, min_score=threshold, epochs=args.epochs, synthetic=synthetic, seed=args.seed
        )
        say(f"== fine-tuning: {name}")
        result = train(config, out / name, data_dir=root, progress=progress, say=say)
        return load(result.model_path)

    evaluator = SimilarityEvaluator("validation", root)
    golds = {spec.name: evaluator.gold(spec.name) for spec in evaluator.specs}
    pairs = {spec.name: [(p.s1, p.s2) for p in evaluator.pairs[spec.name]] for spec in evaluator.specs}

    models = {"raw": load(args.model), "task-internal": finetune("task-internal", args.threshold)}
    transductive = args.synthetic.lower() != "none"
    if transductive:
        models["synthetic"] = finetune("synthetic", args.threshold, args.synthetic)
    predictions = {name: evaluator.predictions(model) for name, model in models.items()}

    training_pairs, leaked = sts_training_pairs(root)
    say(
        f"ensemble training pairs: {len(training_pairs)} STS 2012 train pairs with gold scores "
        f"({leaked} dropped for sharing a sentence with an evaluation set)"
    )
    ensembles = {
        "lexical only": {},
        "ensemble": {"raw": models["raw"], "task-internal": models["task-internal"]},
    }
    if transductive:
        ensembles["fusion"] = dict(models)
    importances = {}
    for name, members in ensembles.items():
        ensemble = build_ensemble(members, root).fit(training_pairs, seed=args.seed)
        ensemble.save(out / "ensembles" / name.replace(" ", "-"))
        predictions[name] = {d: ensemble.predict(pairs[d]) for d in golds}
        importances[name] = ensemble.trees.importances()

    comparison = compare_predictions(predictions, golds, suite="validation")
    print(comparison.format_table(markdown=args.markdown))
    print(
        "columns: raw = the given model; task-internal = fine-tuned on STS 2012 train pairs with gold >= "
        f"{args.threshold:g}; "
        + (
            f"synthetic = the same plus {args.synthetic} paraphrases of the STS 2016 sentences "
            "(TRANSDUCTIVE: trained on evaluation sentences, without their scores); "
            if transductive
            else ""
        )
        + "lexical only / ensemble (raw + task-internal cosines) / "
        + ("fusion (all models' cosines, TRANSDUCTIVE) " if transductive else "")
        + "= gradient boosting on lexical features"
        " (+ cosines), trained on the STS 2012 train pairs' gold scores, predicting 0-5."
    )
    results = {"comparison": comparison.to_dict(), "threshold": args.threshold, "epochs": args.epochs}
    results["importances"] = importances

    if args.sweep:
        sweep = []
        for threshold in thresholds:
            model = finetune(f"sweep/threshold-{threshold:g}", threshold)
            report = evaluator(model)
            sweep.append((threshold, report.primary, report.aggregates.get("sts2016_weighted_mean_pearson")))
        print("\nthreshold sweep (task-internal fine-tuning, STS 2016 Pearson x100):")
        print(
            "| threshold | mean of 5 sets | weighted by pairs |"
            if args.markdown
            else "threshold  mean  weighted"
        )
        if args.markdown:
            print("|---|---|---|")
        for threshold, mean, weighted in sweep:
            line = (
                f"| {threshold:g} | {mean:.2f} | {weighted:.2f} |"
                if args.markdown
                else f"{threshold:9g}  {mean:.2f}  {weighted:.2f}"
            )
            print(line)
        results["sweep"] = [
            {"threshold": t, "mean_pearson": m, "weighted_mean_pearson": w} for t, m, w in sweep
        ]
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    return 0
