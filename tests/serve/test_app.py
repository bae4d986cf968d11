"""The service over HTTP: OpenAI-compatible embeddings, similarity, search, health, metrics,
and a JSON 4xx for every kind of bad request, after which it keeps serving."""

import base64
import inspect
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import parasent
from parasent import load

httpx = pytest.importorskip("httpx")
pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from tests.serve.server import launch_fixture, model_dir_fixture, post, server_fixture  # noqa: E402, F401


def test_embeddings_are_openai_shaped_and_match_the_model(server, model_dir):
    model = load(model_dir / "model")
    reply = post(server, "/v1/embeddings", {"input": ["a man is playing guitar", "the cat"], "model": "x"})
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert body["object"] == "list" and [d["index"] for d in body["data"]] == [0, 1]
    assert body["data"][0]["object"] == "embedding" and body["model"] == model_dir.name
    assert body["usage"] == {"prompt_tokens": 7, "total_tokens": 7}
    vectors = np.array([d["embedding"] for d in body["data"]])
    expected = model.encode(["a man is playing guitar", "the cat"], normalize_embeddings=True)
    np.testing.assert_allclose(vectors, expected, rtol=1e-5, atol=1e-6)
    single = post(
        server, "/v1/embeddings", {"input": "the cat", "encoding_format": "base64", "dimensions": 4}
    )
    raw = np.frombuffer(base64.b64decode(single.json()["data"][0]["embedding"]), dtype="<f4")
    short = expected[1, :4] / np.linalg.norm(expected[1, :4])
    np.testing.assert_allclose(raw, short, rtol=1e-5, atol=1e-6)


def test_float_vectors_read_back_as_exactly_the_float32_of_base64(server):
    texts = ["a man is playing guitar", "the cat sleeps", "a dog"]
    floats = post(server, "/v1/embeddings", {"input": texts}).json()["data"]
    packed = post(server, "/v1/embeddings", {"input": texts, "encoding_format": "base64"}).json()["data"]
    as_float32 = np.array([d["embedding"] for d in floats], dtype=np.float32)
    exact = np.stack([np.frombuffer(base64.b64decode(d["embedding"]), dtype="<f4") for d in packed])
    np.testing.assert_array_equal(as_float32, exact)


def test_similarity_pairs_and_matrix(server, model_dir):
    model = load(model_dir / "model")
    pairs = post(server, "/v1/similarity", {"pairs": [["a man", "a woman"], ["the cat", "the cat"]]}).json()
    np.testing.assert_allclose(
        pairs["scores"], model.similarity_pairwise(["a man", "the cat"], ["a woman", "the cat"]), atol=1e-5
    )
    matrix = post(
        server, "/v1/similarity", {"sentences1": ["a man", "a dog"], "sentences2": ["the cat"]}
    ).json()
    np.testing.assert_allclose(matrix["matrix"], model.similarity(["a man", "a dog"], ["the cat"]), atol=1e-5)


def test_search_over_the_loaded_index(server, model_dir):
    CORPUS = (model_dir / "corpus.txt").read_text().splitlines()
    reply = post(server, "/v1/search", {"query": "a man playing guitar", "top_k": 2})
    assert reply.status_code == 200, reply.text
    results = reply.json()["results"]
    expected = load(model_dir / "model").search("a man playing guitar", CORPUS, top_k=2)
    assert [h["corpus_id"] for h in results[0]] == [h["corpus_id"] for h in expected]
    assert results[0][0]["text"] == CORPUS[expected[0]["corpus_id"]]
    assert reply.json()["unread_queries"] == []
    # a query of no word the model knows: its hits are in no order, and the reply says which
    reply = post(server, "/v1/search", {"query": ["a man", "zzqx qqzx"], "top_k": 2})
    assert reply.status_code == 200 and reply.json()["unread_queries"] == [1]


def test_health_and_metrics(server):
    health = httpx.get(f"{server}/health").json()
    assert health["status"] == "ok" and health["dim"] == 8 and health["index"] == 4
    post(server, "/v1/embeddings", {"input": "a man"})
    text = httpx.get(f"{server}/metrics").text
    assert 'parasent_requests_total{path="/v1/embeddings",status="200"}' in text
    assert "parasent_request_seconds_bucket" in text and "parasent_batch_size_count" in text


BAD = [
    ("malformed JSON", b'{"input": ', 400, "malformed JSON"),
    ("not an object", b'["a man"]', 400, "JSON object"),
    ("empty body", b"", 400, "empty request body"),
    ("invalid UTF-8", b'{"input": "caf\xe9"}', 400, "UTF-8"),
    ("lone surrogate", b'{"input": "a \\ud800 b"}', 400, "not valid Unicode"),
    ("NaN constant", b'{"input": "a", "dimensions": NaN}', 400, "malformed JSON"),
    ("wrong type", {"input": 42}, 400, "'input' must be"),
    ("token arrays", {"input": [[1, 2, 3]]}, 400, "token arrays"),
    ("mixed list", {"input": ["a", None]}, 400, "must hold strings"),
    ("empty list", {"input": []}, 400, "empty"),
    ("missing input", {"model": "x"}, 400, "missing field 'input'"),
    ("unknown field", {"input": "a", "temperature": 1}, 400, "unknown field"),
    ("bad format", {"input": "a", "encoding_format": "int8"}, 400, "encoding_format"),
    ("bad dimensions", {"input": "a", "dimensions": 0}, 400, "dimensions"),
    ("boolean dimensions", {"input": "a", "dimensions": True}, 400, "integer"),
    ("too many inputs", {"input": ["a"] * 65}, 413, "limit is 64"),
    ("text too long", {"input": "a " * 300}, 413, "exceeds the limit of 500"),
    ("body too large", {"input": ["x" * 400] * 200}, 413, "bytes exceeds"),
    ("deep input", b'{"input": ' + b"[" * 30000 + b"]" * 30000 + b"}", 400, "'input' is nested deeper"),
    (
        "deep user",
        b'{"input": "a", "user": ' + b'{"a":' * 10000 + b"1" + b"}" * 10001,
        400,
        "'user' is nested",
    ),
    ("token ids out of range", {"input": [[1, -2]]}, 400, "negative token id"),
    ("too many token arrays", {"input": [[1]] * 65}, 413, "limit is 64"),
]


