import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest

import parasent

httpx = pytest.importorskip("httpx")


def test_several_worker_processes_share_the_port(model_dir, launch):
    url = launch(["--model", str(model_dir / "model"), "--workers", "2"])
    pids = set()
    for _ in range(200):  # a new connection each time: the kernel spreads them over the workers
        if len(pids) == 2:
            break
        reply = httpx.post(f"{url}/v1/embeddings", json={"input": "a man"}, headers={"connection": "close"})
        assert reply.status_code == 200
        pids.add(httpx.get(f"{url}/health", headers={"connection": "close"}).json()["pid"])
    assert len(pids) == 2 and os.getpid() not in pids


def test_without_a_model_it_says_what_to_pass(tmp_path):
    required = inspect.signature(parasent.load).parameters
    if required and next(iter(required.values())).default is inspect.Parameter.empty:
        env = {k: v for k, v in os.environ.items() if k != "PARASENT_MODEL"}
        env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
        out = subprocess.run(
            [sys.executable, "-m", "parasent.cli", "serve", "--port", "1"],
            capture_output=True,
            text=True,
            env=env,
        )
        assert out.returncode == 2 and "--model" in out.stderr
    else:
        pytest.skip("this parasent ships a default model")
