"""Several models side by side on a suite, with a paired significance test against a reference.

Kenter et al. (2016), Sec. 3.3 and Table 1: per evaluation set, the similarity scores two
runs give *the same sentence pairs* are compared with the Wilcoxon signed-rank test, and a
run is marked (dagger) as significantly different from the reference run when p < 0.0001.
The test is on the paired scores themselves (cosines), as in the paper: it says that the
two models score the pairs differently, not that one correlates better with gold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from parasent.evaluation.evaluator import Encodes, SimilarityEvaluator
from parasent.evaluation.metrics import pearson, spearman
from parasent.evaluation.significance import wilcoxon

PAPER_ALPHA = 1e-4
DAGGER = "\u2020"


@dataclass(frozen=True)
class ScoreTest:
    """The Wilcoxon signed-rank test of two runs' scores on the same pairs."""

    statistic: float
    p_value: float
    n: int


def wilcoxon_signed_rank(a: np.ndarray, b: np.ndarray) -> ScoreTest:
    """Wilcoxon signed-rank test of ``a[i] - b[i]`` (see :func:`parasent.evaluation.significance.wilcoxon`)."""
    statistic, p_value = wilcoxon(a, b)
    return ScoreTest(statistic, p_value, len(a))


@dataclass
class ModelColumn:
    name: str
    pearson: dict[str, float] = field(default_factory=dict)
    spearman: dict[str, float] = field(default_factory=dict)
    tests: dict[str, ScoreTest] = field(default_factory=dict)  # against the reference


@dataclass
class Comparison:
    """Per-dataset Pearson and Spearman (x100) of each model, and tests against ``reference``."""

    suite: str
    datasets: list[str]
    sizes: dict[str, int]
    columns: list[ModelColumn]
    reference: str | None
    alpha: float

    def significant(self, column: ModelColumn, dataset: str) -> bool:
        test = column.tests.get(dataset)
        return test is not None and test.p_value < self.alpha

    def means(self, column: ModelColumn) -> tuple[float, float]:
        return (
            float(np.mean([column.pearson[d] for d in self.datasets])),
            float(np.mean([column.spearman[d] for d in self.datasets])),
        )

    def weighted_means(self, column: ModelColumn) -> tuple[float, float]:
        """Means weighted by the number of pairs (SemEval's "ALL")."""
        n = np.array([self.sizes[d] for d in self.datasets], dtype=np.float64)
        return (
            float(np.dot([column.pearson[d] for d in self.datasets], n) / n.sum()),
            float(np.dot([column.spearman[d] for d in self.datasets], n) / n.sum()),
        )

    def format_table(self, markdown: bool = False) -> str:
        """Rows are datasets; each model's cell is ``pearson (spearman)``, dagger when its scores
        differ significantly from the reference's; the best Pearson of a row is starred
        (bold in markdown). Then the unweighted means and, per tested model, the p-values."""
        tested = [c for c in self.columns if c.tests]
        header = ["dataset", "n"] + [c.name for c in self.columns] + [f"p ({c.name})" for c in tested]
        rows = []
        for d in self.datasets:
            best = max(c.pearson[d] for c in self.columns)
            cells = [d, str(self.sizes[d])]
            for c in self.columns:
                mark = DAGGER if self.significant(c, d) else ""
                text = f"{c.pearson[d]:.2f}{mark} ({c.spearman[d]:.2f})"
                if c.pearson[d] == best and len(self.columns) > 1:
                    text = f"**{text}**" if markdown else f"*{text}"
                cells.append(text)
            cells += [f"{c.tests[d].p_value:.1e}" for c in tested]
            rows.append(cells)
        mean_cells = [f"mean ({len(self.datasets)} sets)", ""]
        for c in self.columns:
            p, s = self.means(c)
            mean_cells.append(f"{p:.2f} ({s:.2f})")
        mean_cells += [
            f"{sum(self.significant(c, d) for d in self.datasets)}/{len(self.datasets)}" for c in tested
        ]
        weighted_cells = ["mean weighted by pairs", str(sum(self.sizes.values()))]
        for c in self.columns:
            p, s = self.weighted_means(c)
            weighted_cells.append(f"{p:.2f} ({s:.2f})")
        weighted_cells += ["" for _ in tested]
        rows += [mean_cells, weighted_cells]
        note = (
            f"Pearson (Spearman) x100 of each model's scores (cosines) vs gold, suite {self.suite}. "
            + (
                f"{DAGGER}: scores differ from {self.reference}'s on the same pairs, Wilcoxon signed-rank "
                f"p < {self.alpha:g}; p columns give p per set and, in the mean row, the count of such sets. "
                if self.reference
                else ""
            )
            + ("Bold" if markdown else "*")
            + ": best Pearson of the row."
        )
        if markdown:
            from parasent.support.tables import markdown_table

            return "\n".join([markdown_table(header, rows), "", note])
        widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
        fmt = lambda r: "  ".join(  # noqa: E731
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(r, widths, strict=True))
        )
        rule = "-" * len(fmt(header))
        body = [fmt(r) for r in rows[:-2]]
        return "\n".join([fmt(header), rule, *body, rule, fmt(rows[-2]), fmt(rows[-1]), note])

    def to_dict(self) -> dict[str, Any]:
        return {
            "suite": self.suite,
            "reference": self.reference,
            "alpha": self.alpha,
            "models": [
                {
                    "name": c.name,
                    "datasets": [
                        {
                            "name": d,
                            "n": self.sizes[d],
                            "pearson": c.pearson[d],
                            "spearman": c.spearman[d],
                            **(
                                {"wilcoxon_statistic": c.tests[d].statistic, "wilcoxon_p": c.tests[d].p_value}
                                if d in c.tests
                                else {}
                            ),
                        }
                        for d in self.datasets
                    ],
                    "mean_pearson": self.means(c)[0],
                    "mean_spearman": self.means(c)[1],
                    "weighted_mean_pearson": self.weighted_means(c)[0],
                    "weighted_mean_spearman": self.weighted_means(c)[1],
                }
                for c in self.columns
            ],
        }


