"""Error analysis: two (or more) models' predictions scaled to 0-5 beside the gold score,
pair by pair (Jiao et al. 2018, Sec. 5.3, Table 6).

Jiao et al. scale "the predicted cosine similarities into the range of [0, 5]". ``affine``
maps cosine [-1, 1] linearly onto [0, 5] (the same map for every model, so a model's
systematic over-estimation shows); ``minmax`` maps the lowest and highest cosine of the
dataset to 0 and 5. In the table, ``*`` marks the smaller error of each pair (the paper's
boldface).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from parasent.support.tables import format_rows

SCALES = ("affine", "minmax")


def scale_to_five(cosines: np.ndarray, method: str = "affine") -> np.ndarray:
    cosines = np.asarray(cosines, dtype=np.float64)
    if method == "affine":
        return 2.5 * (np.clip(cosines, -1.0, 1.0) + 1.0)
    if method == "minmax":
        spread = np.ptp(cosines) if len(cosines) else 0.0
        return np.zeros_like(cosines) if spread == 0 else 5.0 * (cosines - cosines.min()) / spread
    raise ValueError(f"scale must be one of {SCALES}, got {method!r}")


def contrasting_pairs(scaled_a: np.ndarray, scaled_b: np.ndarray, gold: np.ndarray, count: int) -> list[int]:
    """``count`` pairs where model A's error is smallest relative to B's, then ``count`` the
    other way round: the pairs that say most about how the two differ."""
    difference = np.abs(scaled_a - gold) - np.abs(scaled_b - gold)
    order = np.argsort(difference, kind="stable")
    a_better = [int(i) for i in order[:count] if difference[i] < 0]
    b_better = [int(i) for i in order[::-1][:count] if difference[i] > 0]
    return a_better + b_better


def parse_pair_refs(text: str, default_dataset: str) -> list[tuple[str, int]]:
    """``"3,sts2015/images#313"`` -> ``[(default, 2), ("sts2015/images", 312)]`` (0-based)."""
    refs = []
    for item in (t.strip() for t in text.split(",") if t.strip()):
        name, _, number = item.rpartition("#")
        try:
            index = int(number) - 1
        except ValueError:
            raise ValueError(f"pair reference {item!r} is not N or DATASET#N") from None
        if index < 0:
            raise ValueError(f"pair numbers start at 1, got {item!r}")
        refs.append((name or default_dataset, index))
    return refs


@dataclass
class ErrorRow:
    dataset: str
    index: int  # 1-based line among the dataset's scored pairs
    s1: str
    s2: str
    predictions: dict[str, float]
    gold: float


@dataclass
class ErrorTable:
    rows: list[ErrorRow]
    scale: str

    def format_table(self, markdown: bool = False) -> str:
        models = list(self.rows[0].predictions) if self.rows else []
        table = []
        for n, row in enumerate(self.rows, start=1):
            errors = {m: abs(row.predictions[m] - row.gold) for m in models}
            best = min(errors.values()) if errors else 0.0
            marks = [
                f"{row.predictions[m]:.2f}{'*' if errors[m] == best and len(models) > 1 else ' '}"
                for m in models
            ]
            table.append([n, f"{row.dataset}#{row.index}", *marks, row.gold, row.s1, row.s2])
        return format_rows(
            ["#", "pair", *models, "gold", "sentence A", "sentence B"],
            table,
            title=f"predictions scaled to [0, 5] ({self.scale}); * = smaller error",
            markdown=markdown,
        )

    def to_dict(self) -> dict[str, Any]:
        return {"scale": self.scale, "rows": [vars(r) for r in self.rows]}


def error_rows(
    dataset: str,
    pairs: Sequence[Any],
    cosines: dict[str, np.ndarray],
    indices: Sequence[int],
    scale: str = "affine",
) -> list[ErrorRow]:
    """Rows for 0-based ``indices`` of one dataset; ``cosines`` per model label over all its pairs."""
    scaled = {m: scale_to_five(c, scale) for m, c in cosines.items()}
    rows = []
    for i in indices:
        if not 0 <= i < len(pairs):
            raise ValueError(f"{dataset} has {len(pairs)} pairs; pair {i + 1} does not exist")
        rows.append(
            ErrorRow(
                dataset,
                i + 1,
                pairs[i].s1,
                pairs[i].s2,
                {m: float(s[i]) for m, s in scaled.items()},
                float(pairs[i].score),
            )
        )
    return rows
