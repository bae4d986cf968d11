"""Several models on a user's own pairs, side by side with the speed each encoded them at.

A user choosing between the default, the contextual tier and the teacher needs two figures per
model on *their* file: the headline figure (average precision, Pearson, top-1 accuracy) and
how fast the model encodes their sentences. The speed is measured as the user meets it: the
file's sentences, which the process has not encoded before, in the evaluator's batches,
scoring excluded (``parasent evaluate --pairs FILE --model default --model contextual``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from parasent.evaluation.file_pairs import PairsReport, file_evaluator, shown_figure
from parasent.support.tables import format_rows


class TimedEncoder:
    """``model`` with its ``encode`` calls counted and timed (texts and seconds)."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.texts = 0
        self.seconds = 0.0

    @property
    def metadata(self) -> Any:
        """The model's record (what its training kept out: :mod:`parasent.evaluation.domain_tests`)."""
        return getattr(self.model, "metadata", None)

    def encode(self, texts: Sequence[str], **options: Any) -> Any:
        start = time.perf_counter()
        vectors = self.model.encode(texts, **options)
        self.seconds += time.perf_counter() - start
        self.texts += len(texts)
        return vectors

    @property
    def rate(self) -> float:
        """Sentences encoded per second (0 before any)."""
        return self.texts / self.seconds if self.seconds > 0 else 0.0


@dataclass
class SideBySide:
    """One report per model on the same pairs, and each model's encoding rate."""

    reports: list[PairsReport]
    rates: list[float]

    def format_table(self) -> str:
        first = self.reports[0]
        metrics = list(first.figures)
        header = ["model", *(m.replace("_", " ") for m in metrics), "sentences/s"]
        rows = [
            [r.model, *(shown_figure(m, r.figures[m]) for m in metrics), f"{rate:,.0f}"]
            for r, rate in zip(self.reports, self.rates, strict=True)
        ]
        head = f"pairs: {first.name} ({first.n} {first.kind} pairs); headline: {first.primary_metric.replace('_', ' ')}"
        note = "sentences/s: this file's sentences encoded once, in batches of 1,024, scoring excluded"
        warned = [f"warning: {r.model}: {line}" for r in self.reports for line in r.warnings]
        warned = list(dict.fromkeys(warned))  # a model given twice is warned once
        return "\n".join(
            [head, format_rows(header, rows), *self.difference_lines(), note, *first.skipped, *warned]
        )

    @cached_property
    def differences(self) -> list[tuple[float, float | None]]:
        """Each later model's headline figure less the first's, and the standard error of that
        difference on these pairs (the paired bootstrap: :meth:`PairsReport.difference_error`)."""
        first = self.reports[0]
        return [(r.primary - first.primary, r.difference_error(first)) for r in self.reports[1:]]

    def difference_lines(self) -> list[str]:
        """A line per later model: is its lead over the first more than noise on this file?"""
        first, lines = self.reports[0], []
        for report, (delta, error) in zip(self.reports[1:], self.differences, strict=True):
            if error is None:
                continue
            verdict = "more than" if abs(delta) > error else "within"
            lines.append(
                f"difference {report.model} - {first.model}: {delta:+.2f} +- {error:.2f} (the standard error of the "
                f"difference on these pairs; {verdict} the noise)"
            )
        return lines

    def to_dict(self) -> dict[str, Any]:
        differences = [(None, None), *self.differences]
        return {
            "models": [
                {**r.to_dict(), "sentences_per_second": rate, "difference_from_first": delta,
                 "difference_standard_error": error}
                for r, rate, (delta, error) in zip(self.reports, self.rates, differences, strict=True)
            ],
        }  # fmt: skip


def pairs_side_by_side(
    models: Sequence[tuple[str, Any]], spec: str, *, lenient: bool = False, data_dir: str | Path | None = None
) -> SideBySide:
    """Each ``(name, model)`` on the pairs of ``FILE[:FORMAT]``, timed as it encodes them."""
    evaluator = file_evaluator(spec, lenient=lenient, data_dir=data_dir)
    reports, rates = [], []
    for name, model in models:
        timed = TimedEncoder(model)
        reports.append(evaluator(timed, name=name))
        rates.append(timed.rate)
    return SideBySide(reports, rates)
