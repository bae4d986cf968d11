"""A text file encoded by N processes, each writing a run of consecutive lines into a shard of
its own, so that the shards, concatenated in order, are the one-process output
(``parasent encode --workers N``).

The input is read twice without holding it: once to count the lines and once to find the byte
offset where each worker's lines start; a worker seeks there and streams its lines chunk by
chunk (:func:`~parasent.core.vector_files.write_vectors`), so memory stays at one chunk per
process whatever the input size. Each worker loads the model itself from its path and encodes on
one thread: the processes are the parallelism.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

from parasent.core.vector_files import ZeroRowTally, write_vectors


def shard_paths(output: str, workers: int) -> list[str]:
    """``out.npy`` -> ``out-00000-of-00004.npy``, ...: in the order of the input lines."""
    path = Path(output)
    return [str(path.with_name(f"{path.stem}-{k:05d}-of-{workers:05d}{path.suffix}")) for k in range(workers)]


def line_starts(path: str, workers: int) -> tuple[list[int], list[int]]:
    """Byte offsets and line counts of ``workers`` runs of consecutive lines (sizes differ by <= 1)."""
    with open(path, "rb") as handle:
        total = sum(1 for _ in handle)
    counts = [total // workers + (1 if k < total % workers else 0) for k in range(workers)]
    firsts = {sum(counts[:k]): k for k in range(workers)}
    offsets = [0] * workers
    with open(path, "rb") as handle:
        position, line = 0, 0
        for raw in handle:
            for k in [firsts[line]] if line in firsts else []:
                offsets[k] = position
            position += len(raw)
            line += 1
    for k in range(workers):  # empty runs at the end start at the end of the file
        if counts[k] == 0:
            offsets[k] = position
    return offsets, counts


def _encode_range(
    model_path: str,
    source: str,
    fmt: str,
    offset: int,
    count: int,
    output: str,
    batch_size: int,
    normalize: bool,
    overwrite: bool = True,
    first_line: int = 1,
) -> tuple[int, ZeroRowTally]:
    """One worker: ``count`` lines of ``source`` from byte ``offset`` (line ``first_line``) into
    ``output``; the count written and the rows of zeros among them."""
    import itertools
    import os

    from parasent.core.model import load

    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("PARASENT_NUM_THREADS", "1")  # the processes are the parallelism
    model = load(model_path)
    with open(source, "rb") as raw:
        raw.seek(offset)
        # one sentence per line, split on \n only (as the one-process path reads them)
        lines = (
            line.decode("utf-8").removesuffix("\n").removesuffix("\r")
            for line in itertools.islice(raw, count)
        )
        zero = ZeroRowTally(first_line)
        written = write_vectors(
            model,
            lines,
            output,
            fmt,
            batch_size=batch_size,
            normalize=normalize,
            overwrite=overwrite,
            watch=zero,
        )
        return written, zero


def encode_sharded(
    model_path: str,
    source: str,
    output: str,
    fmt: str,
    workers: int,
    *,
    batch_size: int,
    normalize: bool = False,
    overwrite: bool = True,
) -> tuple[int, list[str], ZeroRowTally]:
    """Encode the lines of the file ``source`` with the model at ``model_path`` into ``workers``
    shards beside ``output`` (:func:`shard_paths`) in ``fmt`` (see
    :func:`~parasent.core.vector_files.write_vectors`, which takes ``overwrite``). Returns the
    sentence count, the shards and the rows of zeros (blank lines, lines of no known unit) in
    all of them, numbered by their lines in ``source``."""
    offsets, counts = line_starts(source, workers)
    outputs = shard_paths(output, workers)
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        firsts = [1 + sum(counts[:k]) for k in range(workers)]
        jobs = [
            pool.submit(
                _encode_range,
                model_path,
                source,
                fmt,
                offset,
                count,
                path,
                batch_size,
                normalize,
                overwrite,
                first,
            )
            for offset, count, path, first in zip(offsets, counts, outputs, firsts, strict=True)
        ]
        results = [job.result() for job in jobs]
    zero = ZeroRowTally()
    for _, shard in results:
        zero.add(shard)
    return sum(written for written, _ in results), outputs, zero
