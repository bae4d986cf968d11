"""The architecture comparison: every variant trained on the same pairs with the same budget and
seeds, the best epoch on the validation suite kept (STS 2016; PPDB dev under the ppdb
protocol), then scored on the transfer suite and on any further suites asked for.

Runs are recorded one JSON line each in ``runs.jsonl`` as they finish, by a
:class:`parasent.support.sweep.Sweep`: a comparison that is stopped continues where it was (finished
runs are not repeated; a run cut short resumes from its checkpoint), and a run whose settings
differ from the variant's current ones is trained again (the old one kept as ``seed-N.stale``). The
baseline column, plain averaging of the initial word vectors, needs no training.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from parasent.experiments.variants import Variant
from parasent.support.regular_files import exists, read_regular_json
from parasent.support.staging import write_run_file
from parasent.support.sweep import RUNS_FILE, Sweep, SweepRun
from parasent.training.config import TrainConfig

BASELINE_FILE = "baseline.json"


@dataclass
class RunRecord:
    variant: str
    seed: int
    validation: float | None  # best validation score (the selected epoch): STS 2016 mean Pearson, ...
    best_epoch: int | None
    train_seconds: float
    eval_seconds: float
    transfer: dict[str, Any]  # EvaluationReport.to_dict()
    config: dict[str, Any] = field(default_factory=dict)  # TrainConfig.to_dict() (sectioned)
    extra: dict[str, dict[str, Any]] = field(default_factory=dict)  # suite -> report of further suites

    @classmethod
    def from_run(cls, run: SweepRun) -> RunRecord:
        variant, _, seed = run.key.rpartition("/seed-")
        return cls(variant, int(seed), config=run.config, **(run.result or {}))


def variant_config(base: TrainConfig, variant: Variant, seed: int) -> TrainConfig:
    """``base`` with the variant's encoder, hyperparameters, training options and ``seed``."""
    return base.replace(
        encoder=variant.encoder,
        encoder_options={**base.encoder.options, **variant.options},
        seed=seed,
        **variant.overrides,
    )


def read_runs(out_dir: Path) -> list[RunRecord]:
    """Every finished run of a comparison directory (its sweep log)."""
    return [RunRecord.from_run(run) for run in Sweep(out_dir).runs.values() if run.ok]


def run_comparison(
    base: TrainConfig,
    variants: list[Variant],
    seeds: list[int],
    out_dir: str | Path,
    *,
    data_dir: str | Path | None = None,
    progress: bool = False,
    say: Callable[[str], None] = print,
    extra_suites: tuple[str, ...] = (),
) -> tuple[dict[str, Any] | None, list[RunRecord]]:
    """Train and evaluate every (variant, seed) not yet in ``runs.jsonl``; returns the baseline
    report (``None`` without initial vectors) and the runs of ``variants`` x ``seeds``. Each
    selected model is also scored on ``extra_suites`` (e.g. ``ppdb-dev``, ``ppdb-test``); a
    finished run that lacks one is scored on it without retraining."""
    from parasent.evaluation.evaluator import SimilarityEvaluator
    from parasent.support.paths import resolve_data_dir

    root = resolve_data_dir(data_dir)
    sweep = Sweep(out_dir, log=RUNS_FILE, say=say)
    transfer = SimilarityEvaluator("transfer", root)
    extras = {suite: SimilarityEvaluator(suite, root) for suite in extra_suites}
    baseline = _baseline(base, root, sweep.out, transfer, extras)
    records = []
    total = len(variants) * len(seeds)
    for seed in seeds:
        for variant in variants:
            config = variant_config(base, variant, seed)
            key = f"{variant.key}/seed-{seed}"
            if sweep.finished(key, config.to_dict()) is None:
                say(f"[{len(records) + 1}/{total}] {variant.key} ({variant.encoder}), seed {seed}")
            name = f"{variant.key} seed {seed}"
            work = _train_and_score(config, root, transfer, extras, name, progress, say)
            record = RunRecord.from_run(sweep.run(key, config.to_dict(), work))
            records.append(_score_missing(record, sweep.directory(key), extras))
    return baseline, records


