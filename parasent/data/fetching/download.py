"""Resumable, bounded, verified, atomic HTTP downloads (stdlib ``urllib`` only: part of the core install).

A file is downloaded into ``NAME.part`` beside its destination; an interrupted transfer (a
dropped connection, a killed process) resumes from the bytes already there with an HTTP
``Range`` request. A server is not trusted to end: a download is bounded by the bytes its
record declares (``size``, else ``max_bytes``; a larger ``Content-Length`` is refused before a
byte is read) and by a ``deadline`` for all its attempts together (``urllib``'s timeout is
per read, so a server sending a byte a second never times out alone). Only a file whose
length and sha256 are the ones asked for is renamed to ``NAME``: a file under its final name
is always complete. Proxies come from the environment (``http_proxy``, ``https_proxy``,
``no_proxy``), as ``urllib`` reads them.
"""

from __future__ import annotations

import http.client
import os
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from parasent.errors import ChecksumError, FetchError, RedirectRefused
from parasent.support.regular_files import sha256_of
from parasent.support.staging import fsync_directory

CHUNK = 1 << 16
USER_AGENT = "parasent-data-fetch"
MAX_BYTES = 64 << 20  # a download whose record declares no size: the data sets' archives are < 30 MB
DEADLINE = 3600.0  # seconds for one download, all attempts together (parasent data fetch --deadline)


@dataclass(frozen=True)
class Bounds:
    """What one download may take: ``max_bytes`` bytes (the record's exact ``size`` when it
    declares one) until ``ends_at`` (``time.monotonic()``)."""

    max_bytes: int
    ends_at: float
    deadline: float

    @classmethod
    def start(cls, size: int | None, max_bytes: int, deadline: float) -> Bounds:
        return cls(size if size is not None else max_bytes, time.monotonic() + deadline, deadline)

    def check_announced(self, url: str, total: int) -> None:
        if total > self.max_bytes:
            raise FetchError(
                f"{url}: the server announces {total} bytes, more than the {self.max_bytes} this "
                "download may have; not downloading it"
            )

    def check_received(self, url: str, part: Path, received: int) -> None:
        if received > self.max_bytes:
            part.unlink(missing_ok=True)
            raise FetchError(
                f"{url}: the server sent more than the {self.max_bytes} bytes this download may have; "
                "stopped and removed what it sent"
            )
        if time.monotonic() > self.ends_at:
            raise FetchError(
                f"{url}: not complete after {self.deadline:.0f} s (the deadline; --deadline to change it); "
                f"{received} bytes kept in {part}, run again to resume"
            )


class _HttpRedirectsOnly(urllib.request.HTTPRedirectHandler):
    """Follows redirects to http and https alone (urllib refuses ``file:`` too, but as an
    HTTPError that reads like any other 3xx: a redirect to ``file:///etc/passwd`` was reported
    as a redirect loop)."""

    def http_error_302(self, req, fp, code, msg, headers):  # noqa: ANN001, ANN201 (urllib's)
        location = headers.get("location") or headers.get("uri")
        if location:
            target = urllib.parse.urljoin(req.full_url, location)
            if urllib.parse.urlsplit(target).scheme.lower() not in ("http", "https"):
                raise RedirectRefused(target)
        return super().http_error_302(req, fp, code, msg, headers)

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302


def _open(url: str, start: int, timeout: float):
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    if start:
        request.add_header("Range", f"bytes={start}-")
    opener = urllib.request.build_opener(_HttpRedirectsOnly)  # env proxies honoured
    return opener.open(request, timeout=timeout)


def _transfer(url: str, part: Path, timeout: float, progress: bool, bounds: Bounds) -> None:
    """One attempt: append to ``part`` from where it stops (restart if the server ignores Range)."""
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
        total = start + int(length) if length is not None and length.isdigit() else None
        if total is not None:
            bounds.check_announced(url, total)
        received = _receive(url, response, part, start, total, progress, bounds)
        if total is not None and received < total:
            raise http.client.IncompleteRead(b"", total - received)


