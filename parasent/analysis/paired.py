"""Two models compared pair by pair on every dataset of a suite, with the Wilcoxon
signed-rank test of :mod:`parasent.evaluation.significance`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from parasent.analysis.tables import format_rows
from parasent.evaluation.evaluator import SimilarityEvaluator
from parasent.evaluation.significance import PairedTest, paired_test
from parasent.model_spec import NamedModel


@dataclass
class SignificanceReport:
    model_a: str
    model_b: str
    tests: list[PairedTest]
    alpha: float
    scale: str
    on: str

    def winner(self, test: PairedTest) -> str:
        if test.p_value >= self.alpha:
            return "-"
        return "A" if test.better == "a" else "B"

    def format_table(self) -> str:
        rows = [
            [
                t.dataset,
                t.n,
                t.pearson_a,
                t.pearson_b,
                t.error_a,
                t.error_b,
                t.statistic,
                t.p_value,
                self.winner(t),
            ]
            for t in self.tests
        ]
        wins = [self.winner(t) for t in self.tests]
        footer = [
            f"A = {self.model_a}, B = {self.model_b}; Wilcoxon signed-rank on per-pair "
            f"{'absolute errors (cosine mapped to gold by ' + self.scale + ')' if self.on == 'errors' else 'scores'}; "
            f"significant at p < {self.alpha:g}: A better on {wins.count('A')}, B better on {wins.count('B')}, "
            f"no difference on {wins.count('-')} of {len(wins)} sets"
        ]
        return format_rows(
            ["dataset", "n", "r A", "r B", "MAE A", "MAE B", "W", "p", "better"],
            rows,
            digits=[2, 0, 2, 2, 3, 3, 0, 4, 0],
            footer=footer,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "model_a": self.model_a,
            "model_b": self.model_b,
            "alpha": self.alpha,
            "scale": self.scale,
            "on": self.on,
            "tests": [{**t.to_dict(), "significant_winner": self.winner(t)} for t in self.tests],
        }


def compare_models(
    model_a: NamedModel,
    model_b: NamedModel,
    evaluator: SimilarityEvaluator,
    *,
    scale: str = "fit",
    on: str = "errors",
    alpha: float = 0.05,
) -> SignificanceReport:
    a, b = evaluator.predictions(model_a.model), evaluator.predictions(model_b.model)
    tests = [paired_test(n, a[n], b[n], evaluator.gold(n), scale=scale, on=on) for n in evaluator.pairs]
    return SignificanceReport(model_a.label, model_b.label, tests, alpha, scale, on)
