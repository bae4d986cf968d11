"""The papers' analyses as calls with plain arguments: what ``parasent analyze NAME`` runs.

Each function loads the models it is given (``[LABEL=]DIR`` or ``[LABEL=]vectors:PATH``, see
:mod:`parasent.core.model_spec`) and returns a result with ``format_table()`` and ``to_dict()``.
:data:`ANALYSES` names them; the command line passes its options by the same names.
Training pairs are ``(path, format)`` pairs; ``pool=None`` means "the pool the model was
trained on", ``"none"`` no pool.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from parasent.analysis.common import load_datasets, suite_evaluator
from parasent.core.model_spec import NamedModel, load_model_spec


def _models(specs: Sequence[str], data_dir: Path) -> list[NamedModel]:
    return [load_model_spec(spec, data_dir) for spec in specs]


def _training_counts(
    named: NamedModel | None, pool: str | None, pairs: Sequence[tuple[str, str]], data_dir: Path
) -> Any:
    """Word counts of the training pairs: ``pool``/``pairs``, else those the model was trained on."""
    from parasent.analysis.coverage import training_word_counts
    from parasent.training.config import TrainConfig

    training = TrainConfig.flatten(named.model.metadata.get("training", {})) if named is not None else {}
    if pool is not None:
        files = list(pairs)
        pool = None if pool.lower() == "none" else pool
    else:
        files = list(pairs) or training.get("pair_files", [])
        pool = training.get("pool", "standard")
    return training_word_counts(data_dir, pool, [(p, f) for p, f in files])


def length(*, data_dir: Path, models: Sequence[str], suite: str, low: int, high: int) -> Any:
    """Pearson r by the max tokens of a pair (Wieting et al. 2016, Table 7)."""
    from parasent.analysis.length import performance_by_length

    return performance_by_length(
        _models(models, data_dir), suite_evaluator(suite, data_dir), low=low, high=high
    )


def oov(
    *,
    data_dir: Path,
    model: str,
    suite: str,
    min_count: int,
    reference: str,
    pool: str | None = None,
    pairs: Sequence[tuple[str, str]] = (),
) -> Any:
    """Unknown and under-trained words against the deviation per dataset (Sec. 5.1)."""
    from parasent.analysis.coverage import coverage_analysis

    (named,) = _models([model], data_dir)
    counts = _training_counts(named, pool, pairs, data_dir)
    return coverage_analysis(
        named, suite_evaluator(suite, data_dir), counts, min_count=min_count, reference=reference
    )


def learning_curve(
    *,
    data_dir: Path,
    out: str,
    orders: str,
    smallest: int,
    suite: str,
    epochs: int,
    validation: str,
    vectors: str,
    pool: str,
    pairs: Sequence[tuple[str, str]] = (),
    png: str | None = None,
    quiet: bool = False,
    **training: Any,
) -> Any:
    """Transfer mean against training pairs, ordered and random (Fig. 1); the plot is saved
    (``png``, else ``OUT/learning_curve.png``) and named by the result's ``plot_path``.
    ``training`` holds further training options (batch_size, delta, lambda_w, ...)."""
    from parasent.analysis.learning_curve import ORDERS
    from parasent.analysis.learning_curve import learning_curve as run_curve
    from parasent.training.config import TrainConfig

    chosen = [o.strip() for o in orders.split(",") if o.strip()]
    unknown = [o for o in chosen if o not in ORDERS]
    if unknown:
        raise ValueError(f"unknown order(s) {', '.join(unknown)} (known: {', '.join(ORDERS)})")
    initial = None if vectors.lower() == "none" else vectors
    base = TrainConfig.from_flat(
        vectors=initial,
        pool=None if pool.lower() == "none" else pool,
        pair_files=[list(p) for p in pairs],
        epochs=epochs,
        validation=None if validation.lower() == "none" else validation,
        **training,
    )
    evaluator = suite_evaluator(suite, data_dir)
    curve = run_curve(
        base, out, evaluator, data_dir=data_dir, orders=chosen, smallest=smallest, progress=not quiet
    )
    if initial is not None:
        averaged = load_model_spec(f"vectors:{initial}", data_dir).model
        curve.baselines[f"averaged {Path(initial).name}"] = evaluator(averaged).primary
    curve.plot_path = str(curve.plot(png or Path(out) / "learning_curve.png"))
    return curve


def words(
    *,
    data_dir: Path,
    models: Sequence[str],
    words: str,
    restrict: int,
    k: int,
    norms: int,
    pool: str | None = None,
    pairs: Sequence[tuple[str, str]] = (),
) -> Any:
    """Nearest neighbours and the largest / smallest norms (Table 8)."""
    from parasent.analysis.words import common_words, word_analysis
    from parasent.text.tokenizer import pre_tokenize

    named = _models(models, data_dir)
    trained = next((m for m in named if "training" in m.model.metadata), named[0])
    counts = _training_counts(trained, pool, pairs, data_dir)
    queries = [w for text in words.split(",") for w in pre_tokenize(text)]
    return word_analysis(named, queries, common_words(counts, restrict), k=k, norms=norms)


def norm_weights(
    *,
    data_dir: Path,
    model: str,
    suite: str,
    vectors: str | None = None,
    no_frequency: bool = False,
    pool: str | None = None,
    pairs: Sequence[tuple[str, str]] = (),
) -> Any:
    """Initial vectors scaled by the trained model's L1 norms (Sec. 6)."""
    from parasent.analysis.norm_weights import norm_weight_experiment
    from parasent.text.word_vectors import read_word_vectors, resolve_vectors_path

    (named,) = _models([model], data_dir)
    from parasent.training.config import TrainConfig

    vectors = vectors or TrainConfig.flatten(named.model.metadata.get("training", {})).get("vectors")
    if not vectors:
        raise ValueError(f"{model}: no initial vectors recorded in the model; pass --vectors")
    counts = None if no_frequency else _training_counts(named, pool, pairs, data_dir)
    initial = read_word_vectors(resolve_vectors_path(vectors, data_dir))
    return norm_weight_experiment(named, initial, suite_evaluator(suite, data_dir), counts)


