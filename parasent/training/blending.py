"""The last stage of a contextual fine-tune: the trained composition pulled back toward its start,
as far as the run's own figure and STS 2016 say.

A contextual model fine-tuned on a user's pairs learns their domain at the cost of what it knew
(docs/which-model.md, the PAWS lever table). The teacher's weight during training sets that
trade once, for every domain alike; interpolating the trained composition with the start's
afterwards (WiSE-FT, Wortsman et al. 2022: theta = (1 - alpha) theta_0 + alpha theta_1,
:func:`parasent.core.composition.interpolated`) sets it per run, at the cost of scoring a few
models: the run scores the points ``alpha`` of :data:`GRID` on its selecting figure (held-out
pairs, by default) and on STS 2016, the standard protocol's validation, and keeps the point with
the best selecting figure whose STS 2016 is not below the start's by more than ``--blend-within``
standard errors of their difference on the same pairs (alpha 0, the start, always qualifies).
A fixed allowance in points does not do: what a drop means depends on how far the two models'
cosines differ, which the paired error measures (the notion of ``--selection clears-noise``).
Neither figure is a test set.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from parasent.core.composition import interpolated
from parasent.core.encoder_registry import composes_rows
from parasent.core.model import SentenceModel, load
from parasent.core.model_card import BLEND_KEY
from parasent.errors import ParasentError
from parasent.evaluation.evaluator import SimilarityEvaluator
from parasent.evaluation.file_pairs import bootstrap
from parasent.evaluation.metrics import pearson
from parasent.training.config import TrainConfig
from parasent.training.fine_tuning import STANDARD_VALIDATION

GRID = tuple(k / 10 for k in range(11))  # alpha 0 (the start) ... 1 (the trained model)


@dataclass(frozen=True)
class BlendPoint:
    """One model on the line: its selecting figure, its STS 2016 and the standard error of that
    figure's difference from the start's (None: not measured)."""

    alpha: float
    selecting: float
    general: float | None = None
    error: float | None = None


@dataclass(frozen=True)
class Blend:
    """The points scored and the one kept (``alpha``)."""

    alpha: float
    within: float
    start_general: float | None
    points: tuple[BlendPoint, ...]

    def point(self, alpha: float) -> BlendPoint:
        return next(p for p in self.points if p.alpha == alpha)

    def standard(self) -> tuple[float, float] | None:
        """STS 2016 of the start and of the model kept, as measured here (None: not measured),
        so that the run's report does not encode both again."""
        kept = self.point(self.alpha).general
        return None if kept is None or self.start_general is None else (self.start_general, kept)

    def record(self) -> dict[str, Any]:
        """What the model's metadata keeps of the choice (``BLEND_KEY``)."""
        return {
            "alpha": self.alpha,
            "within_standard_errors": self.within,
            "sts2016_start": self.start_general,
            "points": [[p.alpha, p.selecting, p.general, p.error] for p in self.points],
        }

    @classmethod
    def from_record(cls, record: Any) -> Blend | None:
        """The choice a model's metadata kept (:meth:`record`); None where it cannot be read."""
        try:
            points = tuple(BlendPoint(*point) for point in record["points"])
            blend = cls(record["alpha"], record["within_standard_errors"], record["sts2016_start"], points)
            blend.point(blend.alpha), blend.point(1.0)  # the points its lines read were scored
        except (KeyError, TypeError, ValueError, StopIteration):
            return None
        return blend

    def lines(self, where: str) -> list[str]:
        """What the run prints of the choice (``where``: what the selecting figure is on)."""
        kept, trained = self.point(self.alpha), self.point(1.0)
        if self.alpha == 0.0:
            return [
                f"blend: the start kept (no point toward the trained composition scored higher on {where} "
                f"with STS 2016 within {self.within:g} standard error(s) of the start's; a run with "
                "--blend-within none keeps the trained one)"
            ]
        line = (
            f"blend: {self.alpha:.1f} of the way from the start to the trained composition "
            f"({where} {trained.selecting:.2f} -> {kept.selecting:.2f}"
        )
        if kept.general is not None and trained.general is not None and self.start_general is not None:
            line += (
                f"; STS 2016 {trained.general:.2f} -> {kept.general:.2f}, the start's {self.start_general:.2f}, "
                f"kept within {self.within:g} standard error(s) of their difference"
            )
        return [line + "; a run with --blend-within none keeps the trained one)"]


class StandardCheck:
    """STS 2016 as the validation suite scores it (the mean of its sets' Pearson), from a model's
    cosines, and the standard error of two models' difference: the bootstrap over each set's
    pairs with the same draws for both (:func:`parasent.evaluation.file_pairs.bootstrap`), the
    sets' errors combined as those of a mean of independent terms."""

    def __init__(self, suite: SimilarityEvaluator) -> None:
        self.suite = suite
        self.golds = {spec.name: suite.gold(spec.name) for spec in suite.specs}

    def cosines(self, model: Any) -> dict[str, np.ndarray]:
        """Each STS 2016 set's cosines, by set: what :meth:`figure` and :meth:`paired_error` read."""
        return self.suite.predictions(model)

    def figure(self, cosines: dict[str, np.ndarray]) -> float:
        """The suite's primary figure (the mean of its sets' Pearson x100) from ``cosines``."""
        return float(np.mean([pearson(cosines[name], gold) for name, gold in self.golds.items()]))

    def paired_error(self, cosines: dict[str, np.ndarray], start: dict[str, np.ndarray]) -> float | None:
        """The standard error of ``figure(cosines) - figure(start)`` (None: a set too small to say)."""
        errors = [
            bootstrap(gold, _difference(cosines[name], start[name])) for name, gold in self.golds.items()
        ]
        if any(error is None for error in errors):
            return None
        return float(np.sqrt(np.sum(np.square(errors))) / len(errors))


