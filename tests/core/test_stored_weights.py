import numpy as np
import pytest

from parasent.core.stored_weights import QuantizedTable, pack, quantize_rows, unpack
from parasent.errors import ModelFormatError

pytestmark = pytest.mark.core


def test_int8_rows_are_within_half_a_step():
    matrix = np.random.default_rng(0).normal(size=(50, 16)).astype(np.float32)
    matrix[3] = 0.0
    values, scales = quantize_rows(matrix)
    assert values.dtype == np.int8 and scales.dtype == np.float32 and scales[3] == 0
    restored = QuantizedTable(values, scales)[:]
    step = np.abs(matrix).max(axis=1) / 127
    assert np.all(np.abs(restored - matrix) <= step[:, None] / 2 + 1e-7)
    assert np.array_equal(restored[3], np.zeros(16))
    assert np.abs(values).max() == 127  # the full range is used


def test_quantized_table_indexes_like_an_array():
    matrix = np.random.default_rng(1).normal(size=(10, 4)).astype(np.float32)
    table = QuantizedTable(*quantize_rows(matrix))
    ids = np.array([3, 3, 0, 9])
    assert table.shape == (10, 4) and len(table) == 10
    np.testing.assert_allclose(table[ids], np.asarray(table)[ids])
    np.testing.assert_allclose(table[2], matrix[2], atol=np.abs(matrix[2]).max() / 254 + 1e-7)
    with pytest.raises(ModelFormatError):
        QuantizedTable(np.zeros((3, 2), np.int8), np.zeros(2, np.float32))


def test_pack_unpack_per_dtype():
    weights = {
        "embedding.weight": np.ones((4, 3), np.float32),
        "bias": np.ones(3, np.float32),
        "n": np.arange(3),
    }
    assert pack(weights, "float16")["embedding.weight"].dtype == np.float16
    packed = pack(weights, "int8")
    assert packed["embedding.weight"].dtype == np.int8 and "embedding.weight.row_scale" in packed
    assert packed["bias"].dtype == np.float16 and packed["n"].dtype == weights["n"].dtype
    kept = unpack(packed, "int8", keep=frozenset(["embedding.weight"]))
    assert isinstance(kept["embedding.weight"], QuantizedTable) and set(kept) == {
        "embedding.weight",
        "bias",
        "n",
    }
    dense = unpack(packed, "int8")
    assert dense["embedding.weight"].dtype == np.float32
    np.testing.assert_allclose(dense["embedding.weight"], 1.0)
    with pytest.raises(ValueError):
        pack(weights, "int4")
    with pytest.raises(ModelFormatError):
        unpack(packed, "bfloat8")


@pytest.mark.parametrize("dtype", ["float32", "float16", "int8"])
def test_shared_rows_round_trip_and_only_when_they_save(dtype, monkeypatch):
    from parasent.core import stored_weights as quantization
    from parasent.core.stored_weights import ROWS_SUFFIX, share_rows

    assert share_rows(np.zeros((100, 4), dtype=np.float32)) is None  # saves less than a MiB: plain
    monkeypatch.setattr(quantization, "SHARE_MIN_BYTES", 0)

    rng = np.random.default_rng(0)
    distinct = rng.normal(size=(5, 4)).astype(np.float32)
    table = distinct[[0, 1, 2, 1, 1, 3, 4, 0, 2, 2]]
    tensors = pack({"t": table}, dtype)
    assert tensors["t"].shape[0] == 5 and tensors["t" + ROWS_SUFFIX].tolist() == [
        0,
        1,
        2,
        1,
        1,
        3,
        4,
        0,
        2,
        2,
    ]
    back = np.asarray(unpack(tensors, dtype, keep=frozenset({"t"}))["t"], dtype=np.float32)
    np.testing.assert_allclose(back, table, atol=0.02)
    assert share_rows(rng.normal(size=(200, 4)).astype(np.float32)) is None  # nothing shared: plain layout
    bad = dict(tensors, **{"t" + ROWS_SUFFIX: np.array([0, 9], dtype=np.int32)})
    with pytest.raises(ModelFormatError, match="row_index"):
        unpack(bad, dtype)


@pytest.mark.parametrize("einsum", [True, False])
@pytest.mark.parametrize("shared", [False, True])
def test_quantized_sums_are_the_bits_of_summing_the_gathered_rows(shared, einsum, monkeypatch):
    # QuantizedTable.sums is the batch path's sum (parasent.core.inference.row_sums): encoded
    # vectors stay the same bits as summing the widened rows, position by position, whether
    # this numpy's einsum qualifies or not (einsum_sums_exactly)
    from parasent.core import stored_weights

    if einsum and not stored_weights.einsum_sums_exactly():
        pytest.skip("this numpy's einsum fuses multiply-adds: the plain sum is used")
    monkeypatch.setattr(stored_weights, "einsum_sums_exactly", lambda: einsum)
    rng = np.random.default_rng(4)
    table = QuantizedTable(*quantize_rows(rng.normal(size=(300, 24)).astype(np.float32)))
    if shared:
        table = QuantizedTable(table.values, table.scales, rng.integers(0, 300, size=900).astype(np.int32))
    for length in (1, 2, 7, 33):
        index = rng.integers(0, len(table), size=(50, length))
        expected = table[index].sum(axis=1, dtype=np.float32)
        assert np.array_equal(table.sums(index).view(np.uint32), expected.view(np.uint32))


def test_a_one_column_table_and_a_batch_against_each_sentence_alone():
    from parasent.core.inference import average_one, average_rows
    from parasent.text.tokenized import Tokenized

    rng = np.random.default_rng(5)
    narrow = QuantizedTable(*quantize_rows(rng.normal(size=(500, 1)).astype(np.float32)))
    index = rng.integers(0, 500, size=(50, 9))  # einsum would reorder a 1-column sum
    assert np.array_equal(narrow.sums(index), narrow[index].sum(axis=1, dtype=np.float32))
    table = QuantizedTable(*quantize_rows(rng.normal(size=(400, 16)).astype(np.float32)))
    sentences = [rng.integers(0, 400, size=n) for n in (3, 0, 9, 3, 1, 30, 9)]
    batch = average_rows(Tokenized.from_lists([list(s) for s in sentences]), table)
    alone = np.concatenate([average_one(s, table) for s in sentences])
    assert np.array_equal(batch.view(np.uint32), alone.view(np.uint32))  # encode([a, b])[0] == encode([a])


def test_the_sums_of_an_int8_table_are_known_finite_from_its_largest_entry():
    from parasent.core.inference import sums_are_finite

    rng = np.random.default_rng(6)
    table = QuantizedTable(*quantize_rows(rng.normal(size=(40, 8)).astype(np.float32)))
    assert table.largest == pytest.approx(float(np.abs(np.asarray(table)).max()), rel=1e-2)
    assert sums_are_finite(table, 10_000)
    huge = QuantizedTable(table.values, np.full(40, 1e36, dtype=np.float32))
    assert not sums_are_finite(huge, 1_000)
    assert not sums_are_finite(QuantizedTable(table.values, np.full(40, np.nan, dtype=np.float32)), 1)
    assert not sums_are_finite(np.asarray(table), 1)  # a float table is checked after its sum
