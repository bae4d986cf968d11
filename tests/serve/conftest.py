"""The service tests' servers: one per module over a small model and index, and ``launch`` for
servers of a single test. Each skips when the ``serve`` extra or httpx is missing."""

import pytest

from tests.serve.server import LIMITS, start_server, stop_server, write_model


def _needs_serve() -> None:
    for name in ("httpx", "starlette", "uvicorn", "pydantic"):
        pytest.importorskip(name)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    _needs_serve()
    return write_model(tmp_path_factory.mktemp("serve"))


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
    """start(args, command=..., env=...) -> url of a server that is stopped after the test."""
    started = []

    def start(args, **options):
        process, url = start_server(args, tmp_path, **options)
        started.append(process)
        return url

    yield start
    for process in started:
        stop_server(process)
