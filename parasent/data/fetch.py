"""``parasent data fetch`` / ``list``: the public data sets of :mod:`parasent.data.sources`,
downloaded, unpacked into the readers' layout, and verified against their sha256.

A target's sha256 is of its bytes; a glob's, of its files' sorted ``relative-path  sha256``
lines (one digest for a folder of 2,000 files). Each target is written beside its place and
renamed into it only once verified, so a present target is a complete one; the downloads
themselves resume (:mod:`parasent.data.download`).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from parasent.data.checksums import SHA256 as CHECKSUMS  # the dataset registry's digests
from parasent.data.download import download, sha256_of
from parasent.data.sources import BY_NAME, Source
from parasent.errors import ChecksumError, FetchError

DOWNLOADS = ".downloads"  # under the data directory: the archives, kept for re-extraction
GLOB_CHARS = "*?["


def is_glob(target: str) -> bool:
    return any(ch in target for ch in GLOB_CHARS)


def glob_folder(target: str) -> str:
    """The folder a glob target's files are extracted into (its part before any pattern)."""
    head = target[: min(target.index(ch) for ch in GLOB_CHARS if ch in target)]
    return head.rsplit("/", 1)[0]


def target_digest(root: Path, target: str) -> str:
    """sha256 of a file, or of a glob's sorted ``relative-path  sha256`` lines."""
    if not is_glob(target):
        return sha256_of(root / target)
    lines = [f"{p.relative_to(root).as_posix()}  {sha256_of(p)}\n" for p in sorted(root.glob(target))]
    return hashlib.sha256("".join(lines).encode()).hexdigest()


def gzip_9n(data: bytes) -> bytes:
    """What ``gzip -9n`` writes: deflate level 9 (memLevel 9), no name, time 0, OS unix."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
    body = compressor.compress(data) + compressor.flush()
    header = bytes([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 2, 3])
    return header + body + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)


@dataclass
class Status:
    source: str
    target: str
    state: str  # present, missing, corrupt, unverified (no checksum known)


def status(root: Path, names: list[str] | None = None) -> Iterator[Status]:
    """Each target of the named sources (default: all of them, derived ones included)."""
    for source in _sources(names or list(BY_NAME)):
        for target in source.targets:
            expected = CHECKSUMS.get(target)
            if not (any(root.glob(target)) if is_glob(target) else (root / target).exists()):
                state = "missing"
            elif expected is None:
                state = "unverified"
            else:
                state = "present" if target_digest(root, target) == expected else "corrupt"
            yield Status(source.name, target, state)


def _sources(names: list[str] | None) -> list[Source]:
    from parasent.data.sources import DEFAULT

    unknown = [n for n in names or [] if n not in BY_NAME]
    if unknown:
        raise FetchError(f"unknown data set(s) {', '.join(unknown)} (known: {', '.join(BY_NAME)})")
    return [BY_NAME[n] for n in (names or DEFAULT)]


def _members(archive: Path) -> tuple[list[str], Callable[[str], bytes]]:
    if zipfile.is_zipfile(archive):
        handle = zipfile.ZipFile(archive)
        return [i.filename for i in handle.infolist() if not i.is_dir()], handle.read
    if tarfile.is_tarfile(archive):
        tar = tarfile.open(archive)
        names = [m.name for m in tar.getmembers() if m.isfile()]
        return names, lambda name: tar.extractfile(name).read()  # type: ignore[union-attr]
    raise FetchError(f"{archive}: neither a zip nor a tar archive")


def _sts_lines(inputs: bytes, scores: bytes) -> bytes:
    """``STS.input`` (sent1, sent2, maybe more columns) + ``STS.gs`` -> ``score\\ts1\\ts2``."""
    pairs = inputs.decode("utf-8").splitlines()
    gold = scores.decode("utf-8").splitlines()
    gold += [""] * (len(pairs) - len(gold))
    out = []
    for pair, score in zip(pairs, gold, strict=False):
        fields = pair.split("\t")
        out.append(f"{score.strip()}\t{fields[0]}\t{fields[1] if len(fields) > 1 else ''}\n")
    return "".join(out).encode("utf-8")


def _write_verified(data: bytes, path: Path, transform: str, expected: str | None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_bytes(gzip_9n(data) if transform == "gzip" else data)
    if expected is not None:
        actual = sha256_of(tmp)
        if actual != expected:
            tmp.unlink()
            raise ChecksumError(
                f"{path}: sha256 {actual[:16]}... differs from the registry's {expected[:16]}..."
            )
    os.replace(tmp, path)


def _extract(source: Source, downloaded: Path, root: Path) -> None:
    names, read = ([], None) if all(m == "" for m, _, _ in source.files) else _members(downloaded)
    for member, target, transform in source.files:
        expected = CHECKSUMS.get(target)
        if member == "":
            _write_verified(downloaded.read_bytes(), root / target, transform, expected)
        elif member.endswith("/"):
            _extract_folder(member, root, target, transform, names, read, expected)
        elif transform == "sts":
            gold = member.replace(".input.", ".gs.")
            _write_verified(_sts_lines(read(member), read(gold)), root / target, "", expected)
        else:
            if member not in names:
                raise FetchError(f"{source.url}: the download lacks {member}")
            _write_verified(read(member), root / target, transform, expected)


def _extract_folder(prefix, root: Path, target: str, transform, names, read, expected) -> None:
    """Every file under ``prefix`` into a staging copy of the target's folder, verified (the
    glob's digest, as if in place), then renamed in."""
    folder = root / glob_folder(target)
    staging = folder.with_name(f".{folder.name}.tmp-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    for name in names:
        if not name.startswith(prefix):
            continue
        relative = name[len(prefix) :]
        gz = transform == "gzip" and relative.endswith(".txt")
        _write_verified(read(name), staging / (relative + (".gz" if gz else "")), "gzip" if gz else "", None)
    if expected is not None:
        pattern = target[len(glob_folder(target)) + 1 :]
        prefix_path = glob_folder(target)
        lines = [
            f"{prefix_path}/{p.relative_to(staging).as_posix()}  {sha256_of(p)}\n"
            for p in sorted(staging.glob(pattern))
        ]
        if hashlib.sha256("".join(lines).encode()).hexdigest() != expected:
            shutil.rmtree(staging)
            raise ChecksumError(f"{root / target}: the files' sha256 differ from the registry's")
    if folder.exists():
        shutil.rmtree(folder)
    staging.rename(folder)


def fetch(
    root: Path, names: list[str] | None = None, *, say: Callable[[str], None] = print, progress: bool = True
) -> int:
    """Fetch the named sources (default: every reproducible one) into ``root``; returns how
    many targets were written. Present, verified targets are skipped."""
    written = 0
    for source in _sources(names):
        states = {s.target: s.state for s in status(root, [source.name])}
        if all(state == "present" for state in states.values()):
            say(f"{source.name}: present")
            continue
        if source.derived:
            say(
                f"{source.name}: not fetched: the data directory holds {source.derived}; the original is {source.url}"
            )
            continue
        archive = root / DOWNLOADS / source.url.rsplit("/", 1)[-1]
        if not archive.is_file():
            download(source.url, archive, progress=progress)
        try:
            _extract(source, archive, root)
        except ChecksumError:
            archive.unlink()  # a bad download is not kept: the next run fetches it again
            raise
        written += len(source.files)
        say(f"{source.name}: {len(source.files)} file(s) verified in {root}")
    return written
