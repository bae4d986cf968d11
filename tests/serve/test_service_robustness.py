"""The service under hostile conditions: a tokenizer that panics or never returns, half-sent
bodies, deep JSON, SIGTERM in every state, a stopped encoding worker."""

import asyncio
import json
import signal
import socket
import threading
import time

import pytest

from parasent.errors import ApiError
from parasent.serve.requests import MAX_DEPTH, parse_body
from parasent.serve.settings import ServeConfig
from tests.serve.server import HOSTILE, launch_fixture, model_dir_fixture, post, start_server, stop_server  # noqa: F401 - fixtures

CONFIG = ServeConfig(model=None)


def start_hostile(model_dir, tmp_path, *extra):
    return start_server(["--model", str(model_dir / "model"), *extra], tmp_path, command=HOSTILE)


def test_a_tokenizer_panic_is_one_requests_error_and_the_service_goes_on(model_dir, tmp_path):
    process, url = start_hostile(model_dir, tmp_path)
    try:
        results = {}

        def send(name, texts):
            results[name] = post(url, "/v1/embeddings", {"input": texts}, timeout=20)

        threads = [threading.Thread(target=send, args=(f"ok{i}", ["a man", "the cat"])) for i in range(4)]
        threads.append(threading.Thread(target=send, args=("panic", ["a dog", "PANIC aaaab"])))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        panic = results.pop("panic")
        assert panic.status_code == 500, panic.text
        assert "PanicException" in panic.json()["error"]["message"]
        assert all(reply.status_code == 200 for reply in results.values())  # batched with it, answered
        after = post(url, "/v1/embeddings", {"input": "a woman is playing piano"}, timeout=20)
        assert after.status_code == 200, after.text
        health = post_get(url, "/health")
        assert health.status_code == 200 and health.json()["batcher"] == "running"
    finally:
        stop_server(process)


def post_get(url, path):
    import httpx

    return httpx.get(f"{url}{path}", timeout=20)


def half_sent(url, declared=200, sent=b'{"input": "a ma'):
    """A connection that sent its headers and part of its body, then stalls."""
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=30)
    head = f"POST /v1/embeddings HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
    sock.sendall(head.encode() + f"Content-Length: {declared}\r\n\r\n".encode() + sent)
    return sock


def read_all(sock) -> bytes:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def test_half_sent_bodies_get_a_408_and_lose_their_connection(model_dir, launch):
    url = launch(["--model", str(model_dir / "model"), "--body-timeout", "1"])
    stalled = [half_sent(url) for _ in range(20)]
    assert post(url, "/v1/embeddings", {"input": "a man"}).status_code == 200  # served meanwhile
    for sock in stalled:  # recv ends (EOF) only because the server closes the connection
        reply = read_all(sock)
        sock.close()
        assert reply.startswith(b"HTTP/1.1 408"), reply[:200]
        assert b"did not arrive within 1 s" in reply


def test_half_sent_headers_lose_their_connection(model_dir, launch):
    url = launch(["--model", str(model_dir / "model"), "--body-timeout", "1"])
    host, port = url.removeprefix("http://").split(":")
    stalled = []
    for _ in range(10):
        sock = socket.create_connection((host, int(port)), timeout=30)
        sock.sendall(b"POST /v1/embeddings HTTP/1.1\r\nHost: x\r\nContent-Le")
        stalled.append(sock)
    assert post(url, "/v1/embeddings", {"input": "a man"}).status_code == 200  # served meanwhile
    for sock in stalled:  # recv ends (EOF) only because the server closes the connection
        assert read_all(sock) == b""
        sock.close()


@pytest.mark.parametrize("state", ["idle", "stuck"])
def test_sigterm_stops_the_server_within_5_s(model_dir, tmp_path, state):
    process, url = start_hostile(model_dir, tmp_path, "--body-timeout", "60")
    held = []
    try:
        if state == "stuck":  # a panic, an encode that never returns, a request behind it, half bodies
            assert post(url, "/v1/embeddings", {"input": "PANIC"}).status_code == 500
            for texts in (["HANG"], ["a man"]):
                threading.Thread(target=_ignore_errors, args=(url, texts), daemon=True).start()
            held = [half_sent(url) for _ in range(5)]
            time.sleep(1.0)  # the stuck encode has started (there is no way to ask)
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=5)  # raises TimeoutExpired after 5 s
    finally:
        for sock in held:
            sock.close()
        if process.poll() is None:
            process.kill()
            process.wait()


def _ignore_errors(url, texts):
    try:
        post(url, "/v1/embeddings", {"input": texts}, timeout=30)
    except Exception:
        pass


