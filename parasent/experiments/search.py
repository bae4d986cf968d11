"""Grid search over the paper's training hyperparameters, selecting by the validation suite only
(STS 2016; under the ppdb protocol the PPDB dev half, as Wieting et al. 2016 tune).

Wieting et al. (2016, Sec. 4.2.1 and footnote 9) tune delta, lambda_w, lambda_c, the batch
size, MIX or MAX negatives, the optimizer and its learning rate, plus per-encoder choices
(the RNN's and DAN's activation, DAN's depth, the LSTM's output gate). Here every trial is a
full training run (each epoch validated on STS 2016, the best epoch kept); trials are the
whole grid or a seeded random sample of it; every trial's configuration and best
validation score is appended to ``trials.jsonl`` as it finishes (:class:`parasent.support.sweep.Sweep`),
so a search that is stopped continues where it was. The transfer suite is never looked at.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parasent.experiments.encoder_settings import settings_of
from parasent.support.staging import write_run_file
from parasent.support.sweep import Sweep, SweepRun
from parasent.support.tables import markdown_table
from parasent.training.config import TrainConfig

TRIALS_FILE = "trials.jsonl"
#: Column headers of the selection score, by validation suite.
VALIDATION_LABELS = {"validation": "STS 2016 (validation)", "ppdb-dev": "PPDB dev (Spearman)"}
BEST_FILE = "best.json"
OPTION_PREFIX = "encoder_options."

#: Wieting et al. (2016), footnote 9 and Sec. 4.2.1: lambda_w "as well as the setting in
#: which we do not update W_w" (freeze_words; not for word averaging, footnote 16), and
#: "whether to clip the gradients with threshold 1".
PAPER_GRID: dict[str, list[Any]] = {
    "delta": [0.4, 0.6, 0.8],
    "lambda_w": [1e-5, 1e-6, 1e-7, 1e-8],
    "freeze_words": [False, True],
    "clip": [None, 1.0],
    "lambda_c": [1e-3, 1e-4, 1e-5, 1e-6],
    "batch_size": [25, 50, 100],
    "negatives": ["mix", "max"],
    "optimizer": ["adagrad", "adam"],
    "lr": [0.05, 0.005, 0.0005],
}


def paper_grid(encoder: str) -> dict[str, list[Any]]:
    """The paper's grid for ``encoder``, with the additions and replacements its settings
    declare (:attr:`parasent.experiments.encoder_settings.EncoderSettings.grid`; an empty list
    drops a key that does not apply)."""
    grid = dict(PAPER_GRID)
    grid.update(settings_of(encoder).grid)
    return {key: values for key, values in grid.items() if values}


def apply_values(base: TrainConfig, values: dict[str, Any]) -> TrainConfig:
    """``base`` with ``values`` set; ``encoder_options.KEY`` sets an encoder hyperparameter."""
    options = dict(base.encoder.options)
    fields: dict[str, Any] = {}
    for key, value in values.items():
        if key.startswith(OPTION_PREFIX):
            options[key[len(OPTION_PREFIX) :]] = value
        elif key in base.flat():
            fields[key] = value
        else:
            raise ValueError(f"unknown grid key {key!r} (a training option or encoder_options.NAME)")
    if settings_of(base.encoder.name).shared_lambda and "lambda_c" in fields:
        fields["lambda_w"] = fields["lambda_c"]
    return base.replace(encoder_options=options, **fields)


def grid_points(grid: dict[str, list[Any]], trials: int | None, seed: int) -> list[dict[str, Any]]:
    """Every combination in a fixed order, or a seeded sample of ``trials`` of them."""
    keys = list(grid)
    points = [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*(grid[k] for k in keys))]
    if "lambda_w" in grid:  # with frozen word vectors lambda_w does nothing: one of its values
        points = [p for p in points if not p.get("freeze_words") or p["lambda_w"] == grid["lambda_w"][0]]
    if trials is not None and trials < len(points):
        points = random.Random(seed).sample(points, trials)
    return points


@dataclass
class Trial:
    index: int
    values: dict[str, Any]
    validation: float | None
    best_epoch: int | None
    seconds: float
    model: str
    config: dict[str, Any]
    error: str | None = None  # a trial that failed (e.g. a diverging learning rate) scores nothing

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_run(cls, index: int, values: dict[str, Any], run: SweepRun) -> Trial:
        result = run.result or {}
        return cls(
            index,
            values,
            result.get("validation"),
            result.get("best_epoch"),
            run.seconds,
            result.get("model", ""),
            run.config,
            run.error,
        )


def grid_search(
    base: TrainConfig,
    grid: dict[str, list[Any]],
    out_dir: str | Path,
    *,
    data_dir: str | Path | None = None,
    trials: int | None = None,
    seed: int = 0,
    progress: bool = False,
    say: Callable[[str], None] = print,
) -> list[Trial]:
    """Run (or continue) the search; returns every trial, best validation first.

    Trial ``i`` trains into ``out_dir/trial-i``, logged in ``out_dir/trials.jsonl`` by a
    :class:`~parasent.support.sweep.Sweep` (finished trials are reused, one cut short resumes from its
    checkpoint); ``out_dir/best.json`` names the winner.
    """
    from parasent.errors import ParasentError

    if base.validation is None:
        raise ValueError("a grid search selects by validation: set a validation suite")
    sweep = Sweep(out_dir, log=TRIALS_FILE, say=say)
    points = grid_points(grid, trials, seed)
    results = []
    for index, values in enumerate(points):
        config = apply_values(base, values)
        key = f"trial-{index:03d}"
        if sweep.finished(key, config.to_dict()) is None:
            # numbered as the table and its folder (trial-000 first), with how far the search is
            say(f"trial {index} ({index + 1} of {len(points)}, {key}): {json.dumps(values)}")
        run = sweep.run(
            key, config.to_dict(), _trainer(config, values, data_dir, progress), failures=(ParasentError,)
        )
        trial = Trial.from_run(index, values, run)
        if trial.error is not None:
            say(f"  failed: {trial.error}")
        else:
            say(f"  validation {trial.validation:.2f} (epoch {trial.best_epoch}), {trial.seconds:.0f}s")
        results.append(trial)
    results.sort(key=lambda t: -(t.validation if t.validation is not None else float("-inf")))
    if results:
        write_run_file(sweep.out / BEST_FILE, json.dumps(results[0].to_dict(), indent=2) + "\n")
    return results


def _trainer(
    config: TrainConfig, values: dict[str, Any], data_dir: str | Path | None, progress: bool
) -> Callable[[Path], dict[str, Any]]:
    """Train ``config`` into a run directory (resuming its checkpoint); the trial's result."""

    def work(run_dir: Path) -> dict[str, Any]:
        from parasent.training.run import train
        from parasent.training.trainer import CHECKPOINT_FILE

        resume = (run_dir / CHECKPOINT_FILE).is_file()
        result = train(
            config, run_dir, data_dir=data_dir, resume=resume, progress=progress, say=lambda _: None
        )
        state = result.state
        model = str(result.model_path)
        return {
            "values": values,
            "validation": state.best_score,
            "best_epoch": state.best_epoch,
            "model": model,
        }

    return work


def format_trials(results: list[Trial]) -> str:
    """A Markdown table of trials, best validation first."""
    if not results:
        return "(no trials)"
    keys = list(dict.fromkeys(k for t in results for k in t.values))
    suites = {t.config.get("validation") for t in results}
    target = VALIDATION_LABELS.get(suites.pop(), "validation") if len(suites) == 1 else "validation"
    head = ["rank", "trial", *keys, target, "best epoch", "seconds"]
    rows = []
    for rank, t in enumerate(results, 1):
        cells = [str(rank), str(t.index), *(json.dumps(t.values.get(k)) for k in keys)]
        score = f"{t.validation:.2f}" if t.validation is not None else f"failed: {t.error}"
        cells += [score, str(t.best_epoch), f"{t.seconds:.0f}"]
        rows.append(cells)
    return markdown_table(head, rows)
