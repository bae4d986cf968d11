"""Performance against the amount of training data (Wieting et al. 2016, Sec. 5.2.1, Figure 1).

Starting from the whole pool, the data are halved until fewer than ``smallest`` pairs
remain; a model is trained on each size for a fixed number of epochs (the paper: 10) and
scored on the transfer suite. "Ordered" keeps the pool's order (sources in registry order,
each file as distributed: PPDB's human-rated phrase pairs come first), "random" permutes the
pool once; in both, every larger set is the previous one plus as many new pairs. Each point
is appended to ``curve.jsonl`` as it finishes (:class:`parasent.support.sweep.Sweep`), so an
interrupted curve continues where it stopped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from parasent.data.training_text.pools import TrainingPair, build_pool
from parasent.evaluation.evaluator import SimilarityEvaluator
from parasent.support.staging import atomic_file
from parasent.support.sweep import Sweep
from parasent.support.tables import format_rows
from parasent.training.config import TrainConfig

ORDERS = ("ordered", "random")
CURVE_FILE = "curve.jsonl"


def doubling_sizes(total: int, smallest: int = 10) -> list[int]:
    """``total``, ``total // 2``, ... down to the first size below ``smallest``; ascending."""
    if total < 1:
        raise ValueError("no training pairs")
    sizes = [total]
    while sizes[-1] >= smallest and sizes[-1] > 1:
        sizes.append(sizes[-1] // 2)
    return sorted(set(sizes))


def ordering(pairs: Sequence[TrainingPair], order: str, seed: int) -> list[TrainingPair]:
    if order == "ordered":
        return list(pairs)
    if order == "random":
        return [pairs[i] for i in np.random.default_rng([seed, 13]).permutation(len(pairs))]
    raise ValueError(f"order must be one of {ORDERS}, got {order!r}")


def write_pairs(path: Path, pairs: Sequence[TrainingPair]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(path, "w", encoding="utf-8") as handle:
        for pair in pairs:
            handle.write(f"{pair.s1}\t{pair.s2}\n")


@dataclass
class CurvePoint:
    order: str
    pairs: int
    transfer: float
    validation: float | None


@dataclass
class LearningCurve:
    points: list[CurvePoint]
    metric: str = "transfer mean (21 sets)"  # what ``transfer`` holds: a suite's mean Pearson r x100
    baselines: dict[str, float] = field(default_factory=dict)  # label -> the same metric
    plot_path: str | None = None  # where plot() last saved the figure

    def format_table(self, markdown: bool = False) -> str:
        sizes = sorted({p.pairs for p in self.points})
        orders = [o for o in ORDERS if any(p.order == o for p in self.points)]
        value = {(p.order, p.pairs): p.transfer for p in self.points}
        rows = [[size, *(value.get((o, size)) for o in orders)] for size in sizes]
        footer = [f"baseline {label}: {score:.2f}" for label, score in self.baselines.items()]
        return format_rows(
            ["training pairs", *orders],
            rows,
            title=f"{self.metric}, Pearson r x100, by training pairs",
            footer=footer,
            markdown=markdown,
        )

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "points": [vars(p) for p in self.points], "baselines": self.baselines}

    def plot(self, path: str | Path) -> Path:
        """Save Figure 1 of the paper as PNG: transfer mean against pairs (log scale)."""
        from parasent.analysis.plots import new_figure, save_png

        figure = new_figure()
        axes = figure.add_subplot(1, 1, 1)
        for order, style in zip(ORDERS, ("o-", "s--"), strict=True):
            points = sorted((p.pairs, p.transfer) for p in self.points if p.order == order)
            if points:
                axes.plot(*zip(*points, strict=True), style, label=order.capitalize(), markersize=4)
        for (label, score), colour in zip(self.baselines.items(), ("grey", "black", "brown"), strict=False):
            axes.axhline(score, linestyle=":", color=colour, label=label)
        axes.set_xscale("log", base=2)
        axes.set_xlabel("training pairs (log scale)")
        axes.set_ylabel(f"{self.metric}, Pearson r x100")
        axes.set_title("Performance vs. amount of training data")
        axes.grid(True, alpha=0.3)
        axes.legend(loc="upper left", fontsize=8)
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        return save_png(figure, path)


def learning_curve(
    base: TrainConfig,
    out_dir: str | Path,
    evaluator: SimilarityEvaluator,
    *,
    data_dir: str | Path,
    orders: Sequence[str] = ORDERS,
    smallest: int = 10,
    progress: bool = True,
    say: Callable[[str], None] = print,
) -> LearningCurve:
    """Train one model per (order, size) with ``base``'s options on nested subsets of its
    pool (and pair files), score each on ``evaluator``; finished points are reused."""
    sweep = Sweep(out_dir, log=CURVE_FILE, say=say)
    pairs, report = build_pool(data_dir, base.data.pool, files=[(p, f) for p, f in base.data.pair_files])
    say(report.summary())
    sizes = doubling_sizes(len(pairs), smallest)
    bar = tqdm(
        total=len(orders) * len(sizes),
        desc="learning curve",
        unit="model",
        disable=None if progress else True,
    )
    points = []
    for order in orders:
        sequence = ordering(pairs, order, base.seed)
        for size in sizes:
            config = {"base": base.flat(), "order": order, "pairs": size, "data_dir": str(data_dir)}
            work = _point(base, sequence[:size], order, evaluator, data_dir, progress)
            points.append(CurvePoint(**sweep.run(f"{order}-{size}", config, work).result))
            bar.update(1)
    bar.close()
    return LearningCurve(points, f"{evaluator.suite} mean ({len(evaluator.pairs)} sets)")


def _point(
    base: TrainConfig,
    subset: Sequence[TrainingPair],
    order: str,
    evaluator: SimilarityEvaluator,
    data_dir: str | Path,
    progress: bool,
) -> Callable[[Path], dict[str, Any]]:
    """Train on ``subset`` (written into the run directory) and score the model: a curve point."""

    def work(run: Path) -> dict[str, Any]:
        from parasent.core.model import load
        from parasent.training.run import train

        write_pairs(run / "pairs.tsv", subset)
        config = base.replace(pool=None, pair_files=[[str(run / "pairs.tsv"), "tsv"]], max_pairs=None)
        result = train(config, run, data_dir=data_dir, progress=False, say=lambda _: None)
        score = evaluator(load(run)).primary
        if progress:
            tqdm.write(f"{order:>8} {len(subset):>7} pairs: transfer {score:.2f}")
        return vars(CurvePoint(order, len(subset), score, result.state.best_score))

    return work