def errors(
    *,
    data_dir: Path,
    models: Sequence[str],
    dataset: str,
    scale: str,
    select: int,
    index: str | None = None,
    pairs_file: str | None = None,
) -> Any:
    """Two or more models' predictions scaled to 0-5 beside the gold score (Jiao et al., Table 6)."""
    from parasent.analysis.pair_errors import (
        ErrorTable,
        contrasting_pairs,
        error_rows,
        parse_pair_refs,
        scale_to_five,
    )
    from parasent.data.readers.sts import read_sts
    from parasent.evaluation.evaluator import SimilarityEvaluator

    named = _models(models, data_dir)
    if len(named) < 2:
        raise ValueError("error analysis compares at least two models")
    if pairs_file:
        name = Path(pairs_file).name
        sets = {name: list(read_sts(pairs_file))}  # 0-5: beside predictions scaled to 0-5
        refs = parse_pair_refs(index, name) if index else [(name, i) for i in range(len(sets[name]))]
    else:
        refs = parse_pair_refs(index, dataset) if index else None
        sets = load_datasets(",".join(dict.fromkeys(n for n, _ in refs)) if refs else dataset, data_dir)
    evaluator = SimilarityEvaluator("errors", datasets=sets)
    predictions = {m.label: evaluator.predictions(m.model) for m in named}
    if refs is None:  # the pairs where each of the first two models is most ahead
        a, b = (scale_to_five(predictions[m.label][dataset], scale) for m in named[:2])
        refs = [(dataset, i) for i in contrasting_pairs(a, b, evaluator.gold(dataset), select)]
    rows = []
    for name, pair in refs:
        cosines = {label: by_set[name] for label, by_set in predictions.items()}
        rows += error_rows(name, sets[name], cosines, [pair], scale)
    return ErrorTable(rows, scale)


def significance(
    *, data_dir: Path, model_a: str, model_b: str, suite: str, scale: str, on: str, alpha: float
) -> Any:
    """The Wilcoxon signed-rank test between two models, per dataset."""
    from parasent.evaluation.significance import significance_report

    a, b = _models([model_a, model_b], data_dir)
    return significance_report(a, b, suite_evaluator(suite, data_dir), scale=scale, on=on, alpha=alpha)


#: ``parasent analyze NAME`` -> the function it calls.
ANALYSES: dict[str, Callable[..., Any]] = {
    "length": length,
    "oov": oov,
    "learning-curve": learning_curve,
    "words": words,
    "norm-weights": norm_weights,
    "errors": errors,
    "significance": significance,
}
