"""API keys (``--api-key``, ``--api-key-file``, ``$PARASENT_API_KEY``), request ids and TLS on a
real ``parasent serve``; the key set and the gate in process."""

import os
import shutil
import subprocess
import time

import pytest

from parasent.serve.keys import ApiKeys, command_line_digests, key_digest, key_id, read_key_file
from tests.serve.server import SERVE, free_port, model_dir_fixture, post, start_server, stop_server  # noqa: F401

httpx = pytest.importorskip("httpx")
KEY, OTHER, FILE_KEY = "sk-test-one-0123456789", "sk-test-two-0123456789", "sk-from-file-0123456789"


def test_a_key_matches_by_digest_and_nothing_else_does(tmp_path):
    keys = ApiKeys(command_line_digests([KEY], {}))
    assert keys.required
    assert keys.identify(f"Bearer {KEY}") == key_id(key_digest(KEY))
    for header in (None, "", KEY, f"Basic {KEY}", f"Bearer {KEY}x", f"Bearer {KEY[:-1]}", "Bearer "):
        assert keys.identify(header) is None
    assert keys.identify(f"bearer  {KEY}") is not None  # the scheme is case-insensitive
    assert not ApiKeys().required


def test_the_environment_adds_keys_and_bad_keys_are_refused():
    assert len(command_line_digests([KEY], {"PARASENT_API_KEY": f"{OTHER}, {KEY}"})) == 2
    for bad in ("a b" * 8, "a\nb" * 8, "clé-" + "x" * 20):  # a header carries ASCII, no spaces
        with pytest.raises(ValueError, match="--api-key: an API key is ASCII without spaces"):
            command_line_digests([bad], {})
    with pytest.raises(ValueError, match=r"\$PARASENT_API_KEY: an API key of 5 characters is too short"):
        command_line_digests([], {"PARASENT_API_KEY": "short"})
    with pytest.raises(ValueError) as caught:
        command_line_digests(["secret"], {})
    assert "secret" not in str(caught.value)  # the key is never in a message


def test_the_key_file_is_read_again_when_it_changes_and_a_broken_one_keeps_the_old_keys(tmp_path):
    path = tmp_path / "keys.txt"
    path.write_text(f"# the team's keys\n{FILE_KEY}\n\n")
    keys = ApiKeys(path=str(path))
    assert keys.identify(f"Bearer {FILE_KEY}") and not keys.identify(f"Bearer {OTHER}")
    path.write_text(f"{OTHER}\n")
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 10**9))
    assert keys.identify(f"Bearer {OTHER}") and not keys.identify(f"Bearer {FILE_KEY}")
    path.write_text("# emptied while being rewritten\n")
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 2 * 10**9))
    assert keys.identify(f"Bearer {OTHER}")  # never opens up: the last keys stay


@pytest.mark.parametrize(
    "text, message",
    [("", "holds no key"), ("# only\n", "holds no key"), ("a b" * 9 + "\n", "key 1: an API key is ASCII")],
)
def test_an_unusable_key_file_is_one_line_naming_it(tmp_path, text, message):
    path = tmp_path / "keys.txt"
    path.write_text(text)
    with pytest.raises(ValueError, match=message) as caught:
        read_key_file(str(path))
    assert str(path) in str(caught.value)
    with pytest.raises(ValueError, match="cannot read"):
        read_key_file(str(tmp_path / "missing.txt"))


@pytest.fixture(scope="module")
def keyed(model_dir, tmp_path_factory):
    """A service with a command-line key and a key file, logging at info level."""
    folder = tmp_path_factory.mktemp("keyed")
    (folder / "keys.txt").write_text(f"{FILE_KEY}\n")
    args = ["--model", str(model_dir / "model"), "--api-key", KEY, "--api-key-file", str(folder / "keys.txt")]
    process, url = start_server([*args, "--log-level", "info"], folder)
    yield url, process, folder / "keys.txt"
    stop_server(process)


def _auth(key):
    return {"content-type": "application/json", "authorization": f"Bearer {key}"}


def test_without_a_key_only_the_open_paths_answer(keyed):
    url, _, _ = keyed
    for path in ("/health", "/openapi.json", "/docs"):
        assert httpx.get(f"{url}{path}").status_code == 200, path
    refused = post(url, "/v1/embeddings", {"input": "a man"})
    assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
    assert (
        refused.json()["error"]["type"] == "invalid_request_error"
        and "API key" in refused.json()["error"]["message"]
    )
    assert httpx.get(f"{url}/metrics").status_code == 401
    assert httpx.get(f"{url}/v1/models", headers={"authorization": f"Bearer {OTHER}"}).status_code == 401
    assert post(url, "/v1/embeddings", {"input": "a man"}, headers=_auth(KEY)).status_code == 200
    assert post(url, "/v1/embeddings", {"input": "a man"}, headers=_auth(FILE_KEY)).status_code == 200


