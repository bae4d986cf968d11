import json

import pytest

from parasent.analysis.common import suite_evaluator
from parasent.analysis.learning_curve import CURVE_FILE, doubling_sizes, learning_curve, ordering
from parasent.data.training_text.pools import TrainingPair
from parasent.training.config import TrainConfig


def test_sizes_halve_until_below_the_smallest():
    assert doubling_sizes(100, 10) == [6, 12, 25, 50, 100]
    assert doubling_sizes(5, 10) == [5]
    assert doubling_sizes(3_033_753, 10)[0] == 5  # the paper: "the smallest dataset contained 5 pairs"
    with pytest.raises(ValueError):
        doubling_sizes(0)


def test_orders_keep_or_permute_the_pool():
    pairs = [TrainingPair(f"a{i}", f"b{i}", "x") for i in range(50)]
    assert ordering(pairs, "ordered", 1) == pairs
    shuffled = ordering(pairs, "random", 1)
    assert sorted(shuffled, key=lambda p: int(p.s1[1:])) == pairs and shuffled != pairs
    assert ordering(pairs, "random", 1) == shuffled
    with pytest.raises(ValueError, match="order must be"):
        ordering(pairs, "sorted", 1)


def test_curve_trains_nested_subsets_and_resumes(mini_data_dir, tmp_path, monkeypatch):
    base = TrainConfig.from_flat(
        vectors="wordvecs/mini16.txt.gz", epochs=1, batch_size=16, validation=None, seed=2
    )
    evaluator = suite_evaluator("sts2012", mini_data_dir)
    curve = learning_curve(
        base, tmp_path, evaluator, data_dir=mini_data_dir, smallest=150, progress=False, say=lambda _: None
    )
    sizes = sorted({p.pairs for p in curve.points})
    assert len(sizes) >= 2 and sizes[-1] >= 2 * sizes[0]
    assert {p.order for p in curve.points} == {"ordered", "random"}
    small = (tmp_path / f"ordered-{sizes[0]}/pairs.tsv").read_text().splitlines()
    large = (tmp_path / f"ordered-{sizes[-1]}/pairs.tsv").read_text().splitlines()
    assert large[: len(small)] == small  # each larger set contains the previous one
    assert len((tmp_path / CURVE_FILE).read_text().splitlines()) == len(curve.points)

    import parasent.training.run as run_module

    monkeypatch.setattr(run_module, "train", lambda *a, **k: pytest.fail("finished points must be reused"))
    again = learning_curve(
        base, tmp_path, evaluator, data_dir=mini_data_dir, smallest=150, progress=False, say=lambda _: None
    )
    assert [vars(p) for p in again.points] == [vars(p) for p in curve.points]
    record = json.loads((tmp_path / CURVE_FILE).read_text().splitlines()[0])
    assert record["config"]["base"]["epochs"] == 1 and record["key"] == f"ordered-{sizes[0]}"

    pytest.importorskip("matplotlib")
    curve.baselines["averaged"] = 10.0
    png = curve.plot(tmp_path / "curve.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "training pairs" in curve.format_table() and "baseline averaged" in curve.format_table()


def test_the_pairs_of_a_point_are_staged_under_a_name_of_this_process(tmp_path):
    import os

    from parasent.analysis.learning_curve import write_pairs

    seen = []

    def pairs():
        for i in range(3):
            seen.append(sorted(p.name for p in tmp_path.iterdir()))
            yield TrainingPair(f"a {i}", f"b {i}", "test")

    write_pairs(tmp_path / "pairs.tsv", pairs())  # type: ignore[arg-type] - read once, in order
    assert seen[0] == [f".pairs.tsv.tmp-{os.getpid()}"]
    assert (tmp_path / "pairs.tsv").read_text() == "".join(f"a {i}\tb {i}\n" for i in range(3))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pairs.tsv"]
