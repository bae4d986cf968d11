"""Prometheus metrics of the service, through ``prometheus_client``: requests by endpoint and
status, request latency and encoded batch sizes as histograms, and texts encoded.

With ``--workers N`` each worker is a process of its own, and a scrape reaches one of them:
figures kept in a process would show one worker's share. So the workers count in
``prometheus_client``'s multiprocess mode: ``parasent serve`` names a directory in
``PROMETHEUS_MULTIPROC_DIR`` before the workers start (or keeps the one the environment
names), each worker writes its figures to files there, and a scrape of any worker adds up every
worker's (:func:`shared_directory`). One process counts in a registry of its own.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048)


class Metrics:
    """The service's metrics: in a registry of their own, or, under ``PROMETHEUS_MULTIPROC_DIR``
    (read when ``prometheus_client`` is first imported), in the workers' shared directory."""

    def __init__(self) -> None:
        from prometheus_client import CollectorRegistry, Counter, Histogram, disable_created_metrics

        disable_created_metrics()  # no *_created series: a scrape reads counts, not start times
        self.shared = bool(os.environ.get(MULTIPROC_ENV))
        self.registry = CollectorRegistry()
        own = None if self.shared else self.registry  # shared: read from the directory's files
        self._requests = Counter(
            "parasent_requests", "HTTP requests by endpoint and status.", ["path", "status"], registry=own
        )
        self._latency = Histogram(
            "parasent_request_seconds", "Request latency.", ["path"], buckets=LATENCY_BUCKETS, registry=own
        )
        self._batch = Histogram(
            "parasent_batch_size",
            "Texts encoded together (concurrent requests micro-batched).",
            buckets=BATCH_BUCKETS,
            registry=own,
        )
        self._texts = Counter("parasent_texts", "Texts encoded.", registry=own)
        self._by_key = Counter(
            "parasent_key_requests",
            "Requests by API key (the first 12 hex digits of its SHA-256, never the key), endpoint and status.",
            ["key", "path", "status"],
            registry=own,
        )
        self._unauthorized = Counter(
            "parasent_unauthorized_requests",
            "Requests refused for want of a valid API key (401).",
            registry=own,
        )

    def request(self, path: str, status: int, seconds: float, key: str = "") -> None:
        self._requests.labels(path, str(status)).inc()
        self._latency.labels(path).observe(seconds)
        if key:
            self._by_key.labels(key, path, str(status)).inc()

    def unauthorized(self) -> None:
        self._unauthorized.inc()

    def batch_size(self, size: int) -> None:
        self._batch.observe(size)
        self._texts.inc(size)

    def render(self) -> str:
        """The text exposition of every worker's figures (this process's alone when not shared)."""
        from prometheus_client import CollectorRegistry, generate_latest

        registry = self.registry
        if self.shared:
            from prometheus_client.multiprocess import MultiProcessCollector

            registry = CollectorRegistry()
            MultiProcessCollector(registry)
        return generate_latest(registry).decode("utf-8")


@contextmanager
def shared_directory() -> Iterator[str]:
    """The directory the workers of one service count in: the environment's
    ``PROMETHEUS_MULTIPROC_DIR`` if it names one (kept), else a new one, named in the
    environment the workers inherit and removed when the service stops."""
    given = os.environ.get(MULTIPROC_ENV)
    if given:
        yield given
        return
    import shutil
    import tempfile

    directory = tempfile.mkdtemp(prefix="parasent-metrics-")
    os.environ[MULTIPROC_ENV] = directory
    try:
        yield directory
    finally:
        os.environ.pop(MULTIPROC_ENV, None)
        shutil.rmtree(directory, ignore_errors=True)
