"""Two fuzz categories for ``parasent data fetch``: hostile archives and hostile HTTP servers.

Archives: a zip or tar made of valid and hostile members (names that leave their folder, links,
devices, members that expand beyond the record's bound, undeclared files), then perhaps
byte-mutated; extraction must install the verified targets or fail with parasent's one-line
error, and never write a byte outside the data directory nor leave its staging folder.

Downloads: a local server on 127.0.0.1 answering each request at random (statuses, redirect
loops, missing, short, long, huge or garbage ``Content-Length``, truncated bodies, web pages,
ignored ranges); a download must end with the right bytes under its final name or with a
one-line error naming its URL, never a wrong file under the final name nor a part beyond
the bound. ``PARASENT_FUZZ_N`` inputs each (docs/robustness.md).
"""

from __future__ import annotations

import hashlib
import io
import random
import shutil
import tarfile
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from parasent.data.fetching import fetch as fetching
from parasent.data.fetching.download import download
from parasent.data.fetching.fetch import gzip_9n
from parasent.data.fetching.sources import Source
from parasent.errors import ParasentError
from tests.fuzz.mutate import FUZZ_N, Tally, mutate

# duplicate member names are one of the cases
pytestmark = pytest.mark.filterwarnings("ignore:Duplicate name:UserWarning")

EMMA = b"Emma Woodhouse, handsome, clever, and rich.\n"
HOSTILE_NAMES = [
    "books/../../escaped.txt",
    "../escaped.txt",
    "/tmp/escaped-parasent-fuzz.txt",
    "books/..\\..\\escaped.txt",
    "C:/escaped.txt",
    "books/./dot.txt",
    "books//double.txt",
    "books/sub/../../escaped.txt",
    "books/emma.txt",  # a duplicate
    "books/notes.md",  # undeclared
    "other/escaped.txt",
]


def _zip_archive(rng: random.Random) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("books/emma.txt", EMMA)
        for _ in range(rng.randint(0, 3)):
            name = rng.choice(HOSTILE_NAMES)
            if rng.random() < 0.2:
                info = zipfile.ZipInfo(name)
                info.external_attr = rng.choice([0o120777, 0o020644, 0o060644, 0o010644]) << 16
                archive.writestr(info, "../../../../etc/passwd")
            else:
                archive.writestr(name, bytes(rng.choice([10, 1 << 21])) if rng.random() < 0.3 else b"pwned")
    return buffer.getvalue()


def _tar_archive(rng: random.Random) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=rng.choice(["w", "w:gz"])) as archive:
        for name, data in [("books/emma.txt", EMMA)] + [
            (rng.choice(HOSTILE_NAMES), b"pwned") for _ in range(rng.randint(0, 3))
        ]:
            info = tarfile.TarInfo(name)
            if rng.random() < 0.2:
                info.type = rng.choice([tarfile.SYMTYPE, tarfile.LNKTYPE, tarfile.CHRTYPE, tarfile.FIFOTYPE])
                info.linkname = "../../../../etc/passwd"
                archive.addfile(info)
            else:
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _archive(rng: random.Random) -> bytes:
    data = _zip_archive(rng) if rng.random() < 0.6 else _tar_archive(rng)
    return mutate(data, rng) if rng.random() < 0.4 else data


def _outside(case: Path, root: Path) -> list[str]:
    """What is in ``case`` but outside ``root`` and the archive itself."""
    return [p.as_posix() for p in case.rglob("*") if root not in [p, *p.parents] and p.name != "in.bin"]