def test_the_document_declares_the_bearer_scheme(keyed):
    document = httpx.get(f"{keyed[0]}/openapi.json").json()
    assert document["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    assert document["paths"]["/v1/embeddings"]["post"]["security"] == [{"bearer": []}]
    assert "security" not in document["paths"]["/health"]["get"]


def test_the_openai_client_with_the_key_works_and_without_it_gets_401(keyed):
    openai = pytest.importorskip("openai")
    url = keyed[0]
    vector = openai.OpenAI(base_url=f"{url}/v1", api_key=KEY).embeddings.create(input=["a man"], model="m")
    assert len(vector.data[0].embedding) == 8
    with pytest.raises(openai.AuthenticationError):
        openai.OpenAI(base_url=f"{url}/v1", api_key="wrong", max_retries=0).embeddings.create(
            input=["a"], model="m"
        )


def test_metrics_count_each_key_by_its_digest_prefix_never_the_key(keyed):
    url = keyed[0]
    post(url, "/v1/embeddings", {"input": "a dog"}, headers=_auth(KEY))
    post(url, "/v1/embeddings", {"input": "a dog"})
    text = httpx.get(f"{url}/metrics", headers={"authorization": f"Bearer {KEY}"}).text
    mine = key_id(key_digest(KEY))
    assert f'parasent_key_requests_total{{key="{mine}",path="/v1/embeddings",status="200"}}' in text
    assert "parasent_unauthorized_requests_total" in text
    assert KEY not in text and FILE_KEY not in text


def test_every_response_and_log_line_carries_the_request_id(keyed):
    url, process, _ = keyed
    given = post(url, "/v1/embeddings", {"input": "a"}, headers={**_auth(KEY), "x-request-id": "trace-42"})
    assert given.headers["x-request-id"] == "trace-42"
    new = httpx.get(
        f"{url}/nowhere", headers={"authorization": f"Bearer {KEY}", "x-request-id": "bad id\twith tab"}
    )
    assert new.status_code == 404 and len(new.headers["x-request-id"]) == 32
    assert post(url, "/v1/embeddings", {"input": "a"}).headers["x-request-id"]  # a 401 too
    deadline = time.monotonic() + 10
    while "[trace-42]" not in process.log_path.read_text() and time.monotonic() < deadline:
        time.sleep(0.1)
    log = process.log_path.read_text()
    assert "[trace-42]" in log and KEY not in log and FILE_KEY not in log


def test_a_changed_key_file_and_sighup_take_effect_without_a_restart(keyed):
    url, process, path = keyed
    path.write_text(f"{OTHER}\n")
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 10**9))
    assert post(url, "/v1/embeddings", {"input": "a"}, headers=_auth(OTHER)).status_code == 200
    assert post(url, "/v1/embeddings", {"input": "a"}, headers=_auth(FILE_KEY)).status_code == 401
    assert post(url, "/v1/embeddings", {"input": "a"}, headers=_auth(KEY)).status_code == 200  # the flag's
    path.write_text(f"{FILE_KEY}\n")
    process.send_signal(subprocess.signal.SIGHUP)
    deadline = time.monotonic() + 10
    while post(url, "/v1/embeddings", {"input": "a"}, headers=_auth(FILE_KEY)).status_code != 200:
        assert time.monotonic() < deadline, "SIGHUP did not reload the key file"
        time.sleep(0.1)
    assert process.poll() is None


def _serve_until_announced(args, tmp_path):
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(os.getcwd())}
    process = subprocess.Popen(
        [*SERVE, "--port", str(port), *args],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    lines = []
    for line in process.stderr:
        lines.append(line)
        if "parasent serve: model" in line or process.poll() is not None:
            break
    return process, port, "".join(lines)


def test_listening_beyond_loopback_without_a_key_warns(model_dir, tmp_path):
    process, _, said = _serve_until_announced(
        ["--model", str(model_dir / "model"), "--host", "0.0.0.0"], tmp_path
    )
    stop_server(process)
    assert "warning: listening on 0.0.0.0 without an API key" in said
    process, _, said = _serve_until_announced(
        ["--model", str(model_dir / "model"), "--host", "0.0.0.0", "--api-key", KEY], tmp_path
    )
    stop_server(process)
    assert "with API keys over plain HTTP" in said and KEY not in said


def test_a_missing_key_file_is_one_line_before_the_port_is_taken(model_dir, tmp_path):
    result = subprocess.run(
        [*SERVE, "--model", str(model_dir / "model"), "--api-key-file", str(tmp_path / "none.txt")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and "none.txt: cannot read the API key file" in result.stderr
    assert "Traceback" not in result.stderr


def test_tls_with_a_self_signed_certificate(model_dir, tmp_path):
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"]
        + ["-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    args = ["--model", str(model_dir / "model"), "--ssl-certfile", str(cert), "--ssl-keyfile", str(key)]
    process, port, said = _serve_until_announced(args, tmp_path)
    try:
        assert f"on https://127.0.0.1:{port}" in said
        reply = httpx.post(f"https://127.0.0.1:{port}/v1/embeddings", json={"input": "a man"}, verify=False)
        assert reply.status_code == 200 and len(reply.json()["data"][0]["embedding"]) == 8
        with pytest.raises(httpx.HTTPError):
            httpx.get(f"http://127.0.0.1:{port}/health", timeout=5)
    finally:
        stop_server(process)
    result = subprocess.run(
        [*SERVE, "--model", str(model_dir / "model"), "--ssl-certfile", str(key), "--ssl-keyfile", str(cert)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and "cannot load the certificate and key" in result.stderr
