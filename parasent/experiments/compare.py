"""The architecture comparison: every variant trained on the same pairs with the same budget and
seeds, the best epoch on the validation suite kept (STS 2016; PPDB dev under the ppdb
protocol), then scored on the transfer suite and on any further suites asked for.

Runs are recorded one JSON line each in ``runs.jsonl`` as they finish, so that a comparison
that is stopped continues where it was (finished runs are not repeated; a run cut short
resumes from its checkpoint). A recorded run whose settings differ from the variant's
current ones is trained again (the old run directory is kept as ``seed-N.stale``). The
baseline column, plain averaging of the initial word vectors, needs no training.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from parasent.experiments.variants import Variant
from parasent.training.config import TrainConfig

RUNS_FILE = "runs.jsonl"
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
    config: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, dict[str, Any]] = field(default_factory=dict)  # suite -> report of further suites


def variant_config(base: TrainConfig, variant: Variant, seed: int) -> TrainConfig:
    """``base`` with the variant's encoder, hyperparameters, training options and ``seed``."""
    return replace(
        base,
        encoder=variant.encoder,
        encoder_options={**base.encoder_options, **variant.options},
        seed=seed,
        **variant.overrides,
    )


def read_runs(out_dir: Path) -> list[RunRecord]:
    path = out_dir / RUNS_FILE
    if not path.is_file():
        return []
    return [RunRecord(**json.loads(line)) for line in path.read_text().splitlines() if line.strip()]


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
    selected model is also scored on ``extra_suites`` (e.g. ``ppdb-dev``, ``ppdb-test``)."""
    from parasent.evaluation.evaluator import SimilarityEvaluator
    from parasent.model import load
    from parasent.paths import resolve_data_dir
    from parasent.training.run import train
    from parasent.training.trainer import CHECKPOINT_FILE

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    root = resolve_data_dir(data_dir)
    transfer = SimilarityEvaluator("transfer", root)
    extras = {suite: SimilarityEvaluator(suite, root) for suite in extra_suites}
    baseline = _baseline(base, root, out_dir, transfer, extras)

    done = {(r.variant, r.seed): r for r in read_runs(out_dir)}
    records = []
    total = len(variants) * len(seeds)
    for seed in seeds:
        for variant in variants:
            config = variant_config(base, variant, seed)
            run_dir = out_dir / variant.key / f"seed-{seed}"
            previous = done.get((variant.key, seed))
            if previous is not None and _same_run(previous.config, config):
                records.append(_score_missing(previous, run_dir, extras, out_dir))
                continue
            if previous is not None or (run_dir.exists() and not _resumable(run_dir, config)):
                # the variant's settings changed since that run: keep it aside, train anew
                say(
                    f"    settings of {variant.key} seed {seed} changed: retraining ({run_dir}.stale keeps the old run)"
                )
                stale = run_dir.with_name(run_dir.name + ".stale")
                if stale.exists():
                    shutil.rmtree(stale)
                if run_dir.exists():
                    run_dir.rename(stale)
            say(f"[{len(records) + 1}/{total}] {variant.key} ({variant.encoder}), seed {seed}")
            started = time.perf_counter()
            result = train(
                config,
                run_dir,
                data_dir=root,
                resume=(run_dir / CHECKPOINT_FILE).is_file(),
                progress=progress,
                say=lambda _: None,
            )
            trained = time.perf_counter()
            model = load(run_dir)
            report = transfer(model, name=f"{variant.key} seed {seed}")
            record = RunRecord(
                variant.key,
                seed,
                result.state.best_score,
                result.state.best_epoch,
                trained - started,
                time.perf_counter() - trained,
                report.to_dict(),
                config.to_dict(),
                {
                    suite: ev(model, name=f"{variant.key} seed {seed}").to_dict()
                    for suite, ev in extras.items()
                },
            )
            _append(out_dir, record)
            validation = f"{record.validation:.2f}" if record.validation is not None else "n/a"
            say(
                f"    transfer {report.primary:.2f}, validation {validation} (epoch {record.best_epoch}), "
                f"{record.train_seconds:.0f}s training + {record.eval_seconds:.0f}s evaluation"
            )
            records.append(record)
    return baseline, records


def _append(out_dir: Path, record: RunRecord) -> None:
    with open(out_dir / RUNS_FILE, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record.__dict__) + "\n")


def _score_missing(record: RunRecord, run_dir: Path, extras: dict[str, Any], out_dir: Path) -> RunRecord:
    """A finished run scored on the suites of ``extras`` it lacks (the model is kept; no retraining).
    The updated record is appended: the last line of a run wins in :func:`read_runs`."""
    missing = {suite: ev for suite, ev in extras.items() if suite not in record.extra}
    if not missing:
        return record
    from parasent.model import load

    model = load(run_dir)
    name = f"{record.variant} seed {record.seed}"
    record = replace(
        record, extra={**record.extra, **{s: ev(model, name=name).to_dict() for s, ev in missing.items()}}
    )
    _append(out_dir, record)
    return record


def _same_run(recorded: dict[str, Any], config: TrainConfig) -> bool:
    """Whether a recorded run was trained with ``config`` (up to options that do not change it)."""
    free = {"device", "log_every", "checkpoint_every"}
    mine = config.to_dict()
    return {k: v for k, v in recorded.items() if k not in free} == {
        k: v for k, v in mine.items() if k not in free
    }


def _resumable(run_dir: Path, config: TrainConfig) -> bool:
    """A run directory without a checkpoint, or whose checkpoint has ``config``'s settings."""
    from parasent.training.checkpoint import load_checkpoint
    from parasent.training.trainer import CHECKPOINT_FILE

    path = run_dir / CHECKPOINT_FILE
    if not path.is_file():
        return True
    saved = TrainConfig.from_dict(load_checkpoint(path)["config"])
    return not config.resume_compatible(saved)


def _baseline(
    base: TrainConfig, root: Path, out_dir: Path, transfer: Any, extras: dict[str, Any] | None = None
) -> dict[str, Any] | None:
    """Transfer, validation and ``extras`` reports of plain averaging of ``base.vectors`` (cached)."""
    if base.vectors is None:
        return None
    extras = extras or {}
    path = out_dir / BASELINE_FILE
    if path.is_file():
        cached = json.loads(path.read_text())
        same = (
            cached.get("vectors") == base.vectors
            and cached.get("validation_suite", "validation") == base.validation
        )
        if same and set(extras) <= set(cached.get("extra", {})):
            return cached
    from parasent.data.vectors import read_word_vectors
    from parasent.evaluation.evaluator import SimilarityEvaluator
    from parasent.model import SentenceModel
    from parasent.training.run import resolve_vectors_path

    model = SentenceModel.from_vectors(read_word_vectors(resolve_vectors_path(base.vectors, root)))
    result = {
        "vectors": base.vectors,
        "transfer": transfer(model, name=f"average of {base.vectors}").to_dict(),
        "validation": SimilarityEvaluator(base.validation, root)(model).primary if base.validation else None,
        "validation_suite": base.validation,
        "extra": {suite: evaluator(model).to_dict() for suite, evaluator in extras.items()},
    }
    path.write_text(json.dumps(result, indent=2) + "\n")
    return result
