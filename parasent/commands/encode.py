"""``parasent encode``: sentences (one per line) to .npy, JSONL, or text rows (.txt, .tsv).

The output's extension says its format (``--format`` for a name without a known one); an
extension that contradicts ``--format``, or one that names no format, is refused rather than
written as something else."""

from __future__ import annotations

import argparse
import io
import itertools
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from parasent.commands.common import MODEL_HELP, add_quiet, check_output_file, default_model
from parasent.support.validation import positive_int

# The .npy header's room is reserved first (zeros: no .npy reader takes the file of a killed
# run for a result) and the header written at the end, with the row count: one pass over the
# input (stdin included), and the final file appears only when complete.
NPY_HEADER_BYTES = 128


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "encode", help="encode sentences (one per line) to .npy, JSONL, .txt or .tsv"
    )
    parser.add_argument(
        "input", nargs="?", default="-", help="text file, one sentence per line ('-' = stdin)"
    )
    parser.add_argument("--model", help=MODEL_HELP)
    parser.add_argument(
        "-o",
        "--output",
        default="-",
        help="output path: .npy, .jsonl ({text, embedding} per line), .txt (a vector per line, "
        "space-separated) or .tsv (tab-separated); '-' = stdout (JSONL unless --format)",
    )
    parser.add_argument(
        "--format", choices=sorted(set(FORMATS.values())), help="output format (default: from the extension)"
    )
    parser.add_argument("--normalize", action="store_true", help="unit-length vectors")
    parser.add_argument("--batch-size", type=positive_int, default=4096)
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=1,
        help="encode with N processes of one thread each (one process already encodes on every core, "
        "PARASENT_NUM_THREADS threads), each writing one shard OUTPUT-0000k-of-0000N.EXT of consecutive "
        "lines (their concatenation is the single-process output; needs a file input and output)",
    )
    add_quiet(parser)


# output extension -> format
FORMATS = {".npy": "npy", ".jsonl": "jsonl", ".txt": "txt", ".tsv": "tsv"}
TEXT_SEPARATORS = {"txt": " ", "tsv": "\t"}


def output_format(output: str, given: str | None) -> str:
    """The format ``output`` is written in: its extension's, never contradicting ``--format``;
    '-' is JSONL unless ``--format``; an unknown extension needs ``--format``."""
    from parasent.errors import OptionError

    if output == "-":
        if given == "npy":
            raise OptionError("--output -: .npy output needs a file path (--output FILE.npy)")
        return given or "jsonl"
    suffix = Path(output).suffix.lower()
    implied = FORMATS.get(suffix)
    if implied is not None and given is not None and implied != given:
        raise OptionError(f"--output {output}: a {suffix} file is not --format {given}")
    if implied is None and given is None:
        known = ", ".join(FORMATS)
        raise OptionError(
            f"--output {output}: {suffix or 'no extension'} names no output format (known: {known}); "
            "name the file by its format or pass --format"
        )
    return implied or given


def input_lines(source: str) -> Iterator[str]:
    """The lines of ``source`` ('-' = stdin) without their line ends: split on ``\\n`` only (a
    bare ``\\r`` is part of a sentence), so there is one output row per input line; a line that
    is not UTF-8 is an error naming the file and line."""
    from parasent.data.lines import LineReader

    if source == "-":
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:  # a text stream without bytes underneath (an embedding application's)
            stream = io.BytesIO(sys.stdin.read().encode("utf-8", "surrogateescape"))
        reader = LineReader("<stdin>", handle=stream)
    else:
        reader = LineReader(source, stream_ok=True)  # a pipe given as a path, <(zcat file), is a stream
    for _, text in reader:
        yield text


class BlankCount:
    """Counts the blank (empty or whitespace-only) lines passing through: each is a row of
    zeros, kept so that row i is line i, and the count is printed so none goes unnoticed."""

    def __init__(self, lines: Iterator[str]) -> None:
        self.lines, self.blank = lines, 0

    def __iter__(self) -> Iterator[str]:
        for text in self.lines:
            if not text.strip():
                self.blank += 1
            yield text


def _chunks(lines: Iterator[str], size: int) -> Iterator[list[str]]:
    """Lists of at most ``size`` lines, read lazily."""
    while True:
        chunk = list(itertools.islice(lines, size))
        if not chunk:
            return
        yield chunk