def _score_missing(record: RunRecord, run_dir: Path, extras: dict[str, Any]) -> RunRecord:
    """A reused run scored on the suites of ``extras`` it lacks (its model is kept: no retraining)."""
    missing = {suite: ev for suite, ev in extras.items() if suite not in record.extra}
    if not missing:
        return record
    from parasent.core.model import load

    model = load(run_dir)
    name = f"{record.variant} seed {record.seed}"
    scored = {suite: ev(model, name=name).to_dict() for suite, ev in missing.items()}
    return replace(record, extra={**record.extra, **scored})


def _train_and_score(
    config: TrainConfig,
    root: Path,
    transfer: Any,
    extras: dict[str, Any],
    name: str,
    progress: bool,
    say: Callable[[str], None],
) -> Callable[[Path], dict[str, Any]]:
    """Train ``config`` into a run directory (resuming its checkpoint), score it on the suite."""

    def work(run_dir: Path) -> dict[str, Any]:
        from parasent.core.model import load
        from parasent.training.run import train
        from parasent.training.trainer import CHECKPOINT_FILE

        started = time.perf_counter()
        resume = (run_dir / CHECKPOINT_FILE).is_file()
        result = train(config, run_dir, data_dir=root, resume=resume, progress=progress, say=lambda _: None)
        trained = time.perf_counter()
        model = load(run_dir)
        report = transfer(model, name=name)
        record = {
            "validation": result.state.best_score,
            "best_epoch": result.state.best_epoch,
            "train_seconds": trained - started,
            "eval_seconds": time.perf_counter() - trained,
            "transfer": report.to_dict(),
            "extra": {suite: ev(model, name=name).to_dict() for suite, ev in extras.items()},
        }
        validation = f"{record['validation']:.2f}" if record["validation"] is not None else "n/a"
        say(
            f"    transfer {report.primary:.2f}, validation {validation} (epoch {record['best_epoch']}), "
            f"{record['train_seconds']:.0f}s training + {record['eval_seconds']:.0f}s evaluation"
        )
        return record

    return work


def _baseline(
    base: TrainConfig, root: Path, out_dir: Path, transfer: Any, extras: dict[str, Any] | None = None
) -> dict[str, Any] | None:
    """Transfer, validation and ``extras`` reports of plain averaging of ``base.encoder.vectors`` (cached)."""
    vectors = base.encoder.vectors
    if vectors is None:
        return None
    extras = extras or {}
    path = out_dir / BASELINE_FILE
    if exists(path):
        cached = _cached_baseline(path)
        same = (
            cached.get("vectors") == vectors
            and cached.get("validation_suite", "validation") == base.validation
        )
        if same and set(extras) <= set(cached.get("extra", {})):
            return cached
    from parasent.core.model import SentenceModel
    from parasent.evaluation.evaluator import SimilarityEvaluator
    from parasent.text.word_vectors import read_word_vectors, resolve_vectors_path

    model = SentenceModel.from_vectors(read_word_vectors(resolve_vectors_path(vectors, root)))
    result = {
        "vectors": vectors,
        "transfer": transfer(model, name=f"average of {vectors}").to_dict(),
        "validation": SimilarityEvaluator(base.validation, root)(model).primary if base.validation else None,
        "validation_suite": base.validation,
        "extra": {suite: evaluator(model).to_dict() for suite, evaluator in extras.items()},
    }
    write_run_file(path, json.dumps(result, indent=2) + "\n")
    return result


def _cached_baseline(path: Path) -> dict[str, Any]:
    """An earlier comparison's ``baseline.json``; one that is not such a record is named, never
    replaced (it may be the user's)."""
    try:
        cached = read_regular_json(path)
    except ValueError:
        cached = None
    if not isinstance(cached, dict):
        raise ValueError(
            f"{path}: not the baseline record of a comparison (JSON with its vectors and scores); "
            "move it away, or choose another --out"
        )
    return cached