def _difference(mine: np.ndarray, theirs: np.ndarray) -> Callable[[np.ndarray, np.ndarray], float]:
    """One resample's Pearson of ``mine`` less that of ``theirs`` (the same pairs drawn)."""
    return lambda sample, gold: pearson(mine[sample], gold) - pearson(theirs[sample], gold)


def blended(start: SentenceModel, trained: SentenceModel, alpha: float) -> SentenceModel:
    """``trained`` with its composition ``alpha`` of the way from ``start``'s (an averaging start
    has none: :func:`interpolated`); the rows are ``trained``'s."""
    begin = start.weights if composes_rows(start.encoder_config["name"]) else None
    weights = {**trained.weights, **interpolated(begin, trained.weights, alpha)}
    return type(trained)(trained.tokenizer, trained.encoder_config, weights, metadata=dict(trained.metadata))


def choose(points: tuple[BlendPoint, ...], start_general: float | None, within: float) -> BlendPoint:
    """The best selecting figure among the points whose STS 2016 is not below the start's by
    more than ``within`` standard errors of the difference (any point where STS 2016 is not
    measured; an unknown error allows no drop); the start (alpha 0) always qualifies; on a tie
    the one nearer the start."""

    def admissible(point: BlendPoint) -> bool:
        if point.alpha == 0.0 or start_general is None or point.general is None:
            return True
        return start_general - point.general <= within * (point.error or 0.0)

    return max(filter(admissible, points), key=lambda p: (p.selecting, -p.alpha))


def blend(
    start: SentenceModel,
    trained: SentenceModel,
    select: Callable[[Any], float],
    check: StandardCheck | None,
    within: float,
) -> Blend:
    """Score :data:`GRID`'s points between ``start`` and ``trained`` and choose one
    (:func:`choose`). STS 2016 differences are taken from the line's own alpha 0, the start as
    the line computes it (float rounding apart from ``start`` itself)."""
    points: list[BlendPoint] = []
    base: dict[str, np.ndarray] | None = None
    for alpha in GRID:  # alpha 0 first
        model = blended(start, trained, alpha)
        point = BlendPoint(alpha, select(model))
        if check is not None:
            cosines = check.cosines(model)
            base = cosines if base is None else base
            point = BlendPoint(
                alpha, point.selecting, check.figure(cosines), check.paired_error(cosines, base)
            )
        points.append(point)
    chosen = choose(tuple(points), points[0].general, within)
    return Blend(chosen.alpha, within, points[0].general, tuple(points))


def blend_run(
    config: TrainConfig,
    model_path: Path,
    select: Callable[[Any], Any] | None,
    data_dir: str | Path | None,
    best_epoch: int | None,
    say: Callable[[str], None] = print,
) -> Blend | None:
    """Blend a finished contextual fine-tune's model in place (the choice in its metadata; its
    lines, :meth:`Blend.lines`, are the caller's to print), or None where the run does not
    blend: no ``--blend-within``, no selecting figure, not a fine-tune of rows composed by a
    trained composition, the start kept, or the model blended already (a resumed run that found
    no better epoch: the choice it made then, read from the model)."""
    if config.blend_within is None or not config.encoder.init_model or not best_epoch:
        return None
    if select is None:
        say("blend: not tried, the run has no validation figure to choose by (--validation none)")
        return None
    trained = load(model_path)
    if not composes_rows(trained.encoder_config["name"]):
        return None
    if BLEND_KEY in trained.metadata:  # blended already: a resumed run that trained no better epoch
        return Blend.from_record(trained.metadata[BLEND_KEY])
    if not config.encoder.freeze_words:
        say("blend: not tried, the rows were trained too (--freeze-words blends the composition alone)")
        return None
    check = None
    if config.validation != STANDARD_VALIDATION:  # STS 2016 selecting is its own guard
        try:
            check = StandardCheck(SimilarityEvaluator(STANDARD_VALIDATION, data_dir))
        except (ParasentError, OSError) as exc:
            say(f"blend: not tried, STS 2016 is needed to keep the start's quality ({exc})")
            return None
    start = load(config.encoder.init_model)
    result = blend(start, trained, lambda model: select(model).primary, check, config.blend_within)
    model = blended(start, trained, result.alpha)
    model.metadata[BLEND_KEY] = result.record()
    model.metadata["validation"] = result.point(result.alpha).selecting  # the model written's figure
    model.save(model_path)
    return result