def _receive(
    url: str, response, part: Path, start: int, total: int | None, progress: bool, bounds: Bounds
) -> int:
    """The body into ``part`` block by block, each block checked against ``bounds``."""
    from tqdm.auto import tqdm

    name = url.rsplit("/", 1)[-1] or url
    received = start
    with (
        open(part, "ab" if start else "wb") as out,
        tqdm(
            total=total,
            initial=start,
            unit="B",
            unit_scale=True,
            desc=name,
            disable=None if progress else True,
            leave=False,
        ) as bar,
    ):
        while block := response.read1(CHUNK):  # what has arrived: the deadline is checked as it drips
            out.write(block)
            received += len(block)
            bar.update(len(block))
            bounds.check_received(url, part, received)
        out.flush()
        os.fsync(out.fileno())
    return received


def _http_error(url: str, exc: urllib.error.HTTPError) -> FetchError:
    """One line: urllib's redirect-loop error carries three lines ending in the last reason."""
    if 300 <= exc.code < 400:
        return FetchError(
            f"{url}: redirected in a loop (HTTP {exc.code}, too many redirects); not downloading it"
        )
    reason = " ".join(str(exc.reason).split())
    return FetchError(f"{url}: HTTP {exc.code} {reason}")


def receive(
    url: str,
    part: Path,
    *,
    size: int | None = None,
    max_bytes: int = MAX_BYTES,
    deadline: float = DEADLINE,
    timeout: float = 30.0,
    retries: int = 3,
    progress: bool = True,
) -> Path:
    """Download ``url`` into ``part`` (resuming what is there) within the bounds above; the
    caller checks the bytes and gives them their final name. Errors are one line."""
    bounds = Bounds.start(size, max_bytes, deadline)
    part.parent.mkdir(parents=True, exist_ok=True)
    for attempt in range(retries + 1):
        try:
            _transfer(url, part, timeout, progress, bounds)
            return part
        except urllib.error.HTTPError as exc:
            raise _http_error(url, exc) from None
        except RedirectRefused as exc:
            raise FetchError(
                f"{url}: redirected to {exc.args[0]}; only http and https redirects are followed, not downloading it"
            ) from None
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
    return part


def check_download(url: str, part: Path, *, size: int | None, sha256: str | None) -> None:
    """Raise (and remove ``part``) unless its length and sha256 are the ones declared."""
    actual = part.stat().st_size
    if size is not None and actual != size:
        part.unlink()
        raise FetchError(f"{url}: {actual} bytes received, the record says {size}; removed them, run again")
    if sha256 is not None:
        digest = sha256_of(part)
        if digest != sha256:
            part.unlink()
            raise ChecksumError(f"{url}: sha256 {digest[:16]}... differs from the expected {sha256[:16]}...")


def download(
    url: str,
    destination: str | Path,
    *,
    sha256: str | None = None,
    size: int | None = None,
    max_bytes: int = MAX_BYTES,
    deadline: float = DEADLINE,
    timeout: float = 30.0,
    retries: int = 3,
    progress: bool = True,
) -> Path:
    """Download ``url`` to ``destination`` (resuming a ``.part`` left by an earlier attempt),
    check its length and sha256 where given, then rename it into place. Errors are one line:
    :class:`FetchError` (offline, HTTP status, timeouts, bounds) or :class:`ChecksumError`."""
    destination = Path(destination)
    part = destination.with_name(destination.name + ".part")
    receive(
        url,
        part,
        size=size,
        max_bytes=max_bytes,
        deadline=deadline,
        timeout=timeout,
        retries=retries,
        progress=progress,
    )
    check_download(url, part, size=size, sha256=sha256)
    os.replace(part, destination)  # its bytes were fsynced as they were received
    fsync_directory(destination.parent)
    return destination
