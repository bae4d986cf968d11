"""Downloads and ``parasent data`` end to end against a local HTTP server (no internet needed)."""

from __future__ import annotations

import gzip
import hashlib
import io
import threading
import time
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from parasent.cli import main
from parasent.data import fetch as fetching
from parasent.data.download import download
from parasent.data.fetch import gzip_9n
from parasent.data.sources import Source
from parasent.errors import ChecksumError, FetchError

pytestmark = pytest.mark.core

PAYLOAD = bytes(range(256)) * 4096  # 1 MiB


class Server:
    """Files by path; ``drop`` paths send half the body and close on their first request;
    ``slow`` paths stall longer than the client's timeout; ``norange`` ignore Range."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.drop: set[str] = set()
        self.slow: set[str] = set()
        self.norange: set[str] = set()
        self.requests: list[tuple[str, str | None]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
                server.requests.append((self.path, self.headers.get("Range")))
                body = server.files.get(self.path)
                if body is None:
                    self.send_error(404, "Not Found")
                    return
                start = 0
                wanted = self.headers.get("Range")
                if wanted and self.path not in server.norange:
                    start = int(wanted.split("=")[1].split("-")[0])
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
                else:
                    self.send_response(200)
                self.send_header("Content-Length", str(len(body) - start))
                self.end_headers()
                if self.path in server.slow:
                    time.sleep(1.5)
                if self.path in server.drop:
                    server.drop.discard(self.path)
                    self.wfile.write(body[start : start + (len(body) - start) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(body[start:])

        class Quiet(ThreadingHTTPServer):
            def handle_error(self, request: object, client_address: object) -> None:
                pass  # a client that hangs up (the timeout test) is expected here

        self.httpd = Quiet(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture()
def server():
    running = Server()
    yield running
    running.close()


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_dropped_connection_resumes_with_a_range_request(server, tmp_path):
    server.files["/big.bin"] = PAYLOAD
    server.drop.add("/big.bin")
    path = download(f"{server.url}/big.bin", tmp_path / "big.bin", sha256=sha(PAYLOAD), progress=False)
    assert path.read_bytes() == PAYLOAD
    assert not (tmp_path / "big.bin.part").exists()
    assert server.requests[0][1] is None and server.requests[1][1] == f"bytes={len(PAYLOAD) // 2}-"


def test_a_killed_download_leaves_a_part_file_that_resumes(server, tmp_path):
    server.files["/big.bin"] = PAYLOAD
    (tmp_path / "big.bin.part").write_bytes(PAYLOAD[:1000])  # what a killed run leaves
    assert not (tmp_path / "big.bin").exists()  # never under the final name
    download(f"{server.url}/big.bin", tmp_path / "big.bin", sha256=sha(PAYLOAD), progress=False)
    assert (tmp_path / "big.bin").read_bytes() == PAYLOAD
    assert server.requests == [("/big.bin", "bytes=1000-")]


def test_server_without_range_support_restarts(server, tmp_path):
    server.files["/f"] = PAYLOAD
    server.norange.add("/f")
    (tmp_path / "f.part").write_bytes(b"x" * 10)
    download(f"{server.url}/f", tmp_path / "f", sha256=sha(PAYLOAD), progress=False)
    assert (tmp_path / "f").read_bytes() == PAYLOAD


def test_wrong_checksum_keeps_nothing(server, tmp_path):
    server.files["/f"] = b"not what the registry says\n"
    with pytest.raises(ChecksumError, match="sha256"):
        download(f"{server.url}/f", tmp_path / "f", sha256="0" * 64, progress=False)
    assert list(tmp_path.iterdir()) == []


def test_404_and_offline_are_one_line_errors(server, tmp_path):
    with pytest.raises(FetchError, match="HTTP 404") as error:
        download(f"{server.url}/missing", tmp_path / "f", progress=False)
    assert "\n" not in str(error.value)
    closed = Server()
    url = closed.url
    closed.close()
    with pytest.raises(FetchError, match="cannot connect"):
        download(f"{url}/f", tmp_path / "f", progress=False, retries=0)


def test_slow_server_fails_within_the_timeout_bound(server, tmp_path):
    server.files["/slow"] = PAYLOAD
    server.slow.add("/slow")
    began = time.monotonic()
    with pytest.raises(FetchError):
        download(f"{server.url}/slow", tmp_path / "slow", timeout=0.3, retries=1, progress=False)
    assert time.monotonic() - began < 6
    assert not (tmp_path / "slow").exists()


def _archive() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("gold/STS.input.news.txt", "a man runs\tsomeone runs\tsrc\nno gold here\tat all\n")
        archive.writestr("gold/STS.gs.news.txt", "4.2\n")
        archive.writestr("books/emma.txt", "Emma Woodhouse.\n")
        archive.writestr("books/README", "selection\n")
    return buffer.getvalue()


@pytest.fixture()
def registry(server, monkeypatch):
    """A two-source registry served locally, with the checksums of what fetch must produce."""
    server.files["/sts.zip"] = _archive()
    server.files["/words.txt"] = b"the 10\nof 5\n"
    sts = Source(
        "toy-sts",
        f"{server.url}/sts.zip",
        (
            ("gold/STS.input.news.txt", "sts/news.test.tsv", "sts"),
            ("books/", "corpus/books/*", "gzip"),
        ),
        "toy STS set",
    )
    words = Source(
        "toy-words", f"{server.url}/words.txt", (("", "wordfreq/words.txt.gz", "gzip"),), "toy list"
    )
    emma = gzip_9n(b"Emma Woodhouse.\n")
    readme = sha(b"selection\n")
    tree = f"corpus/books/README  {readme}\ncorpus/books/emma.txt.gz  {sha(emma)}\n"
    checksums = {
        "sts/news.test.tsv": sha(b"4.2\ta man runs\tsomeone runs\n\tno gold here\tat all\n"),
        "corpus/books/*": sha(tree.encode()),
        "wordfreq/words.txt.gz": sha(gzip_9n(b"the 10\nof 5\n")),
    }
    derived = Source(
        "toy-derived",
        f"{server.url}/original.msi",
        (("", "paraphrase/x.tsv", ""),),
        "toy",
        derived="a reformat",
    )
    monkeypatch.setattr(fetching, "BY_NAME", {s.name: s for s in (sts, words, derived)})
    monkeypatch.setattr(fetching, "CHECKSUMS", checksums)
    monkeypatch.setattr("parasent.data.sources.DEFAULT", ("toy-sts", "toy-words", "toy-derived"))
    return server


def test_fetch_unpacks_verifies_and_lists(registry, tmp_path, capsys):
    root = tmp_path / "data"
    assert main(["data", "fetch", "--data-dir", str(root), "--quiet"]) == 0
    assert (
        root / "sts/news.test.tsv"
    ).read_text() == "4.2\ta man runs\tsomeone runs\n\tno gold here\tat all\n"
    assert gzip.decompress((root / "corpus/books/emma.txt.gz").read_bytes()) == b"Emma Woodhouse.\n"
    assert (root / "corpus/books/README").read_text() == "selection\n"
    assert main(["data", "list", "--data-dir", str(root)]) == 0
    out = capsys.readouterr().out
    assert out.count("present") == 3 and out.count("missing") == 1  # the derived file
    requests = len(registry.requests)
    assert main(["data", "fetch", "--data-dir", str(root), "--quiet"]) == 0
    assert len(registry.requests) == requests  # all present: nothing downloaded again
    (root / "sts/news.test.tsv").write_text("tampered\n")
    main(["data", "list", "--data-dir", str(root), "toy-sts"])
    assert "corrupt" in capsys.readouterr().out
    assert main(["data", "fetch", "--data-dir", str(root), "toy-sts", "--quiet"]) == 0
    assert (root / "sts/news.test.tsv").read_text().startswith("4.2\t")


def test_fetch_with_a_wrong_registry_checksum_installs_nothing(registry, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(fetching.CHECKSUMS, "wordfreq/words.txt.gz", "1" * 64)
    root = tmp_path / "data"
    assert main(["data", "fetch", "toy-words", "--data-dir", str(root), "--quiet"]) == 2
    assert "sha256" in capsys.readouterr().err
    assert not (root / "wordfreq/words.txt.gz").exists()
    assert main(["data", "fetch", "nonesuch", "--data-dir", str(root)]) == 2
    assert "unknown data set" in capsys.readouterr().err


def test_gzip_9n_is_what_gzip_writes():
    data = b"the 10\nof 5\n" * 100
    assert gzip.decompress(gzip_9n(data)) == data
    assert gzip_9n(data)[:10] == bytes.fromhex("1f8b0800000000000203")  # no name, time 0, unix


def test_registry_sources_have_checksums_and_distinct_targets():
    from parasent.data.checksums import SHA256
    from parasent.data.sources import SOURCES

    targets = [t for s in SOURCES for t in s.targets]
    assert len(targets) == len(set(targets))
    assert set(targets) <= set(SHA256)  # one copy of the digests: the dataset registry's
    assert all(len(SHA256[t]) == 64 for t in targets)
