"""Prometheus text exposition of the service's counters, kept in process (no client library):
requests by endpoint and status, request latency and encoded batch sizes as histograms. With
``--workers N`` each process counts its own requests (a scrape sees one worker)."""

from __future__ import annotations

import bisect
import threading
from collections import defaultdict

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048)


class Histogram:
    def __init__(self, buckets: tuple[float, ...]) -> None:
        self.buckets = buckets
        self.counts = [0] * (len(buckets) + 1)
        self.total = 0.0
        self.n = 0

    def observe(self, value: float) -> None:
        self.counts[bisect.bisect_left(self.buckets, value)] += 1
        self.total += value
        self.n += 1

    def lines(self, name: str, labels: str = "") -> list[str]:
        out, cumulative = [], 0
        sep = "," if labels else ""
        for bound, count in zip(self.buckets, self.counts, strict=False):
            cumulative += count
            out.append(f'{name}_bucket{{{labels}{sep}le="{bound}"}} {cumulative}')
        out.append(f'{name}_bucket{{{labels}{sep}le="+Inf"}} {self.n}')
        braces = f"{{{labels}}}" if labels else ""
        out += [f"{name}_sum{braces} {self.total:.6f}", f"{name}_count{braces} {self.n}"]
        return out


class Metrics:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests: dict[tuple[str, int], int] = defaultdict(int)
        self.latency: dict[str, Histogram] = {}
        self.batch = Histogram(BATCH_BUCKETS)
        self.texts = 0

    def request(self, path: str, status: int, seconds: float) -> None:
        with self._lock:
            self.requests[(path, status)] += 1
            self.latency.setdefault(path, Histogram(LATENCY_BUCKETS)).observe(seconds)

    def batch_size(self, size: int) -> None:
        with self._lock:
            self.batch.observe(size)
            self.texts += size

    def render(self) -> str:
        with self._lock:
            lines = [
                "# HELP parasent_requests_total HTTP requests by endpoint and status.",
                "# TYPE parasent_requests_total counter",
            ]
            lines += [
                f'parasent_requests_total{{path="{p}",status="{s}"}} {n}'
                for (p, s), n in sorted(self.requests.items())
            ]
            lines += [
                "# HELP parasent_request_seconds Request latency.",
                "# TYPE parasent_request_seconds histogram",
            ]
            for path, histogram in sorted(self.latency.items()):
                lines += histogram.lines("parasent_request_seconds", f'path="{path}"')
            lines += [
                "# HELP parasent_batch_size Texts encoded together (concurrent requests micro-batched).",
                "# TYPE parasent_batch_size histogram",
            ]
            lines += self.batch.lines("parasent_batch_size")
            lines += [
                "# HELP parasent_texts_total Texts encoded.",
                "# TYPE parasent_texts_total counter",
                f"parasent_texts_total {self.texts}",
            ]
        return "\n".join(lines) + "\n"
