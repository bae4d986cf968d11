"""The last stage of a contextual fine-tune: the trained composition pulled back toward its start,
as far as the run's own figure and STS 2016 say.

A contextual model fine-tuned on a user's pairs learns their domain at the cost of what it knew
(docs/which-model.md, the PAWS lever table). The teacher's weight during training sets that
trade once, for every domain alike; interpolating the trained composition with the start's
afterwards (WiSE-FT, Wortsman et al. 2022: theta = (1 - alpha) theta_0 + alpha theta_1,
:func:`parasent.core.composition.interpolated`) sets it per run, at the cost of scoring a few
models: the run scores the points ``alpha`` of :data:`GRID` on its selecting figure (held-out
pairs, by default) and on STS 2016, the standard protocol's validation, and keeps the point with
the best selecting figure whose STS 2016 stays within ``--blend-within`` points of the start's
(alpha 0, the start, always does). Neither figure is a test set.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parasent.core.composition import interpolated
from parasent.core.encoder_registry import composes_rows
from parasent.core.model import SentenceModel, load
from parasent.errors import ParasentError
from parasent.evaluation.evaluator import SimilarityEvaluator
from parasent.training.config import TrainConfig
from parasent.training.fine_tuning import STANDARD_VALIDATION

GRID = tuple(k / 10 for k in range(11))  # alpha 0 (the start) ... 1 (the trained model)
BLEND_KEY = "blend"  # the model metadata's record of the choice


@dataclass(frozen=True)
class BlendPoint:
    """One model on the line: its selecting figure, and its STS 2016 (None: not measured)."""

    alpha: float
    selecting: float
    general: float | None


@dataclass(frozen=True)
class Blend:
    """The points scored and the one kept (``alpha``)."""

    alpha: float
    within: float
    start_general: float | None
    points: tuple[BlendPoint, ...]

    def point(self, alpha: float) -> BlendPoint:
        return next(p for p in self.points if p.alpha == alpha)

    def record(self) -> dict[str, Any]:
        """What the model's metadata keeps of the choice (``BLEND_KEY``)."""
        return {
            "alpha": self.alpha,
            "within": self.within,
            "sts2016_start": self.start_general,
            "points": [[p.alpha, p.selecting, p.general] for p in self.points],
        }

    def lines(self, where: str) -> list[str]:
        """What the run prints of the choice (``where``: what the selecting figure is on)."""
        kept, trained = self.point(self.alpha), self.point(1.0)
        if self.alpha == 0.0:
            return [
                f"blend: the start kept (no point toward the trained composition scored higher on {where} "
                f"with STS 2016 within {self.within:g} of the start's); --blend-within none keeps the trained one"
            ]
        line = (
            f"blend: {self.alpha:.1f} of the way from the start to the trained composition "
            f"({where} {trained.selecting:.2f} -> {kept.selecting:.2f}"
        )
        if kept.general is not None and trained.general is not None and self.start_general is not None:
            line += (
                f"; STS 2016 {trained.general:.2f} -> {kept.general:.2f}, the start's {self.start_general:.2f}, "
                f"kept within {self.within:g}"
            )
        return [line + "; --blend-within none keeps the trained one)"]


def blended(start: SentenceModel, trained: SentenceModel, alpha: float) -> SentenceModel:
    """``trained`` with its composition ``alpha`` of the way from ``start``'s (an averaging start
    has none: :func:`interpolated`); the rows are ``trained``'s."""
    begin = start.weights if composes_rows(start.encoder_config["name"]) else None
    weights = {**trained.weights, **interpolated(begin, trained.weights, alpha)}
    return type(trained)(trained.tokenizer, trained.encoder_config, weights, metadata=dict(trained.metadata))


def choose(points: tuple[BlendPoint, ...], start_general: float | None, within: float) -> BlendPoint:
    """The best selecting figure among the points within ``within`` of the start's STS 2016
    (any point where that is not measured); on a tie the one nearer the start."""
    floor = None if start_general is None else start_general - within
    admissible = [p for p in points if floor is None or p.general is None or p.general >= floor]
    return max(admissible, key=lambda p: (p.selecting, -p.alpha))


def blend(
    start: SentenceModel,
    trained: SentenceModel,
    select: Callable[[Any], float],
    general: Callable[[Any], float] | None,
    within: float,
    grid: tuple[float, ...] = GRID,
) -> Blend:
    """Score ``grid``'s points between ``start`` and ``trained`` and choose one (:func:`choose`)."""
    start_general = general(start) if general is not None else None
    points = []
    for alpha in grid:
        model = blended(start, trained, alpha)
        points.append(BlendPoint(alpha, select(model), general(model) if general is not None else None))
    chosen = choose(tuple(points), start_general, within)
    return Blend(chosen.alpha, within, start_general, tuple(points))


def blend_run(
    config: TrainConfig,
    model_path: Path,
    select: Callable[[Any], Any] | None,
    data_dir: str | Path | None,
    best_epoch: int | None,
    say: Callable[[str], None] = print,
) -> Blend | None:
    """Blend a finished contextual fine-tune's model in place (the choice in its metadata), or
    None where the run does not blend: no ``--blend-within``, no selecting figure, not a
    fine-tune of rows composed by a trained composition, the start kept, or the model blended
    already (a resumed run that found no better epoch)."""
    if config.blend_within is None or select is None or not config.encoder.init_model or not best_epoch:
        return None
    trained = load(model_path)
    if not composes_rows(trained.encoder_config["name"]) or BLEND_KEY in trained.metadata:
        return None
    if not config.encoder.freeze_words:
        say("blend: not tried, the rows were trained too (--freeze-words blends the composition alone)")
        return None
    general = None
    if config.validation != STANDARD_VALIDATION:  # STS 2016 selecting is its own guard
        try:
            suite = SimilarityEvaluator(STANDARD_VALIDATION, data_dir)
        except (ParasentError, OSError) as exc:
            say(f"blend: not tried, STS 2016 is needed to keep the start's quality ({exc})")
            return None
        general = lambda model: suite(model).primary  # noqa: E731
    start = load(config.encoder.init_model)
    result = blend(start, trained, lambda model: select(model).primary, general, config.blend_within)
    model = blended(start, trained, result.alpha)
    model.metadata[BLEND_KEY] = result.record()
    model.save(model_path)
    for line in result.lines(str(config.validation)):
        say(line)
    return result
