"""``parasent encode --workers N``: N processes, each encoding a run of consecutive lines into a
shard of its own, so that the shards, concatenated in order, are the single-process output.

The input is read twice without holding it: once to count the lines and once to find the byte
offset where each worker's lines start; a worker seeks there and streams its lines chunk by
chunk (:func:`~parasent.commands.encode.write_vectors`), so memory stays at one chunk per
process whatever the input size.
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path


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


def _encode_range(args: argparse.Namespace, fmt: str, offset: int, count: int, output: str) -> int:
    import itertools
    import os

    from parasent.commands.common import default_model
    from parasent.commands.encode import write_vectors
    from parasent.core.model import load

    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("PARASENT_NUM_THREADS", "1")  # the processes are the parallelism
    model = load(args.model or default_model())
    from tqdm.auto import tqdm

    with open(args.input, "rb") as raw, tqdm(disable=True) as bar:
        raw.seek(offset)
        # one sentence per line, split on \n only (as the single-process path reads them)
        lines = (
            line.decode("utf-8").removesuffix("\n").removesuffix("\r")
            for line in itertools.islice(raw, count)
        )
        return write_vectors(model, lines, output, fmt, args, bar)


def encode_sharded(args: argparse.Namespace, fmt: str) -> int:
    if args.input == "-" or args.output == "-":
        raise SystemExit("parasent: error: --workers needs an input file and an --output path")
    offsets, counts = line_starts(args.input, args.workers)
    outputs = shard_paths(args.output, args.workers)
    with ProcessPoolExecutor(args.workers, mp_context=get_context("spawn")) as pool:
        jobs = [
            pool.submit(_encode_range, args, fmt, offset, count, output)
            for offset, count, output in zip(offsets, counts, outputs, strict=True)
        ]
        done = sum(job.result() for job in jobs)
    print(
        f"encoded {done} sentence(s) to {args.workers} shards {outputs[0]} ... {outputs[-1]}", file=sys.stderr
    )
    return 0
