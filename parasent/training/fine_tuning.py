"""What a run that continued a model (``--init-model``) gained and paid, in lines to print.

A user fine-tuning a model on their pairs needs two figures before and after: the one the run
selected on (their held-out pairs, their validation file, or a suite), and STS 2016, the
standard protocol's validation, which says what the model kept of what it knew. A run whose
best epoch is the starting model says so instead of passing it off as a new one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from parasent.core.model_card import NOT_COMPARABLE
from parasent.errors import ParasentError
from parasent.evaluation.evaluator import SimilarityEvaluator
from parasent.evaluation.file_pairs import HELD_OUT
from parasent.training.config import TrainConfig
from parasent.training.trainer import TrainState

STANDARD_VALIDATION = "validation"  # the suite of STS 2016
CEILING = 100.0 - 1e-9  # a figure x100 that no epoch can beat (top-1 of pairs too few to miss)


def gain(before: float, after: float) -> str:
    return f"{before:.2f} -> {after:.2f} ({after - before:+.2f})"


def comparable_mark(config: TrainConfig, figure: str | None = STANDARD_VALIDATION) -> str:
    """What a figure of a standard suite (STS 2016, the transfer suite; ``figure`` the suite it
    is on, None for the user's own) printed for ``config``'s run must say beside it: nothing, or,
    with the leakage guard off, that its training text may hold the suite's sentences."""
    if (
        config.data.leakage_guard != "off"
        or figure is None
        or figure == HELD_OUT
        or figure == config.validation_file
    ):
        return ""
    return f" [{NOT_COMPARABLE}]"


def selection_lines(config: TrainConfig, state: TrainState, written: float | None = None) -> list[str]:
    """The selecting figure at the start and at the best epoch (from the run's history); with
    ``written`` (the figure of the model the blend kept, where it is not the best epoch's), the
    gain is the written model's, the best epoch's figure beside it."""
    start = next((h for h in state.history if h.get("epoch") == 0 and "validation" in h), None)
    if start is None or state.best_score is None:
        return []
    metric, before = next(iter(start["validation"].items()))
    where = config.validation
    if state.best_epoch == 0:
        ceiling = (
            f"; {before:.2f} is the figure's ceiling, which no epoch can beat" if before >= CEILING else ""
        )
        if ceiling and where == HELD_OUT:
            ceiling += ": more pairs to hold out (--held-out) or a file of your own (--validation FILE) let the run choose"
        elif where == HELD_OUT:
            # a small held-out part may not move at all (25 pairs: top-1 the same each epoch)
            ceiling = (
                "; no epoch beat it on the held-out pairs: more of them (--held-out), a file of your own "
                "(--validation FILE) or --validation none (the last epoch) let the run move"
            )
        return [
            f"the initial model scored best on {where} ({metric} {before:.2f}); nothing was changed: "
            f"the model written is {config.encoder.init_model} as it was{ceiling}"
        ]
    mark = comparable_mark(config, where)
    if written is not None:
        return [
            f"{where}: {metric} {gain(before, written)}{mark}, the model written (epoch {state.best_epoch} "
            f"read {state.best_score:.2f}; the blend below pulled it back toward the start)"
        ]
    return [f"{where}: {metric} {gain(before, state.best_score)} at epoch {state.best_epoch}{mark}"]


def standard_figures(
    config: TrainConfig, model_path: Path, data_dir: str | Path | None, best_epoch: int | None
) -> tuple[float, float] | str | None:
    """STS 2016 of the starting model and of the model written, or why it was not measured (the
    data directory lacks it); None where it says nothing new (it selected the run, or the start
    was kept)."""
    if config.validation == STANDARD_VALIDATION or best_epoch in (None, 0):
        return None
    from parasent.core.model import load

    try:
        suite = SimilarityEvaluator(STANDARD_VALIDATION, data_dir)
    except (ParasentError, OSError) as exc:
        return f"STS 2016 not measured ({exc})"
    before: Any = suite(load(config.encoder.init_model)).primary
    return before, suite(load(model_path)).primary


def standard_lines(config: TrainConfig, figures: tuple[float, float] | str | None) -> list[str]:
    """What :func:`standard_figures` found, as the line a run prints."""
    if figures is None or isinstance(figures, str):
        return [figures] if figures else []
    return [f"STS 2016 (what the model kept): {gain(*figures)}{comparable_mark(config)}"]


def finished_lines(
    config: TrainConfig, result: Any, data_dir: str | Path | None
) -> tuple[list[str], tuple[float, float] | str | None]:
    """What a finished run says (``parasent train`` prints it, :func:`parasent.training.fit.fit`
    hands it to ``say``): where its model is and its best epoch, and for a fine-tune the
    selecting figure, the blend and STS 2016 before and after; with those STS 2016 figures
    (a plot marks them). ``result``: the run's :class:`~parasent.training.run.TrainResult`;
    under torchrun only the writer's says anything (the others would read its model mid-save)."""
    if not result.is_writer:
        return [], None
    state = result.state
    best = f"{state.best_score:.2f}" if state.best_score is not None else "n/a"
    mark = comparable_mark(config, config.validation) if state.best_score is not None else ""
    lines = [
        f"done: {state.step} steps; best validation {best}{mark} at epoch {state.best_epoch}; model in {result.model_path}"
    ]
    standard = None
    if config.encoder.init_model:
        measured = result.blend.standard() if result.blend is not None else None
        standard = measured or standard_figures(config, result.model_path, data_dir, state.best_epoch)
        blend = result.blend.lines(str(config.validation)) if result.blend is not None else []
        pulled = result.blend is not None and result.blend.alpha < 1.0
        written = result.blend.point(result.blend.alpha).selecting if pulled else None
        lines += selection_lines(config, state, written) + blend + standard_lines(config, standard)
    return lines, standard
