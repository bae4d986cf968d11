"""Table 3 of Wieting et al. (2016): the encoders on the PPDB phrase task, next to their STS transfer.

The paper selects every model on the Pavlick et al. (2015) pairs and finds the encoders within
a few points of each other there (Table 3), while on the STS transfer sets word averaging and
the projection model lead by far (Table 2). Here each variant is trained twice on the same
pool (the ppdb protocol's: no Pavlick pair, no pair sharing a phrase with the PPDB test half),
once keeping the best epoch on the PPDB dev half and once on STS 2016; the table gives PPDB
dev (the selection score, the paper's "oracle"), PPDB test, and both selections' transfer
means, plus the spread (best minus worst encoder) of each column.
"""

from __future__ import annotations

import statistics
from typing import Any

from parasent.experiments.compare import RunRecord
from parasent.experiments.variants import Variant
from parasent.support.tables import markdown_table

#: Wieting et al. (2016), Table 3: Pavlick et al. (oracle, test), Spearman's rho x 100. The
#: paper's averaged-vector row is 300d GloVe (840B tokens), not the 50d GloVe-4k used here.
PAPER_TABLE3: dict[str, tuple[float, float]] = {
    "baseline": (44.8, 44.8),
    "pp": (60.3, 60.0),
    "proj": (61.0, 58.4),
    "dan": (60.9, 60.1),
    "rnn": (60.5, 60.3),
    "irnn": (60.3, 60.0),
    "lstm_no_og": (61.6, 61.3),
    "lstm_og": (61.5, 60.9),
}
#: The arms: name -> the validation suite that selects the epoch.
ARMS = {"ppdb-selection": "ppdb-dev", "sts-selection": "validation"}
PPDB_SUITES = ("ppdb-dev", "ppdb-test")


def _spearman(report: dict[str, Any] | None) -> float | None:
    return None if report is None else report["aggregates"][report["primary_metric"]]


def _median(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def _cells(runs: list[RunRecord]) -> dict[str, float | None]:
    return {
        "dev": _median([_spearman(r.extra.get("ppdb-dev")) for r in runs]),
        "test": _median([_spearman(r.extra.get("ppdb-test")) for r in runs]),
        "transfer": _median([r.transfer["aggregates"]["transfer_mean_pearson"] for r in runs]),
        "epoch": _median([r.best_epoch for r in runs]),
    }


def _baseline_cells(baseline: dict[str, Any] | None) -> dict[str, float | None]:
    if baseline is None:
        return {}
    extra = baseline.get("extra", {})
    return {
        "dev": _spearman(extra.get("ppdb-dev")),
        "test": _spearman(extra.get("ppdb-test")),
        "transfer": baseline["transfer"]["aggregates"]["transfer_mean_pearson"],
        "epoch": None,
    }


def _fmt(value: float | None, digits: int = 1) -> str:
    return "" if value is None else f"{value:.{digits}f}"


COLUMNS = [
    ("PPDB dev (oracle), PPDB sel.", "ppdb-selection", "dev"),
    ("PPDB test, PPDB sel.", "ppdb-selection", "test"),
    ("PPDB test, STS sel.", "sts-selection", "test"),
    ("STS transfer, STS 2016 sel.", "sts-selection", "transfer"),
    ("STS transfer, PPDB sel.", "ppdb-selection", "transfer"),
    ("epoch STS / PPDB sel.", "", "epoch"),
]


def ppdb_table(
    variants: list[Variant],
    arms: dict[str, tuple[dict[str, Any] | None, list[RunRecord]]],
) -> str:
    """Markdown: one row per model (averaged vectors first), the columns of :data:`COLUMNS`
    (Spearman x 100 on PPDB, transfer mean Pearson x 100; medians over seeds), the paper's
    Pavlick oracle and test figures, and a last row with each column's spread over the
    trained encoders. ``arms`` maps an arm of :data:`ARMS` to ``(baseline, records)``."""
    rows: list[tuple[str, str, dict[str, dict[str, float | None]]]] = []
    baseline = next((b for b, _ in arms.values() if b is not None), None)
    if baseline is not None:
        label = f"avg. {baseline['vectors'].rsplit('/', 1)[-1]}"
        cells = {arm: _baseline_cells(b or baseline) for arm, (b, _) in arms.items()}
        rows.append((label, "baseline", cells))
    for v in variants:
        cells = {
            arm: _cells([r for r in records if r.variant == v.key]) for arm, (_, records) in arms.items()
        }
        rows.append((v.label, v.key, cells))
    head = ["model", *(c[0] for c in COLUMNS), "paper: Pavlick oracle", "paper: Pavlick test"]
    lines: list[list[str]] = []
    empty: dict[str, float | None] = {}
    for label, key, cells in rows:
        text = []
        for _, arm, field in COLUMNS:
            if field == "epoch":
                epochs = [cells.get(a, empty).get("epoch") for a in ("sts-selection", "ppdb-selection")]
                text.append(" / ".join(_fmt(e, 0) for e in epochs) if key != "baseline" else "")
            else:
                text.append(_fmt(cells.get(arm, empty).get(field)))
        paper = PAPER_TABLE3.get(key)
        text += [_fmt(paper[0]), _fmt(paper[1])] if paper else ["", ""]
        lines.append([label, *text])
    spread = []
    trained = [cells for _, key, cells in rows if key != "baseline"]
    for _, arm, field in COLUMNS:
        values = [c.get(arm, empty).get(field) for c in trained]
        present = [v for v in values if v is not None]
        spread.append(_fmt(max(present) - min(present)) if present and field != "epoch" else "")
    paper_trained = [v for k, v in PAPER_TABLE3.items() if k != "baseline" and k in {r[1] for r in rows}]
    for i in (0, 1):
        values = [p[i] for p in paper_trained]
        spread.append(_fmt(max(values) - min(values)) if values else "")
    lines.append(["**spread over encoders (max - min)**", *spread])
    return markdown_table(head, lines, [False] + [True] * (len(head) - 1))