def npy_header(rows: int, dim: int) -> bytes:
    """A version 1.0 ``.npy`` header of exactly :data:`NPY_HEADER_BYTES` bytes for float32 rows."""
    text = f"{{'descr': '<f4', 'fortran_order': False, 'shape': ({rows}, {dim}), }}"
    body = text.ljust(NPY_HEADER_BYTES - 10 - 1) + "\n"
    return b"\x93NUMPY\x01\x00" + len(body).to_bytes(2, "little") + body.encode("latin-1")


def _write_npy(out: IO[bytes], chunks: Iterator, dim: int, bar) -> int:
    import numpy as np

    out.write(bytes(NPY_HEADER_BYTES))  # not a header until the last write
    count = 0
    for chunk, vectors in chunks:
        out.write(np.ascontiguousarray(vectors, dtype="<f4").tobytes())
        count += len(chunk)
        bar.update(len(chunk))
    out.seek(0)
    out.write(npy_header(count, dim))
    return count


def _write_jsonl(out: IO[str], chunks: Iterator, bar) -> int:
    count = 0
    for chunk, vectors in chunks:
        for text, vector in zip(chunk, vectors, strict=True):
            out.write(json.dumps({"text": text, "embedding": [round(float(x), 6) for x in vector]}) + "\n")
        count += len(chunk)
        bar.update(len(chunk))
    return count


def _write_text_rows(out: IO[str], chunks: Iterator, separator: str, bar) -> int:
    import numpy as np

    count = 0
    for chunk, vectors in chunks:
        np.savetxt(out, np.asarray(vectors, dtype=np.float32), fmt="%.7g", delimiter=separator)
        count += len(chunk)
        bar.update(len(chunk))
    return count


def write_vectors(model, lines: Iterator[str], output: str, fmt: str, args: argparse.Namespace, bar) -> int:
    """Encode ``lines`` chunk by chunk into ``output`` (a path, written beside it and renamed at
    the end, or '-'); ``bar.update(n)`` counts sentences. Returns the count."""
    from parasent.support.staging import atomic_file

    chunks = (
        (chunk, model.encode(chunk, batch_size=len(chunk), normalize_embeddings=args.normalize))
        for chunk in _chunks(lines, args.batch_size)
    )
    if fmt == "npy":
        with atomic_file(Path(output), "wb") as out:
            return _write_npy(out, chunks, model.dim, bar)

    def write(out: IO[str]) -> int:
        if fmt in TEXT_SEPARATORS:
            return _write_text_rows(out, chunks, TEXT_SEPARATORS[fmt], bar)
        return _write_jsonl(out, chunks, bar)

    if output == "-":
        return write(sys.stdout)
    with atomic_file(Path(output), "w", encoding="utf-8") as out:
        return write(out)


def run(args: argparse.Namespace) -> int:
    """Streams: at most one chunk of ``--batch-size`` sentences is in memory at a time, so a
    million sentences encode in bounded memory. A file output is written beside its path and
    renamed over it at the end: an interrupted run leaves the previous file whole."""
    from tqdm.auto import tqdm

    from parasent.core.model import load
    from parasent.data.lines import check_input_file

    fmt = output_format(args.output, args.format)
    check_output_file(args.output, "--output")
    if args.input != "-":
        # a missing file, a directory or a device fails before the model loads; --workers reads twice
        check_input_file(args.input, stream_ok=args.workers == 1)
    if args.workers > 1:
        from parasent.commands.encode_workers import encode_sharded

        return encode_sharded(args, fmt)
    model = load(args.model or default_model())
    # A bar on stderr when it is a terminal (tqdm disables itself otherwise), counting sentences.
    lines = BlankCount(input_lines(args.input))
    with tqdm(desc="encode", unit="sentence", disable=True if args.quiet else None) as bar:
        count = write_vectors(model, iter(lines), args.output, fmt, args, bar)
    if args.output != "-":
        print(f"encoded {count} sentence(s) to {args.output}", file=sys.stderr)
    if lines.blank:
        print(f"{lines.blank} blank line(s) encoded as zero vectors (one row per line)", file=sys.stderr)
    return 0
