import asyncio

import numpy as np
import pytest

from parasent.errors import BatcherStopped, EncodingFailed
from parasent.serve.batching import MicroBatcher
from parasent.serve.metrics import Metrics


def fake_encode(calls):
    def encode(texts):
        calls.append(list(texts))
        if "bad" in texts:
            raise RuntimeError("cannot encode")
        return np.array([[len(t), 1.0] for t in texts]), np.array([len(t.split()) for t in texts])

    return encode


def test_concurrent_requests_share_batches_and_a_bad_one_fails_alone():
    calls = []
    sizes = []

    async def scenario():
        batcher = MicroBatcher(fake_encode(calls), max_batch=100, on_batch=sizes.append)
        batcher.start()
        requests = [["a", "bb"], ["ccc"], ["bad"], ["dddd", "e", "ff"]]
        results = await asyncio.gather(*(batcher.encode(r) for r in requests), return_exceptions=True)
        await batcher.stop()
        return requests, results

    requests, results = asyncio.run(scenario())
    assert isinstance(results[2], EncodingFailed) and "RuntimeError: cannot encode" in str(results[2])
    for texts, result in zip(requests, results, strict=True):
        if texts != ["bad"]:
            vectors, lengths = result
            assert vectors[:, 0].tolist() == [len(t) for t in texts]  # each request gets its own rows
    assert len(calls[0]) == 7  # all four were queued together: one batch, then one by one
    assert sum(sizes) == 6


def test_max_batch_bounds_a_batch():
    calls = []

    async def scenario():
        batcher = MicroBatcher(fake_encode(calls), max_batch=3)
        batcher.start()
        await asyncio.gather(*(batcher.encode([f"t{i}", "x"]) for i in range(5)))
        await batcher.stop()

    asyncio.run(scenario())
    assert sum(len(c) for c in calls) == 10 and max(len(c) for c in calls) <= 4  # a request is never split


class Panic(BaseException):
    """What a Rust panic reaches Python as (pyo3_runtime.PanicException derives from BaseException)."""


def panicking_encode(texts):
    if "panic" in texts:
        raise Panic("Onig: Regex search error: retry-limit-in-match over")
    return np.ones((len(texts), 2)), np.ones(len(texts))


def test_a_panic_fails_its_request_alone_and_the_batcher_lives_on():
    async def scenario():
        batcher = MicroBatcher(panicking_encode, max_batch=100)
        batcher.start()
        together = await asyncio.gather(
            batcher.encode(["a"]),
            batcher.encode(["panic"]),
            batcher.encode(["b", "c"]),
            return_exceptions=True,
        )
        later = await asyncio.wait_for(batcher.encode(["after"]), 30)  # a dead batcher never answers
        alive = batcher.alive
        await batcher.stop()
        return together, later, alive

    together, later, alive = asyncio.run(scenario())
    assert isinstance(together[1], EncodingFailed) and "Panic: Onig" in str(together[1])
    assert together[0][0].shape == (1, 2) and together[2][0].shape == (2, 2)
    assert later[0].shape == (1, 2) and alive


def test_a_stopped_batcher_fails_requests_at_once():
    async def scenario():
        batcher = MicroBatcher(panicking_encode)
        batcher.start()
        assert batcher.alive
        batcher._task.cancel()  # the worker gone, as after a bug
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        try:
            await asyncio.wait_for(batcher.encode(["a"]), 30)
        except BatcherStopped:
            return batcher.alive
        return "answered"

    assert asyncio.run(scenario()) is False


def test_metrics_text_is_prometheus_exposition():
    metrics = Metrics()
    metrics.request("/v1/embeddings", 200, 0.003)
    metrics.request("/v1/embeddings", 400, 0.0005)
    metrics.batch_size(32)
    text = metrics.render()
    assert 'parasent_requests_total{path="/v1/embeddings",status="200"} 1.0' in text
    assert 'parasent_request_seconds_bucket{le="0.005",path="/v1/embeddings"} 2.0' in text
    assert 'parasent_batch_size_bucket{le="32.0"} 1.0' in text and "parasent_texts_total 32.0" in text
    assert text.count("# TYPE") == 6  # requests, latency, batch size, texts, requests by key, 401s


@pytest.mark.parametrize("value", [0.001, 5.0, 100.0])
def test_histogram_counts_every_value(value):
    metrics = Metrics()
    metrics.request("/health", 200, value)
    assert 'parasent_request_seconds_bucket{le="+Inf",path="/health"} 1.0' in metrics.render()