def test_health_reports_a_stopped_batcher_and_requests_fail_at_once(model_dir):
    httpx = pytest.importorskip("httpx")
    from parasent.serve.app import create_app

    app = create_app(ServeConfig(model=str(model_dir / "model")))

    async def scenario():
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
                before = await client.get("/health")
                app.state.service.batcher._task.cancel()  # the worker gone, as after a bug
                await asyncio.sleep(0.05)
                after = await client.get("/health")
                request = await asyncio.wait_for(client.post("/v1/embeddings", json={"input": "a man"}), 20)
                return before, after, request

    before, after, request = asyncio.run(scenario())
    assert before.status_code == 200 and before.json()["status"] == "ok"
    assert after.status_code == 503 and after.json() | {"pid": 0} == before.json() | {
        "pid": 0,
        "status": "error",
        "batcher": "stopped",
    }
    assert request.status_code == 503 and "stopped" in request.json()["error"]["message"]


DEEP = [
    (b'{"input": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "input"),
    (b'{"input": "a", "user": ' + b'{"a": ' * 50_000 + b"1" + b"}" * 50_000 + b"}", "user"),
    (b'{"model": "m", "input": [[[' + b"[" * MAX_DEPTH + b"]" * MAX_DEPTH + b"]]]}", "input"),
    (b"[" * 100_000 + b"]" * 100_000, None),
]


@pytest.mark.parametrize("body, field", DEEP, ids=["array-100k", "object-50k", "just-over", "top-level"])
def test_deep_json_is_a_400_naming_the_field(body, field):
    with pytest.raises(ApiError) as caught:
        parse_body(body, CONFIG)
    assert caught.value.status == 400 and caught.value.param == field
    assert f"nested deeper than {MAX_DEPTH}" in caught.value.message
    if field:
        assert f"'{field}'" in caught.value.message


def test_brackets_inside_strings_do_not_count():
    text = '[{"a\\"[[' + "[" * 100 + '"}]'
    body = json.dumps({"input": [text] * 3, "user": "{" * 200}).encode()
    assert parse_body(body, CONFIG)["input"][0] == text
    at_limit = b'{"input": ' + b"[" * (MAX_DEPTH - 1) + b"1" + b"]" * (MAX_DEPTH - 1) + b"}"
    assert isinstance(parse_body(at_limit, CONFIG)["input"], list)


def test_an_enormous_declared_body_is_a_413_at_once(model_dir, launch):
    """``Content-Length: 10^12``: answered 413 at once and the connection closed (it got a 408
    only after the body timeout, the server reading the body it would refuse)."""
    url = launch(["--model", str(model_dir / "model"), "--body-timeout", "30"])
    sock = half_sent(url, declared=10**12)
    sock.settimeout(5)  # far below the body timeout
    started = time.monotonic()
    reply = read_all(sock)
    sock.close()
    assert reply.startswith(b"HTTP/1.1 413"), reply[:200]
    assert b"request body of 1000000000000 bytes exceeds the limit" in reply
    assert time.monotonic() - started < 5
    slightly_over = half_sent(url, declared=(8 << 20) + 10, sent=b"x" * ((8 << 20) + 10))
    assert read_all(slightly_over).startswith(b"HTTP/1.1 413")  # read through: an answer, not a reset
    slightly_over.close()


def test_sigterm_with_a_stalled_body_logs_no_traceback(model_dir, tmp_path):
    """The request still reading its body when the grace period ends is answered 503 (the
    service is stopping); its cancellation is no ``CancelledError`` traceback in the log."""
    process, url = start_server(["--model", str(model_dir / "model"), "--body-timeout", "60"], tmp_path)
    stalled = half_sent(url)
    time.sleep(0.5)  # the request is reading its body (there is no way to ask)
    process.send_signal(signal.SIGTERM)
    try:
        assert process.wait(timeout=10) == 143
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    reply = read_all(stalled)
    stalled.close()
    assert reply.startswith(b"HTTP/1.1 503") and b"stopping" in reply, reply[:200]
    log = process.log_path.read_text()
    assert "Traceback" not in log and "CancelledError" not in log, log
    assert log.strip().splitlines()[-1] == "parasent: terminated (SIGTERM)"


def test_a_chunked_body_several_times_the_limit_gets_a_413_not_a_reset(model_dir, launch):
    """A 20 MB chunked body against 8 MiB was answered by a connection reset: read past twice
    the limit, the server closed with bytes unread. It is read through (discarded) up to 8x."""
    limit = 1 << 20
    url = launch(["--model", str(model_dir / "model"), "--max-body-bytes", str(limit)])
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=30)
    head = f"POST /v1/embeddings HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
    sock.sendall(head.encode() + b"Transfer-Encoding: chunked\r\n\r\n")
    block = b"x" * (64 << 10)
    chunk = f"{len(block):x}\r\n".encode() + block + b"\r\n"
    for _ in range(5 * limit // len(block)):  # 5 MB, then the end: what a client sends whole
        sock.sendall(chunk)
    sock.sendall(b"0\r\n\r\n")
    reply = read_all(sock)
    sock.close()
    assert reply.startswith(b"HTTP/1.1 413") and b"exceeds the limit" in reply, reply[:200]
