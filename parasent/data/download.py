"""Resumable, verified, atomic HTTP downloads (stdlib ``urllib`` only: part of the core install).

A file is downloaded into ``NAME.part`` beside its destination; an interrupted transfer (a
dropped connection, a killed process) resumes from the bytes already there with an HTTP
``Range`` request, and only a file whose sha256 matches is renamed to ``NAME``: a file that
exists under its final name is always complete. Proxies come from the environment
(``http_proxy``, ``https_proxy``, ``no_proxy``), as ``urllib`` reads them.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import socket
import time
import urllib.error
import urllib.request
from pathlib import Path

from parasent.errors import ChecksumError, FetchError

CHUNK = 1 << 16
USER_AGENT = "parasent-data-fetch"


def sha256_of(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _open(url: str, start: int, timeout: float):
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    if start:
        request.add_header("Range", f"bytes={start}-")
    return urllib.request.build_opener().open(request, timeout=timeout)  # env proxies honoured


def _transfer(url: str, part: Path, timeout: float, progress: bool) -> None:
    """One attempt: append to ``part`` from where it stops (restart if the server ignores Range)."""
    from tqdm.auto import tqdm

    start = part.stat().st_size if part.exists() else 0
    try:
        response = _open(url, start, timeout)
    except urllib.error.HTTPError as exc:
        if exc.code == 416 and start:  # the range starts at the end: the bytes are all there
            return
        raise
    with response:
        if start and response.status != 206:
            start = 0  # no range support: start over
        length = response.headers.get("Content-Length")
        total = start + int(length) if length is not None else None
        mode = "ab" if start else "wb"
        name = url.rsplit("/", 1)[-1] or url
        with (
            open(part, mode) as out,
            tqdm(
                total=total,
                initial=start,
                unit="B",
                unit_scale=True,
                desc=name,
                disable=not progress,
                leave=False,
            ) as bar,
        ):
            received = start
            while True:
                block = response.read(CHUNK)
                if not block:
                    break
                out.write(block)
                received += len(block)
                bar.update(len(block))
        if total is not None and received < total:
            raise http.client.IncompleteRead(b"", total - received)


def download(
    url: str,
    destination: str | Path,
    *,
    sha256: str | None = None,
    timeout: float = 30.0,
    retries: int = 3,
    progress: bool = True,
) -> Path:
    """Download ``url`` to ``destination`` (resuming a ``.part`` left by an earlier attempt),
    check its sha256 when given, then rename it into place. Errors are one line:
    :class:`FetchError` (offline, HTTP status, timeouts) or :class:`ChecksumError`."""
    destination = Path(destination)
    destination.parent.mkdir(parents=True, exist_ok=True)
    part = destination.with_name(destination.name + ".part")
    for attempt in range(retries + 1):
        try:
            _transfer(url, part, timeout, progress)
            break
        except urllib.error.HTTPError as exc:
            raise FetchError(f"{url}: HTTP {exc.code} {exc.reason}") from None
        except urllib.error.URLError as exc:
            reason = exc.reason
            if isinstance(reason, socket.timeout | TimeoutError) and attempt < retries:
                continue
            raise FetchError(
                f"{url}: cannot connect ({reason}); offline, or a proxy needed (https_proxy)?"
            ) from None
        except (http.client.HTTPException, ConnectionError, TimeoutError) as exc:
            if attempt == retries:
                kept = part.stat().st_size if part.exists() else 0
                raise FetchError(
                    f"{url}: transfer failed after {retries + 1} attempts ({type(exc).__name__}); "
                    f"{kept} bytes kept in {part}, run again to resume"
                ) from None
            time.sleep(min(2.0, 0.2 * 2**attempt))
    if sha256 is not None:
        actual = sha256_of(part)
        if actual != sha256:
            part.unlink()
            raise ChecksumError(f"{url}: sha256 {actual[:16]}... differs from the expected {sha256[:16]}...")
    os.replace(part, destination)
    return destination
