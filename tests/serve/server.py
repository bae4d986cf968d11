"""Starting and stopping a real ``parasent serve`` for the service tests, a small model, and the
fixtures: ``model_dir`` (the model and an index), ``server`` (one per test module over them) and
``launch`` (servers of a single test), each skipped when the ``serve`` extra or httpx is missing.
Test modules import the fixtures they use (``*_fixture``, registered under the short names) (a ``conftest.py`` here would shadow the top-level one
that other tests import by name)."""

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from parasent.core.model import SentenceModel
from parasent.corpus.index import build_index
from parasent.text.word_vectors import WordVectors

REPO = Path(__file__).resolve().parents[2]
WORDS = ["a", "man", "woman", "is", "playing", "guitar", "piano", "the", "cat", "dog", "runs", "sleeps"]
CORPUS = ["a man is playing guitar", "the cat sleeps", "a dog runs", "a woman is playing piano"]
LIMITS = {"--max-inputs": "64", "--max-chars": "500", "--max-body-bytes": "65536"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


SERVE = [sys.executable, "-m", "parasent.cli", "serve"]
HOSTILE = [sys.executable, str(REPO / "tests" / "serve" / "hostile_server.py"), "serve"]


def start_server(
    args: list[str], tmp: Path, *, command: list[str] = SERVE, env: dict | None = None
) -> tuple[subprocess.Popen, str]:
    """A server on a free port (its output in tmp/server-PORT.log), once /health answers."""
    import httpx

    port = free_port()
    log_path = tmp / f"server-{port}.log"
    env = {**os.environ, **(env or {}), "PYTHONPATH": str(REPO)}
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [*command, "--host", "127.0.0.1", "--port", str(port), *args],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
        )
    process.log_path = log_path
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited: {log_path.read_text()}")
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return process, url
        except httpx.HTTPError:
            time.sleep(0.2)
    process.terminate()
    raise RuntimeError("server did not start within 60 s")


def stop_server(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def post(url, path, body=None, *, content=None, headers=None, timeout=30):
    import httpx

    if content is None:
        content = json.dumps(body).encode()
    return httpx.post(
        f"{url}{path}",
        content=content,
        headers=headers or {"content-type": "application/json"},
        timeout=timeout,
    )


def write_model(folder: Path) -> Path:
    """A word-averaging model of WORDS (8 dimensions) in folder/model, and an index of CORPUS."""
    table = np.random.default_rng(0).normal(size=(len(WORDS), 8)).astype(np.float32)
    model = SentenceModel.from_vectors(WordVectors(WORDS, table))
    model.save(folder / "model")
    (folder / "corpus.txt").write_text("\n".join(CORPUS) + "\n")
    build_index(model, folder / "corpus.txt", folder / "index", progress=False)
    return folder


def _needs_serve() -> None:
    for name in ("httpx", "starlette", "uvicorn", "pydantic"):
        pytest.importorskip(name)


@pytest.fixture(scope="module", name="model_dir")
def model_dir_fixture(tmp_path_factory):
    _needs_serve()
    return write_model(tmp_path_factory.mktemp("serve"))


@pytest.fixture(scope="module", name="server")
def server_fixture(model_dir):
    args = ["--model", str(model_dir / "model"), "--index", str(model_dir / "index")]
    for key, value in LIMITS.items():
        args += [key, value]
    process, url = start_server(args, model_dir)
    yield url
    stop_server(process)


@pytest.fixture(name="launch")
def launch_fixture(tmp_path):
    """start(args, command=..., env=...) -> url of a server that is stopped after the test."""
    started = []

    def start(args, **options):
        process, url = start_server(args, tmp_path, **options)
        started.append(process)
        return url

    yield start
    for process in started:
        stop_server(process)
