"""A real ``parasent serve`` process on a free loopback port, spoken to over HTTP."""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from parasent.data.vectors import WordVectors
from parasent.index import build_index
from parasent.model import SentenceModel

WORDS = ["a", "man", "woman", "is", "playing", "guitar", "piano", "the", "cat", "dog", "runs", "sleeps"]
CORPUS = ["a man is playing guitar", "the cat sleeps", "a dog runs", "a woman is playing piano"]
LIMITS = {"--max-inputs": "64", "--max-chars": "500", "--max-body-bytes": "65536"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(args: list[str], tmp: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    log = open(tmp / f"server-{port}.log", "w")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    process = subprocess.Popen(
        [sys.executable, "-m", "parasent.cli", "serve", "--host", "127.0.0.1", "--port", str(port), *args],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    import httpx

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited: {(tmp / f'server-{port}.log').read_text()}")
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


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    pytest.importorskip("httpx")
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    tmp = tmp_path_factory.mktemp("serve")
    table = np.random.default_rng(0).normal(size=(len(WORDS), 8)).astype(np.float32)
    model = SentenceModel.from_vectors(WordVectors(WORDS, table))
    model.save(tmp / "model")
    (tmp / "corpus.txt").write_text("\n".join(CORPUS) + "\n")
    build_index(model, tmp / "corpus.txt", tmp / "index", progress=False)
    return tmp


@pytest.fixture(scope="module")
def server(model_dir):
    args = ["--model", str(model_dir / "model"), "--index", str(model_dir / "index")]
    for key, value in LIMITS.items():
        args += [key, value]
    process, url = start_server(args, model_dir)
    yield url
    stop_server(process)


@pytest.fixture()
def launch(tmp_path):
    """start(args) -> url of a server that is stopped after the test."""
    started = []

    def start(args):
        process, url = start_server(args, tmp_path)
        started.append(process)
        return url

    yield start
    for process in started:
        stop_server(process)
