"""Seeded mutation of valid inputs, and the harness every fuzz test shares.

Each input starts from a valid sample and gets one to three mutations: byte flips, inserted
or deleted bytes, truncation, duplicated or swapped lines, interesting tokens (NaN, huge and
negative numbers, Unicode digits that pass ``str.isdigit``, a BOM, lone surrogates encoded
as bytes, tabs, separators), a huge line, and for gzip inputs truncation or corruption of
the compressed stream. The budget is ``PARASENT_FUZZ_N`` inputs per target (CI: a few
hundred; the full run: ``PARASENT_FUZZ_N=10000``, see docs/robustness.md).
"""

from __future__ import annotations

import gzip
import os
import random
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

FUZZ_N = int(os.environ.get("PARASENT_FUZZ_N", "150"))
TIMEOUT_S = float(os.environ.get("PARASENT_FUZZ_TIMEOUT", "10"))

TOKENS = [
    b"nan",
    b"NaN",
    b"inf",
    b"-inf",
    b"1e308",
    b"1e999",
    b"-1",
    b"-0",
    b"0",
    b"5.0001",
    b"-5",
    b"9" * 400,
    "\u00b3".encode(),
    "\u0663".encode(),
    "\ufeff".encode(),
    b"\xed\xa0\x80",
    b"\xff\xfe",
    b"\t",
    b"\t\t",
    b"|||",
    b" ||| ",
    b"\r",
    b"\r\n",
    b"\n",
    b"\x00",
    b"=",
    b"-",
    b"(3, 2)",
    b"( 99999 , 1 )",
    b"true\t",
    b"----\t",
    b" ",
    b"e",
    b"Mr. ",
    "\u201c".encode(),
    b"1-2",
    b"999999999-1",
]


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One to three random mutations of ``data``."""
    for _ in range(rng.randint(1, 3)):
        data = _MUTATIONS[rng.randrange(len(_MUTATIONS))](data, rng)
    return data


def _flip(data: bytes, rng: random.Random) -> bytes:
    if not data:
        return bytes([rng.randrange(256)])
    i = rng.randrange(len(data))
    return data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1 :]


def _insert_token(data: bytes, rng: random.Random) -> bytes:
    i = rng.randint(0, len(data))
    return data[:i] + rng.choice(TOKENS) + data[i:]


def _replace_field(data: bytes, rng: random.Random) -> bytes:
    """Replace one tab-, space- or '|||'-separated field of one line by a token."""
    lines = data.split(b"\n")
    k = rng.randrange(len(lines))
    separator = rng.choice([b"\t", b" ", b"|||", b","])
    parts = lines[k].split(separator)
    parts[rng.randrange(len(parts))] = rng.choice(TOKENS)
    lines[k] = separator.join(parts)
    return b"\n".join(lines)


def _delete(data: bytes, rng: random.Random) -> bytes:
    if not data:
        return data
    i = rng.randrange(len(data))
    return data[:i] + data[i + rng.randint(1, 16) :]


def _truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randint(0, len(data))]


def _lines(data: bytes, rng: random.Random) -> bytes:
    lines = data.split(b"\n")
    k = rng.randrange(len(lines))
    action = rng.randrange(3)
    if action == 0:
        lines.insert(k, lines[k])
    elif action == 1:
        del lines[k]
    else:
        j = rng.randrange(len(lines))
        lines[k], lines[j] = lines[j], lines[k]
    return b"\n".join(lines)


def _huge_line(data: bytes, rng: random.Random) -> bytes:
    unit = rng.choice([b"Mr. ", b"a", b"1 ", b"x\t", b"word. Word "])
    # mostly tens of KB (a quadratic step shows there too); now and then past the 1 MiB line cap
    return data + b"\n" + unit * (300_000 if rng.random() < 0.05 else 10_000)


_MUTATIONS = [_flip, _insert_token, _replace_field, _replace_field, _delete, _truncate, _lines, _huge_line]


def gzip_variant(data: bytes, rng: random.Random) -> bytes:
    """``data`` gzipped, possibly truncated or with flipped bytes in the compressed stream."""
    packed = gzip.compress(data, mtime=0)
    action = rng.randrange(3)
    if action == 0:
        return packed[: rng.randint(2, len(packed))]
    if action == 1:
        i = rng.randrange(10, len(packed)) if len(packed) > 10 else 0
        return packed[:i] + bytes([packed[i] ^ 0xFF]) + packed[i + 1 :]
    return packed


def inputs(sample: bytes, seed: int, n: int = FUZZ_N, gz: bool = True) -> Iterator[tuple[int, bytes]]:
    """``n`` seeded mutants of ``sample`` (a quarter of them gzipped, when ``gz``)."""
    rng = random.Random(seed)
    for index in range(n):
        data = mutate(sample, rng)
        if gz and rng.random() < 0.25:
            data = gzip_variant(data, rng)
        yield index, data


class Hang(Exception):
    pass


@contextmanager
def time_limit(seconds: float = TIMEOUT_S) -> Iterator[None]:
    """Raise :class:`Hang` when the body runs longer than ``seconds`` (main thread, POSIX)."""

    def alarm(*_: object) -> None:
        raise Hang(f"no result after {seconds:g}s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@dataclass
class Tally:
    """Inputs tried and failures found by one fuzz target (printed by the full run)."""

    name: str
    inputs: int = 0
    rejected: int = 0  # inputs refused with parasent's own error (expected)
    failures: list[str] = field(default_factory=list)

    def check(self, index: int, run: Callable[[], object], names: str, allowed: tuple[type, ...]) -> None:
        """Run one input: it must succeed or raise one of ``allowed`` whose message names ``names``."""
        self.inputs += 1
        if self.inputs % 1000 == 0:
            print(f"  {self.report()}", flush=True)  # progress of a long run (pytest -s)
        try:
            with time_limit():
                run()
        except allowed as exc:
            self.rejected += 1
            if names not in str(exc):
                self.failures.append(f"input {index}: error does not name {names}: {exc}")
        except Hang as exc:
            self.failures.append(f"input {index}: hang ({exc})")
        except Exception as exc:  # noqa: BLE001 - the point: anything else is a finding
            self.failures.append(f"input {index}: {type(exc).__name__}: {str(exc)[:200]}")

    def report(self) -> str:
        return f"{self.name}: {self.inputs} inputs, {self.rejected} rejected cleanly, {len(self.failures)} failures"
