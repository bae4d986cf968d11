"""The figures a user looks at: ``--plot FILE.png`` of ``train``, ``head train``, ``evaluate
--pairs`` and ``compare-models --pairs``, and the learning curve of ``parasent analyze``.

A run's printed figures are its start and its chosen epoch; a curve shows whether the choice
stood out of the noise or was one bump among flat epochs, and a precision-recall curve or a
scatter shows what one average precision or Pearson hides (a threshold on a cliff, a band of
pairs the model cannot order). Each figure is drawn on matplotlib's Agg canvas (no display, no
pyplot state shared with a caller's figures) and written whole or not at all, like every output
(:func:`parasent.support.staging.atomic_file`). matplotlib is the ``analysis`` extra's: a plot
asked for without it is one line naming the install (:func:`require_matplotlib`, called before
any work so a long run never ends without its figure).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from parasent.errors import MissingDependencyError
from parasent.evaluation.file_pairs import PairPoints
from parasent.evaluation.metrics import precision_recall_curve
from parasent.support.extras import install_line
from parasent.support.staging import atomic_file

if TYPE_CHECKING:
    from matplotlib.figure import Figure

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
RANK_BINS = ((1, 1), (2, 2), (3, 5), (6, 10), (11, 50), (51, 100), (101, None))  # inclusive


def require_matplotlib() -> None:
    """Fail in one line, naming the extra, when matplotlib is not installed."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise MissingDependencyError(
            f"a plot needs matplotlib, which this install lacks: {install_line('analysis')}"
        ) from None


def new_figure(width: float = 6.4, height: float = 4.2) -> Figure:
    """A figure on its own Agg canvas (nothing registered with pyplot, no display needed)."""
    require_matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=120)
    FigureCanvasAgg(figure)
    return figure


def save_png(figure: Figure, path: str | Path, *, overwrite: bool = True) -> Path:
    """Write ``figure`` as PNG to ``path``, whole or not at all; without ``overwrite`` a file
    already there (even one that appeared while the work ran) is kept."""
    path = Path(path)
    figure.tight_layout()
    with atomic_file(path, "wb", overwrite=overwrite) as handle:
        figure.savefig(handle, format="png")
    return path


def epoch_curves(
    history: Sequence[Mapping[str, Any]],
    path: str | Path,
    *,
    best_epoch: int | None,
    label: str,
    marks: Mapping[str, Sequence[tuple[int, float]]] | None = None,
    overwrite: bool = True,
) -> Path:
    """Per-epoch curves of a run's history (its ``log.jsonl`` epoch records): the selecting
    figure (``label``: what it was measured on) with ``best_epoch`` marked, any ``marks`` (a
    name and its ``(epoch, value)`` points, e.g. STS 2016 at the start and the chosen epoch),
    and the training loss."""
    epochs = [r for r in history if r.get("event", "epoch") == "epoch"]
    scored = [(r["epoch"], *next(iter(r["validation"].items()))) for r in epochs if r.get("validation")]
    losses = [(r["epoch"], r["loss"]) for r in epochs if "loss" in r]
    figure = new_figure(6.4, 6.0 if losses else 4.2)
    axes = figure.add_subplot(2 if losses else 1, 1, 1)
    if scored:
        metric = scored[0][1].replace("_", " ")
        axes.plot(
            [e for e, _, _ in scored],
            [v for _, _, v in scored],
            "o-",
            markersize=4,
            label=f"{label}: {metric}",
        )
        chosen = [v for e, _, v in scored if e == best_epoch]
        if chosen:
            axes.plot([best_epoch], chosen, "r*", markersize=14, label=f"chosen: epoch {best_epoch}")
            axes.axvline(best_epoch, color="red", linestyle=":", linewidth=1)
    for (name, points), style in zip((marks or {}).items(), ("s--", "d--", "^--"), strict=False):
        if points:
            axes.plot(*zip(*points, strict=True), style, markersize=6, label=name)
    axes.set_ylabel("figure x100")
    axes.set_title(f"per epoch: {label}" if scored else "no validation figure was measured")
    axes.grid(True, alpha=0.3)
    if axes.get_legend_handles_labels()[0]:
        axes.legend(fontsize=8)
    if losses:
        loss_axes = figure.add_subplot(2, 1, 2, sharex=axes)
        loss_axes.plot(*zip(*losses, strict=True), "o-", color="grey", markersize=4)
        loss_axes.set_ylabel("training loss")
        loss_axes.grid(True, alpha=0.3)
    started = any(r["epoch"] == 0 for r in epochs)
    figure.axes[-1].set_xlabel("epoch (0: the start)" if started else "epoch")
    _integer_ticks(figure.axes[-1])
    return save_png(figure, path, overwrite=overwrite)