def test_hostile_archives_write_nothing_outside_the_data_directory(tmp_path, monkeypatch):
    source = Source(
        "toy-books", "http://127.0.0.1/books", (("books/", "corpus/books/*.txt*", "gzip"),), "toy"
    )
    source = Source(**{**source.__dict__, "expands_to": 1 << 20})
    tree = f"corpus/books/emma.txt.gz  {hashlib.sha256(gzip_9n(EMMA)).hexdigest()}\n"
    monkeypatch.setattr(
        fetching, "CHECKSUMS", {"corpus/books/*.txt*": hashlib.sha256(tree.encode()).hexdigest()}
    )
    rng, tally, installed = random.Random(39), Tally("archives"), 0
    for index in range(FUZZ_N):
        case = tmp_path / f"case{index % 4}"
        shutil.rmtree(case, ignore_errors=True)
        root, archive = case / "data", case / "in.bin"
        archive.parent.mkdir(parents=True)
        archive.write_bytes(_archive(rng))
        tally.check(
            index, lambda r=root, a=archive: fetching.install(source, a, r), str(case), (ParasentError,)
        )
        escaped = _outside(case, root) + [str(p) for p in tmp_path.parent.glob("escaped*")]
        leftovers = list((root / ".downloads").glob(".toy-books.tmp-*")) if root.exists() else []
        if escaped or leftovers:
            tally.failures.append(
                f"input {index}: written outside {root} or left staging: {escaped + leftovers}"
            )
        elif (root / "corpus").exists():
            installed += 1
            if sorted(p.name for p in (root / "corpus/books").iterdir()) != ["emma.txt.gz"]:
                tally.failures.append(f"input {index}: undeclared files installed")
    print(f"{tally.report()}; {installed} installed")
    assert tally.inputs == FUZZ_N and 0 < installed < FUZZ_N
    assert not tally.failures, "\n".join(tally.failures[:10])


PAYLOAD = bytes(range(256)) * 512  # 128 KiB
BOUND = 256 << 10


def _answer(request: BaseHTTPRequestHandler, rng: random.Random) -> None:
    """One random, often hostile, answer to a GET."""
    status = rng.choice([200, 200, 200, 206, 404, 500, 302, 301])
    if status in (301, 302):
        request.send_response(status)
        request.send_header("Location", rng.choice(["/f", "/loop", "http://127.0.0.1:1/f"]))
        request.send_header("Content-Length", "0")
        request.end_headers()
        return
    body = rng.choice(
        [PAYLOAD, PAYLOAD[: rng.randrange(len(PAYLOAD))], b"<!DOCTYPE html><html>no</html>", PAYLOAD * 3]
    )
    request.send_response(status)
    length = rng.choice([len(body), len(body) + 100, max(0, len(body) - 100), None, "abc", "-5", str(10**12)])
    if length is not None:
        request.send_header("Content-Length", str(length))
    if status == 206:
        request.send_header("Content-Range", f"bytes 0-{len(body) - 1}/{len(body)}")
    request.end_headers()
    if status < 400:
        request.wfile.write(body[: rng.randrange(len(body) + 1)] if rng.random() < 0.2 else body)
    request.close_connection = True


@pytest.fixture()
def hostile_server():
    rng = random.Random(40)
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
            with lock:
                seed = rng.random()
            try:
                _answer(self, random.Random(seed))
            except OSError:
                pass  # the client hung up: it may

    class Quiet(ThreadingHTTPServer):
        def handle_error(self, request: object, client_address: object) -> None:
            pass

    server = Quiet(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_hostile_servers_never_leave_a_wrong_file_under_its_final_name(tmp_path, hostile_server):
    expected = hashlib.sha256(PAYLOAD).hexdigest()
    rng, tally, complete = random.Random(41), Tally("downloads"), 0
    for index in range(FUZZ_N):
        destination = tmp_path / f"f{index % 4}"
        for stale in (destination, destination.with_name(destination.name + ".part")):
            stale.unlink(missing_ok=True)
        checked = rng.random() < 0.7
        url = f"{hostile_server}/f"

        def fetch_one(destination: Path = destination, checked: bool = checked, url: str = url) -> None:
            download(
                url,
                destination,
                sha256=expected if checked else None,
                max_bytes=BOUND,
                deadline=3.0,
                timeout=1.0,
                retries=1,
                progress=False,
            )

        tally.check(index, fetch_one, url, (ParasentError,))
        part = destination.with_name(destination.name + ".part")
        if destination.exists():
            complete += 1
            if checked and destination.read_bytes() != PAYLOAD:
                tally.failures.append(f"input {index}: wrong bytes under the final name")
        if part.exists() and part.stat().st_size > BOUND:
            tally.failures.append(f"input {index}: a part of {part.stat().st_size} bytes, beyond the bound")
    print(f"{tally.report()}; {complete} complete")
    assert tally.inputs == FUZZ_N and complete > 0
    assert not tally.failures, "\n".join(tally.failures[:10])