@pytest.mark.parametrize("name, body, status, message", BAD, ids=[b[0] for b in BAD])
def test_bad_embeddings_requests_get_a_json_4xx(server, name, body, status, message):
    reply = post(
        server, "/v1/embeddings", content=body if isinstance(body, bytes) else json.dumps(body).encode()
    )
    assert reply.status_code == status, reply.text
    error = reply.json()["error"]
    assert message in error["message"] and error["code"] == status
    assert post(server, "/v1/embeddings", {"input": "still serving"}).status_code == 200


@pytest.mark.parametrize(
    "path, body, status",
    [
        ("/v1/similarity", {"pairs": [["a"]]}, 400),
        ("/v1/similarity", {"pairs": "a"}, 400),
        ("/v1/similarity", {"sentences1": ["a"]}, 400),
        ("/v1/similarity", {"pairs": [["a", "b"]], "sentences1": ["a"], "sentences2": ["b"]}, 400),
        ("/v1/similarity", {"pairs": [["a", 1]]}, 400),
        ("/v1/search", {"query": "a", "top_k": -1}, 400),
        ("/v1/search", {"query": "a", "top_k": "3"}, 400),
        ("/v1/search", {"query": []}, 400),
        ("/v1/search", {"query": "a", "exact": "yes"}, 400),
        ("/v1/search", {"query": ""}, 400),  # nothing to search with: every score would be 0
        ("/v1/search", {"query": " \t"}, 400),
        ("/v1/search", {"query": ["a man", ""]}, 400),
        ("/v1/nowhere", {"input": "a"}, 404),
    ],
)
def test_bad_requests_on_other_endpoints(server, path, body, status):
    reply = post(server, path, body)
    assert reply.status_code == status, reply.text
    assert "message" in reply.json()["error"]


def test_wrong_method_is_json_too(server):
    reply = httpx.get(f"{server}/v1/embeddings")
    assert reply.status_code == 405 and reply.json()["error"]["code"] == 405


def test_a_burst_of_concurrent_clients_is_micro_batched(server, model_dir):
    model = load(model_dir / "model")
    texts = [f"{w} is playing" for w in ["a man", "the cat", "a dog", "a woman"]] * 24  # 96 requests

    def one(text):
        with httpx.Client(timeout=60) as client:
            reply = client.post(f"{server}/v1/embeddings", json={"input": [text, "the dog"]})
            return text, reply.status_code, reply.json()

    with ThreadPoolExecutor(max_workers=32) as pool:
        replies = list(pool.map(one, texts))
    assert all(status == 200 for _, status, _ in replies)
    for text, _, body in replies:  # each client gets its own rows back
        np.testing.assert_allclose(
            body["data"][0]["embedding"], model.encode(text, normalize_embeddings=True), atol=1e-5
        )
    metrics = httpx.get(f"{server}/metrics").text
    count = next(line for line in metrics.splitlines() if line.startswith("parasent_batch_size_count"))
    batches = float(count.split()[-1])
    sizes = [line for line in metrics.splitlines() if line.startswith("parasent_batch_size_bucket")]
    assert batches >= 1 and sizes


def test_several_worker_processes_share_the_port(model_dir, launch):
    url = launch(["--model", str(model_dir / "model"), "--workers", "2"])
    pids, posted = set(), 0
    for _ in range(200):  # a new connection each time: the kernel spreads them over the workers
        if len(pids) == 2:
            break
        reply = httpx.post(f"{url}/v1/embeddings", json={"input": "a man"}, headers={"connection": "close"})
        assert reply.status_code == 200
        pids.add(httpx.get(f"{url}/health", headers={"connection": "close"}).json()["pid"])
        posted += 1
    assert len(pids) == 2 and os.getpid() not in pids
    # a scrape reaches one worker and sees both workers' requests (prometheus_client's multiprocess mode)
    total = f'parasent_requests_total{{path="/v1/embeddings",status="200"}} {float(posted)}'
    for _ in range(4):
        assert total in httpx.get(f"{url}/metrics", headers={"connection": "close"}).text


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


@pytest.mark.parametrize("port", ["99999", "-1"])
def test_a_port_out_of_range_is_one_line(port, capsys):
    from parasent.cli import main

    assert main(["serve", "--port", port]) == 2
    err = capsys.readouterr().err
    assert "--port must be 0-65535" in err and "Traceback" not in err