def compare_models(
    models: Sequence[tuple[str, Encodes]],
    suite: str = "transfer",
    data_dir: str | Path | None = None,
    *,
    reference: str | None = None,
    alpha: float = PAPER_ALPHA,
    evaluator: SimilarityEvaluator | None = None,
) -> Comparison:
    """Evaluate ``(name, model)`` pairs on one suite; test every model against ``reference``."""
    names = [name for name, _ in models]
    if len(set(names)) != len(names):
        raise ValueError(f"model names must be unique, got {names}")
    evaluator = evaluator or SimilarityEvaluator(suite, data_dir)
    golds = {spec.name: evaluator.gold(spec.name) for spec in evaluator.specs}
    predictions = {name: evaluator.predictions(model) for name, model in models}
    return compare_predictions(predictions, golds, suite=suite, reference=reference, alpha=alpha)


def compare_predictions(
    predictions: Mapping[str, Mapping[str, np.ndarray]],
    golds: Mapping[str, np.ndarray],
    *,
    suite: str = "",
    reference: str | None = None,
    alpha: float = PAPER_ALPHA,
) -> Comparison:
    """The same table from per-pair predictions: ``predictions[model][dataset]`` against
    ``golds[dataset]`` (for systems that are not cosine models, e.g. a regressor)."""
    names = list(predictions)
    if reference is not None and reference not in names:
        raise ValueError(f"reference {reference!r} is not one of the models {names}")
    datasets = list(golds)
    columns = []
    for name in names:
        column = ModelColumn(name)
        for d in datasets:
            column.pearson[d] = pearson(predictions[name][d], golds[d])
            column.spearman[d] = spearman(predictions[name][d], golds[d])
            if reference is not None and name != reference:
                column.tests[d] = wilcoxon_signed_rank(predictions[name][d], predictions[reference][d])
        columns.append(column)
    sizes = {d: len(golds[d]) for d in datasets}
    return Comparison(suite, datasets, sizes, columns, reference, alpha)
