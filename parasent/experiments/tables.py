"""The comparison table in the layout of Wieting et al. (2016), Table 2: datasets as rows, with
the mean of each STS year after its sets, then SICK, Twitter and the transfer mean; one
column per encoder plus plain averaging of the initial vectors. Every trained cell is the
median over seeds of that row's figure (Pearson r x 100), as Jiao et al. (2018) report the
median of five runs; the best cell of each row is in bold."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from parasent.data.registry.catalog import SIMILARITY, SUITES
from parasent.experiments.compare import RunRecord
from parasent.experiments.variants import Variant
from parasent.support.tables import markdown_table

GROUP_LABELS = {"sick2014": "SICK 2014", "twitter2015": "Twitter 2015"}


def _rows() -> list[tuple[str, str, str]]:
    """(kind, key, label): ``dataset`` rows by name, ``aggregate`` rows by aggregate key."""
    rows: list[tuple[str, str, str]] = []
    names = SUITES["transfer"]
    for i, name in enumerate(names):
        group = SIMILARITY[name].group
        label = GROUP_LABELS.get(group, f"{group[3:]} {name.split('/', 1)[1]}")
        rows.append(("dataset", name, label))
        last_of_group = i + 1 == len(names) or SIMILARITY[names[i + 1]].group != group
        members = [n for n in names if SIMILARITY[n].group == group]
        if last_of_group and len(members) > 1:
            rows.append(("aggregate", f"{group}_mean_pearson", f"**STS {group[3:]} mean**"))
    rows.append(("aggregate", "transfer_mean_pearson", f"**transfer mean ({len(names)} sets)**"))
    return rows


def _value(report: dict[str, Any], kind: str, key: str) -> float:
    if kind == "dataset":
        return next(d["pearson"] for d in report["datasets"] if d["name"] == key)
    return report["aggregates"][key]


def _median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def comparison_table(
    variants: list[Variant], records: list[RunRecord], baseline: dict[str, Any] | None = None
) -> str:
    """Markdown table; a variant without runs gets an empty column."""
    by_variant: dict[str, list[RunRecord]] = {v.key: [] for v in variants}
    for record in records:
        if record.variant in by_variant:
            by_variant[record.variant].append(record)
    columns: list[tuple[str, list[dict[str, Any]], list[RunRecord]]] = []
    if baseline is not None:
        columns.append((f"avg. {baseline['vectors'].rsplit('/', 1)[-1]}", [baseline["transfer"]], []))
    for v in variants:
        runs = sorted(by_variant[v.key], key=lambda r: r.seed)
        columns.append((v.label, [r.transfer for r in runs], runs))

    seeds = sorted({r.seed for r in records})
    rows: list[list[str]] = []

    def add(label: str, cells: list[float | None], digits: int = 1, bold_best: bool = True) -> None:
        present = [c for c in cells if c is not None]
        best = max(present) if present and bold_best else None
        text = []
        for cell in cells:
            if cell is None:
                text.append("")
            elif best is not None and cell == best:
                text.append(f"**{cell:.{digits}f}**")
            else:
                text.append(f"{cell:.{digits}f}")
        rows.append([label, *text])

    for kind, key, label in _rows():
        digits = 2 if key == "transfer_mean_pearson" else 1
        add(label, [_median([_value(r, kind, key) for r in reports]) for _, reports, _ in columns], digits)

    def per_run(field: str, runs: list[RunRecord]) -> list[float]:
        return [getattr(r, field) for r in runs if getattr(r, field) is not None]

    spreads = []
    for _, reports, runs in columns:
        values = [r["aggregates"]["transfer_mean_pearson"] for r in reports]
        spreads.append(f"{min(values):.2f}-{max(values):.2f}" if runs and len(values) > 1 else "")
    rows.append(["transfer mean, min-max over seeds", *spreads])
    validation = [
        (baseline or {}).get("validation") if not runs else _median(per_run("validation", runs))
        for _, _, runs in columns
    ]
    add("STS 2016 (validation) mean", validation, 2)
    add("selected epoch (median)", [_median(per_run("best_epoch", runs)) for _, _, runs in columns], 1, False)
    seconds = [
        _median([r.train_seconds + r.eval_seconds for r in runs]) if runs else None for _, _, runs in columns
    ]
    add("seconds per run, train + eval (median)", seconds, 0, False)
    note = f"Pearson r x 100; trained columns: median over {len(seeds)} seed(s) {seeds}." if seeds else ""
    table = markdown_table(["dataset", *(c[0] for c in columns)], rows, [False] + [True] * len(columns))
    return table + ("\n\n" + note if note else "")
