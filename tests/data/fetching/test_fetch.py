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
from parasent.data.fetching import fetch as fetching
from parasent.data.fetching.download import download
from parasent.data.fetching.fetch import gzip_9n
from parasent.data.fetching.sources import Source
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
        self.custom: dict[str, object] = {}  # path -> handler(request): a hostile answer of its own
        self.requests: list[tuple[str, str | None]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
                server.requests.append((self.path, self.headers.get("Range")))
                if self.path in server.custom:
                    server.custom[self.path](self)
                    return
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
    monkeypatch.setattr("parasent.data.fetching.sources.DEFAULT", ("toy-sts", "toy-words", "toy-derived"))
    return server


def test_fetch_unpacks_verifies_and_lists(registry, tmp_path, capsys):
    root = tmp_path / "data"
    assert main(["data", "fetch", "--data-dir", str(root), "--quiet"]) == 0
    assert (
        root / "sts/news.test.tsv"
    ).read_text() == "4.2\ta man runs\tsomeone runs\n\tno gold here\tat all\n"
    assert gzip.decompress((root / "corpus/books/emma.txt.gz").read_bytes()) == b"Emma Woodhouse.\n"
    assert (root / "corpus/books/README").read_text() == "selection\n"
    assert main(["data", "list", "--data-dir", str(root)]) == 1  # a target missing: a script sees it
    out = capsys.readouterr().out
    assert out.count("present") == 3 and out.count("missing") == 1  # the derived file
    requests = len(registry.requests)
    assert main(["data", "fetch", "--data-dir", str(root), "--quiet"]) == 0
    assert len(registry.requests) == requests  # all present: nothing downloaded again
    (root / "sts/news.test.tsv").write_text("tampered\n")
    assert main(["data", "list", "--data-dir", str(root), "toy-sts"]) == 1
    assert "corrupt" in capsys.readouterr().out
    assert main(["data", "fetch", "--data-dir", str(root), "toy-sts", "--quiet"]) == 0
    assert (root / "sts/news.test.tsv").read_text().startswith("4.2\t")
    assert main(["data", "list", "--data-dir", str(root), "toy-sts"]) == 0  # all it names present
    assert main(["data", "list", "--data-dir", str(root / "sts/news.test.tsv")]) == 2
    assert "not a directory" in capsys.readouterr().err


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
    from parasent.data.fetching.sources import SOURCES
    from parasent.data.registry.checksums import SHA256

    targets = [t for s in SOURCES for t in s.targets]
    assert len(targets) == len(set(targets))
    assert set(targets) <= set(SHA256)  # one copy of the digests: the dataset registry's
    assert all(len(SHA256[t]) == 64 for t in targets)


# Hostile servers and archives (docs/robustness.md, "Downloads and archives"): nothing is written
# outside the data directory, nothing unverified reaches a final name, every download is bounded.


def _zip(members: dict[str, bytes], links: tuple[str, ...] = ()) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        for name in links:  # a symbolic link member, as zip -y stores one
            info = zipfile.ZipInfo(name)
            info.external_attr = (0o120777 << 16) | 0x20
            archive.writestr(info, "../../../../etc/passwd")
    return buffer.getvalue()


def _files_under(path) -> set[str]:
    return {p.relative_to(path).as_posix() for p in path.rglob("*")}


@pytest.fixture()
def books(server, monkeypatch):
    """A one-source registry whose archive the test sets: ``books/`` -> ``corpus/books/*.txt*``."""

    def serve(members: dict[str, bytes], **fields) -> Source:
        server.files["/books.zip"] = _zip(members, fields.pop("links", ()))
        source = Source(
            "toy-books",
            f"{server.url}/books.zip",
            (("books/", "corpus/books/*.txt*", "gzip"),),
            "toy",
            **fields,
        )
        tree = f"corpus/books/emma.txt.gz  {sha(gzip_9n(b'Emma.'))}\n"
        monkeypatch.setattr(fetching, "BY_NAME", {source.name: source})
        monkeypatch.setattr(fetching, "CHECKSUMS", {"corpus/books/*.txt*": sha(tree.encode())})
        return source

    return serve


def _fetch_fails(tmp_path, capsys, match: str) -> str:
    root = tmp_path / "work" / "data"
    assert main(["data", "fetch", "toy-books", "--data-dir", str(root), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert match in err and err.count("\n") == 1 and "Traceback" not in err, err
    assert _files_under(tmp_path) <= {"work", "work/data", "work/data/.downloads"}  # nothing left anywhere
    return err


@pytest.mark.parametrize(
    "name", ["books/../../../../escaped.txt", "/tmp/escaped-parasent.txt", "books/..\\..\\escaped.txt"]
)
def test_a_member_that_leaves_its_folder_writes_nothing(books, tmp_path, capsys, name):
    books({"books/emma.txt": b"Emma.", name: b"pwned"})
    _fetch_fails(tmp_path, capsys, "unsafe member name")
    assert not any(p.name.startswith("escaped") for p in tmp_path.parent.rglob("escaped*"))


def test_a_link_member_is_refused(books, tmp_path, capsys):
    books({"books/emma.txt": b"Emma."}, links=("books/passwd.txt",))
    _fetch_fails(tmp_path, capsys, "is a link or a device")


def test_only_the_members_the_record_declares_are_written(books, tmp_path, capsys):
    books({"books/emma.txt": b"Emma.", "books/run.sh": b"rm -rf /", "other/x.txt": b"x"})
    root = tmp_path / "data"
    assert main(["data", "fetch", "toy-books", "--data-dir", str(root), "--quiet"]) == 0
    assert _files_under(root / "corpus") == {"books", "books/emma.txt.gz"}
    assert _files_under(root / ".downloads") == {"books.zip"}  # the verified download, kept


def test_an_archive_with_a_wrong_declared_sha256_is_not_opened(books, tmp_path, capsys):
    books({"books/emma.txt": b"Emma."}, sha256="0" * 64)
    _fetch_fails(tmp_path, capsys, "sha256")


def test_a_zip_bomb_stops_at_the_records_bound(books, tmp_path, capsys):
    books({"books/emma.txt": b"Emma.", "books/bomb.txt": bytes(4 << 20)}, expands_to=1 << 20)
    _fetch_fails(tmp_path, capsys, "expands beyond the 1048576 bytes")


def _html(request) -> None:
    page = b"<!DOCTYPE html><html><body>Please log in</body></html>"
    request.send_response(200)
    request.send_header("Content-Type", "text/html")
    request.send_header("Content-Length", str(len(page)))
    request.end_headers()
    request.wfile.write(page)


def _truncated_without_length(request) -> None:
    request.send_response(200)
    request.end_headers()
    request.wfile.write(_zip({"books/emma.txt": b"Emma."})[:60])
    request.close_connection = True


@pytest.mark.parametrize(
    ("answer", "said"), [(_html, "a web page"), (_truncated_without_length, "truncated")]
)
def test_a_bad_download_never_gets_a_final_name_and_is_asked_for_again(
    books, server, tmp_path, capsys, answer, said
):
    books({"books/emma.txt": b"Emma."})
    server.custom["/books.zip"] = answer
    _fetch_fails(tmp_path, capsys, said)
    first = len(server.requests)
    del server.custom["/books.zip"]  # the server mends: the next run asks it again
    root = tmp_path / "work" / "data"
    assert main(["data", "fetch", "toy-books", "--data-dir", str(root), "--quiet"]) == 0
    assert len(server.requests) == first + 1
    assert gzip.decompress((root / "corpus/books/emma.txt.gz").read_bytes()) == b"Emma."


def test_fewer_bytes_than_the_content_length_are_kept_as_a_part_only(server, tmp_path):
    def short(request) -> None:
        request.send_response(200)
        request.send_header("Content-Length", str(len(PAYLOAD)))
        request.end_headers()
        request.wfile.write(PAYLOAD[:1000])
        request.close_connection = True

    server.custom["/f"] = short
    with pytest.raises(FetchError, match="kept in .*f.part, run again to resume"):
        download(f"{server.url}/f", tmp_path / "f", retries=1, progress=False)
    assert _files_under(tmp_path) == {"f.part"}


def test_a_huge_content_length_is_refused_before_any_byte(server, tmp_path):
    def huge(request) -> None:
        request.send_response(200)
        request.send_header("Content-Length", str(10 * 10**9))
        request.end_headers()
        for _ in range(40):  # 64 bytes every 0.05 s: a client that reads it waits for ever
            request.wfile.write(b"x" * 64)
            time.sleep(0.05)

    server.custom["/big"] = huge
    began = time.monotonic()
    with pytest.raises(FetchError, match="announces 10000000000 bytes, more than the 67108864"):
        download(f"{server.url}/big", tmp_path / "big", progress=False)
    assert time.monotonic() - began < 1.5 and _files_under(tmp_path) == set()


def test_a_stream_without_length_stops_at_the_bound_and_the_deadline(server, tmp_path):
    def endless(request) -> None:
        request.send_response(200)
        request.end_headers()
        try:
            for _ in range(400):
                request.wfile.write(b"x" * 65536)
                time.sleep(0.005)
        except OSError:
            pass  # the client hung up, as it must

    def drip(request) -> None:
        request.send_response(200)
        request.end_headers()
        try:
            for _ in range(100):
                request.wfile.write(b"x" * 64)
                request.wfile.flush()
                time.sleep(0.1)
        except OSError:
            pass

    server.custom["/endless"], server.custom["/drip"] = endless, drip
    with pytest.raises(FetchError, match="sent more than the 1048576 bytes"):
        download(f"{server.url}/endless", tmp_path / "endless", max_bytes=1 << 20, progress=False)
    assert _files_under(tmp_path) == set()
    began = time.monotonic()
    with pytest.raises(FetchError, match=r"not complete after 1 s \(the deadline"):
        download(f"{server.url}/drip", tmp_path / "drip", deadline=1.0, progress=False)
    assert time.monotonic() - began < 3 and not (tmp_path / "drip").exists()


def test_a_redirect_loop_is_one_line_naming_the_url(server, tmp_path):
    def loop(request) -> None:
        request.send_response(302)
        request.send_header("Location", "/loop")
        request.send_header("Content-Length", "0")
        request.end_headers()

    server.custom["/loop"] = loop
    with pytest.raises(FetchError) as error:
        download(f"{server.url}/loop", tmp_path / "loop", progress=False)
    assert (
        str(error.value)
        == f"{server.url}/loop: redirected in a loop (HTTP 302, too many redirects); not downloading it"
    )


def test_more_members_than_any_source_holds_are_refused_before_any_is_extracted(books, tmp_path, capsys):
    """200,000 tiny declared members were extracted whole (over 90 s, 400k staged files) before
    any check: the listing is capped first."""
    from parasent.support.archives import MAX_MEMBERS

    books({f"books/{i}.txt": b"" for i in range(MAX_MEMBERS + 1)})
    _fetch_fails(tmp_path, capsys, f"more than {MAX_MEMBERS} members")


def test_every_single_file_download_records_its_sha256_and_size():
    """0 of 26 sources recorded a download sha256 while the docs said it was checked before use."""
    from parasent.data.fetching.sources import SOURCES

    single = [s for s in SOURCES if not s.derived and all(member == "" for member, _, _ in s.files)]
    assert len(single) == 9
    assert all(s.sha256 is not None and len(s.sha256) == 64 and s.size for s in single)


def test_the_recorded_download_digests_are_the_shared_datas_bytes(shared_data_dir):
    """Each single-file source's record is the download's own bytes: the target as it is, or
    the target decompressed (a ``gzip`` transform)."""
    import gzip as gzip_module

    from parasent.data.fetching.sources import SOURCES

    for source in SOURCES:
        if source.sha256 is None:
            continue
        ((_, target, transform),) = source.files
        if not (shared_data_dir / target).is_file():
            pytest.skip(f"{target} is not in the data directory")
        data = (shared_data_dir / target).read_bytes()
        data = gzip_module.decompress(data) if transform == "gzip" else data
        assert (sha(data), len(data)) == (source.sha256, source.size), source.name


@pytest.mark.parametrize("where", ["file:///etc/passwd", "ftp://127.0.0.1/x"])
def test_a_redirect_to_another_scheme_is_named_not_called_a_loop(server, tmp_path, where):
    def away(request) -> None:
        request.send_response(302)
        request.send_header("Location", where)
        request.send_header("Content-Length", "0")
        request.end_headers()

    server.custom["/away"] = away
    with pytest.raises(FetchError) as error:
        download(f"{server.url}/away", tmp_path / "away", progress=False)
    assert str(error.value) == (
        f"{server.url}/away: redirected to {where}; only http and https redirects are followed, not downloading it"
    )
    assert not (tmp_path / "away").exists()
