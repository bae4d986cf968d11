"""The figures of ``--plot`` (:mod:`parasent.analysis.plots`): each a valid PNG, written whole,
never over a file unasked, and a missing matplotlib one line naming the extra."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from parasent.errors import MissingDependencyError, OutputExistsError
from parasent.evaluation.file_pairs import PairPoints
from parasent.support.extras import install_line

pytest.importorskip("matplotlib")

from parasent.analysis.plots import PNG_MAGIC, epoch_curves, pairs_figure  # noqa: E402

HISTORY = [
    {"event": "epoch", "epoch": 0, "validation": {"average_precision": 70.0}},
    {"event": "epoch", "epoch": 1, "loss": 2.0, "validation": {"average_precision": 74.0}},
    {"event": "epoch", "epoch": 2, "loss": 1.5, "validation": {"average_precision": 73.0}},
]


def is_png(path) -> bool:
    data = path.read_bytes()
    return len(data) > 1000 and data[:8] == PNG_MAGIC


def test_epoch_curves_mark_the_chosen_epoch_and_never_replace_a_file_unasked(tmp_path):
    png = tmp_path / "curves.png"
    epoch_curves(HISTORY, png, best_epoch=1, label="held-out", marks={"STS 2016": [(0, 77.0), (1, 76.5)]})
    assert is_png(png)
    with pytest.raises(OutputExistsError):
        epoch_curves(HISTORY, png, best_epoch=1, label="held-out", overwrite=False)
    epoch_curves(HISTORY[:1], png, best_epoch=0, label="held-out", overwrite=True)  # no loss, one point
    assert is_png(png)


@pytest.mark.parametrize("kind", ["labelled", "scored", "retrieval"])
def test_pairs_figures_of_each_kind_are_pngs(tmp_path, kind):
    rng = np.random.default_rng(0)
    cosines = rng.uniform(-1, 1, 50)
    gold = (
        (cosines + rng.normal(0, 0.5, 50) > 0).astype(float) if kind == "labelled" else rng.uniform(0, 5, 50)
    )
    points = PairPoints(kind, cosines, gold, threshold=0.1 if kind == "labelled" else None)
    if kind == "retrieval":
        points = PairPoints(kind, ranks=rng.integers(1, 200, 50) + 0.5 * (rng.random(50) < 0.1))
    png = tmp_path / f"{kind}.png"
    pairs_figure([("a", points), ("b", points)], png, title="p.tsv")
    assert is_png(png)


def test_without_matplotlib_a_plot_is_one_line_naming_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib raises ImportError
    with pytest.raises(MissingDependencyError) as error:
        epoch_curves(HISTORY, tmp_path / "c.png", best_epoch=1, label="dev")
    assert install_line("analysis") in str(error.value) and "\n" not in str(error.value)
    assert not (tmp_path / "c.png").exists()