def _integer_ticks(axes: Any) -> None:
    from matplotlib.ticker import MaxNLocator

    axes.xaxis.set_major_locator(MaxNLocator(integer=True))


def pairs_figure(
    points: Sequence[tuple[str, PairPoints]], path: str | Path, *, title: str, overwrite: bool = True
) -> Path:
    """What a model's figures on a user's pairs come from, for each ``(model, points)``:
    labelled pairs' precision-recall curve with the best-F1 threshold marked; scored pairs' gold
    score against cosine; retrieval's ranks of the right answers."""
    kind = points[0][1].kind
    if kind == "labelled":
        figure = _precision_recall(points)
    elif kind == "scored":
        figure = _scatter(points)
    else:
        figure = _ranks(points)
    figure.suptitle(title, fontsize=9)
    return save_png(figure, path, overwrite=overwrite)


def _precision_recall(points: Sequence[tuple[str, PairPoints]]) -> Figure:
    figure = new_figure()
    axes = figure.add_subplot(1, 1, 1)
    for name, pair_points in points:
        curve = precision_recall_curve(pair_points.cosines, pair_points.gold)
        line = axes.step(curve["recall"], curve["precision"], where="post", label=name)[0]
        if pair_points.threshold is not None:
            at = int(np.argmin(np.abs(curve["thresholds"] - pair_points.threshold)))
            axes.plot(
                [curve["recall"][at]],
                [curve["precision"][at]],
                "o",
                color=line.get_color(),
                markersize=8,
                label=f"{name}: best F1 at cosine {pair_points.threshold:.3f}",
            )
    axes.set_xlabel("recall (paraphrases found)")
    axes.set_ylabel("precision (found that are paraphrases)")
    axes.set_xlim(0, 1.02)
    axes.set_ylim(0, 1.02)
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize=7, loc="lower left")
    return figure


def _scatter(points: Sequence[tuple[str, PairPoints]]) -> Figure:
    columns = min(len(points), 3)
    rows = -(-len(points) // columns)
    figure = new_figure(4.0 * columns, 3.6 * rows)
    for k, (name, pair_points) in enumerate(points):
        axes = figure.add_subplot(rows, columns, k + 1)
        axes.scatter(pair_points.gold, pair_points.cosines, s=6, alpha=0.5)
        axes.set_xlabel("gold score")
        axes.set_ylabel("cosine")
        axes.set_title(name, fontsize=8)
        axes.grid(True, alpha=0.3)
    return figure


def _ranks(points: Sequence[tuple[str, PairPoints]]) -> Figure:
    figure = new_figure()
    axes = figure.add_subplot(1, 1, 1)
    ranked = [(name, p.ranks) for name, p in points if p.ranks is not None]
    highest = max((float(ranks.max()) for _, ranks in ranked), default=1.0)
    bins = [(low, high) for low, high in RANK_BINS if low <= max(highest, 6)]  # 1 to 10 at least
    names = [str(low) if low == high else (f"{low}-{high}" if high else f">{low - 1}") for low, high in bins]
    width = 0.8 / max(len(ranked), 1)
    for k, (name, ranks) in enumerate(ranked):
        counts = [int(((ranks >= low - 0.5) & (ranks < (high or np.inf) + 0.5)).sum()) for low, high in bins]
        shares = 100.0 * np.array(counts) / len(ranks)
        axes.bar(np.arange(len(bins)) + k * width, shares, width, label=name)
    axes.set_xticks(np.arange(len(bins)) + width * (len(ranked) - 1) / 2, names)
    axes.set_xlabel("rank of the right second sentence among all")
    axes.set_ylabel("% of first sentences")
    axes.grid(True, axis="y", alpha=0.3)
    if ranked:
        axes.legend(fontsize=8)
    return figure
