import numpy as np
import pytest

from parasent.analysis.pair_errors import ErrorTable, contrasting_pairs, error_rows, scale_to_five
from parasent.data.readers.records import ScoredPair


def test_scales():
    assert scale_to_five(np.array([-1.0, 0.0, 1.0])).tolist() == [0.0, 2.5, 5.0]
    assert scale_to_five(np.array([0.2, 0.4, 0.6]), "minmax").tolist() == pytest.approx([0.0, 2.5, 5.0])
    assert scale_to_five(np.array([0.3, 0.3]), "minmax").tolist() == [0.0, 0.0]
    with pytest.raises(ValueError):
        scale_to_five(np.array([0.1]), "log")


def test_contrasting_pairs_and_table():
    gold = np.array([5.0, 0.0, 2.0, 4.0])
    a = np.array([4.9, 3.0, 2.0, 1.0])  # A right on 0, wrong on 3
    b = np.array([2.0, 0.1, 2.0, 4.0])  # B right on 1 and 3
    assert contrasting_pairs(a, b, gold, 1) == [0, 3]
    pairs = [ScoredPair(f"s{i}", f"t{i}", float(g)) for i, g in enumerate(gold)]
    cosines = {"A": a / 2.5 - 1, "B": b / 2.5 - 1}
    rows = error_rows("set", pairs, cosines, [0, 3])
    assert rows[0].index == 1 and rows[0].predictions["A"] == pytest.approx(4.9)
    text = ErrorTable(rows, "affine").format_table()
    assert "4.90*" in text and "4.00*" in text and "set#4" in text
    with pytest.raises(ValueError, match="does not exist"):
        error_rows("set", pairs, cosines, [7])


def test_pair_references():
    from parasent.analysis.pair_errors import parse_pair_refs

    assert parse_pair_refs("3, sts2015/images#313", "sts2014/images") == [
        ("sts2014/images", 2),
        ("sts2015/images", 312),
    ]
    with pytest.raises(ValueError, match="not N or DATASET#N"):
        parse_pair_refs("x#y", "d")
    with pytest.raises(ValueError, match="start at 1"):
        parse_pair_refs("0", "d")
