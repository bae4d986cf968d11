import numpy as np
import pytest

from parasent.core import inference
from parasent.core.stored_weights import QuantizedTable, quantize_rows
from parasent.text.tokenized import Tokenized


def _batch(rng: np.random.Generator, rows: int) -> Tokenized:
    lengths = rng.integers(0, 40, size=2_000)
    lengths[::97] = 0  # empty sentences among them
    return Tokenized.from_lists([list(rng.integers(0, rows, size=n)) for n in lengths])


def _tables(rng: np.random.Generator) -> list:
    matrix = rng.normal(size=(300, 24)).astype(np.float32)
    int8 = QuantizedTable(*quantize_rows(matrix))
    shared = QuantizedTable(int8.values, int8.scales, rng.integers(0, 300, size=300).astype(np.int32))
    return [matrix, int8, shared]


@pytest.mark.parametrize("threads", [2, 3, 5])
def test_sums_spread_over_threads_give_the_same_bits(monkeypatch, threads):
    monkeypatch.setattr(inference, "THREAD_MIN_TOKENS", 1_000)  # ~39k tokens: a run per thread
    runs = []
    real = inference.run_together
    monkeypatch.setattr(inference, "run_together", lambda tasks: (runs.append(len(tasks)), real(tasks)))
    rng = np.random.default_rng(7)
    batch = _batch(rng, 300)
    for table in _tables(rng):
        alone = inference.average_rows(batch, table, 1)
        together = inference.average_rows(batch, table, threads)
        assert np.array_equal(together.view(np.uint32), alone.view(np.uint32))
    assert runs == [1, threads] * 3


def test_a_batch_below_the_thread_minimum_stays_on_one_thread(monkeypatch):
    runs = []
    real = inference.run_together
    monkeypatch.setattr(inference, "run_together", lambda tasks: (runs.append(len(tasks)), real(tasks)))
    rng = np.random.default_rng(8)
    batch = Tokenized.from_lists([list(rng.integers(0, 300, size=n)) for n in (3, 0, 9, 3)])
    table = rng.normal(size=(300, 8)).astype(np.float32)
    np.testing.assert_array_equal(
        inference.average_rows(batch, table, 4), inference.average_rows(batch, table, 1)
    )
    assert runs == [1, 1]


def test_runs_match_each_sentence_alone_and_overflow_quietly(monkeypatch):
    import warnings

    monkeypatch.setattr(inference, "THREAD_MIN_TOKENS", 1_000)
    rng = np.random.default_rng(10)
    batch = _batch(rng, 300)
    table = rng.normal(size=(300, 8)).astype(np.float32)
    table[:5] = 3e38  # sums of these overflow to inf: reported by the caller, never warned
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning in a helper thread fails its run
        together = inference.average_rows(batch, table, 3)
    alone = np.concatenate([inference.average_one(batch.sentence(i), table) for i in range(len(batch))])
    assert np.array_equal(together.view(np.uint32), alone.view(np.uint32))
    assert np.isinf(together).any()


def test_the_thread_setting_is_read_only_for_a_batch_large_enough_to_split(monkeypatch):
    monkeypatch.setenv("PARASENT_NUM_THREADS", "two")
    rng = np.random.default_rng(11)
    table = rng.normal(size=(300, 8)).astype(np.float32)
    small = Tokenized.from_lists([list(rng.integers(0, 300, size=n)) for n in (3, 0, 9)])
    assert inference.average_rows(small, table).shape == (3, 8)
    with pytest.raises(ValueError, match="PARASENT_NUM_THREADS='two'"):
        inference.average_rows(_batch(rng, 300), table)
