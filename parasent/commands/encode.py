"""``parasent encode``: sentences (one per line) to .npy or JSONL."""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import sys
import tempfile

from parasent.commands.common import MODEL_HELP, default_model


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("encode", help="encode sentences (one per line) to .npy or JSONL")
    parser.add_argument(
        "input", nargs="?", default="-", help="text file, one sentence per line ('-' = stdin)"
    )
    parser.add_argument("--model", help=MODEL_HELP)
    parser.add_argument(
        "-o", "--output", default="-", help="output path (.npy or .jsonl); '-' = JSONL on stdout"
    )
    parser.add_argument(
        "--format", choices=["npy", "jsonl"], help="output format (default: from the extension)"
    )
    parser.add_argument("--normalize", action="store_true", help="unit-length vectors")
    parser.add_argument("--batch-size", type=int, default=4096)
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="encode with N processes, each writing one shard OUTPUT-0000k-of-0000N.EXT of consecutive "
        "lines (their concatenation is the single-process output; needs a file input and output)",
    )


def _chunks(handle, size: int):
    """Lists of at most ``size`` lines (without their line ends), read lazily."""
    lines = (line.rstrip("\r\n") for line in handle)
    while True:
        chunk = list(itertools.islice(lines, size))
        if not chunk:
            return
        yield chunk


def write_vectors(model, lines, total: int, output: str, fmt: str, args, progress) -> int:
    """Encode ``lines`` (``total`` of them) chunk by chunk into ``output`` (a path or '-');
    one chunk of ``--batch-size`` sentences in memory at a time. Returns the count."""
    import numpy as np

    count = 0
    if fmt == "npy":
        # header, then one chunk at a time: written pages are not kept mapped, so resident
        # memory stays at one chunk whatever the number of sentences
        with open(output, "wb") as out:
            header = {"descr": "<f4", "fortran_order": False, "shape": (total, model.dim)}
            np.lib.format.write_array_header_1_0(out, header)
            for chunk in _chunks(lines, args.batch_size):
                vectors = model.encode(chunk, batch_size=len(chunk), normalize=args.normalize)
                out.write(np.ascontiguousarray(vectors, dtype="<f4").tobytes())
                count += len(chunk)
                progress(len(chunk))
        return count
    sink = sys.stdout if output == "-" else open(output, "w", encoding="utf-8")
    try:
        for chunk in _chunks(lines, args.batch_size):
            vectors = model.encode(chunk, batch_size=len(chunk), normalize=args.normalize)
            for text, vector in zip(chunk, vectors, strict=True):
                record = {"text": text, "embedding": [round(float(x), 6) for x in vector]}
                sink.write(json.dumps(record) + "\n")
            count += len(chunk)
            progress(len(chunk))
    finally:
        if sink is not sys.stdout:
            sink.close()
    return count


def run(args: argparse.Namespace) -> int:
    """Streams: at most one chunk of ``--batch-size`` sentences is in memory at a time, so a
    million sentences encode in bounded memory (``.npy``: the header, then chunk after chunk)."""
    from parasent.model import load

    fmt = args.format or ("npy" if args.output.endswith(".npy") else "jsonl")
    if fmt == "npy" and args.output == "-":
        raise SystemExit("parasent: error: .npy output needs a file path (--output FILE.npy)")
    if args.workers > 1:
        from parasent.commands.encode_workers import encode_sharded

        return encode_sharded(args, fmt)
    model = load(args.model or default_model())
    spooled = None
    if args.input == "-" and fmt == "npy":
        # the .npy header needs the row count first: spool stdin to a temporary file
        spooled = tempfile.TemporaryFile("w+", encoding="utf-8")
        shutil.copyfileobj(sys.stdin, spooled)
        spooled.seek(0)
    handle = spooled or (sys.stdin if args.input == "-" else open(args.input, encoding="utf-8"))
    from tqdm.auto import tqdm

    # A bar on stderr when it is a terminal (tqdm disables itself otherwise), counting sentences.
    bar = tqdm(desc="encode", unit="sentence", disable=None)
    try:
        total = 0
        if fmt == "npy":
            total = sum(1 for _ in handle)
            handle.seek(0)
            bar.total = total
        count = write_vectors(model, handle, total, args.output, fmt, args, bar.update)
    finally:
        bar.close()
        if handle is not sys.stdin:
            handle.close()
    if args.output != "-":
        print(f"encoded {count} sentence(s) to {args.output}", file=sys.stderr)
    return 0
