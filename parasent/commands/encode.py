"""``parasent encode``: sentences (one per line) to .npy, JSONL, or text rows (.txt, .tsv).

The output's extension says its format (``--format`` for a name without a known one); an
extension that contradicts ``--format``, or one that names no format, is refused rather than
written as something else."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from parasent.commands.common import MODEL_HELP, add_overwrite, add_quiet, check_output_file, default_model
from parasent.core.vector_files import FORMATS, formats_named
from parasent.data.text_input import input_lines
from parasent.support.validation import positive_int


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "encode",
        help="encode sentences (one per line) to vectors, in a file or on stdout (parasent encode -h: the formats)",
    )
    parser.add_argument(
        "input", nargs="?", default="-", help="text file, one sentence per line ('-' = stdin)"
    )
    parser.add_argument("--model", help=MODEL_HELP)
    parser.add_argument(
        "-o",
        "--output",
        default="-",
        help=f"output path: {formats_named()}; '-' = stdout (JSONL unless --format)",
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
    add_overwrite(parser, "a file already at --output (or its --workers shards)")
    add_quiet(parser)


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


def run(args: argparse.Namespace) -> int:
    """Streams (:func:`parasent.core.vector_files.write_vectors`): at most one chunk of
    ``--batch-size`` sentences is in memory at a time, and a file output appears whole or not at all."""
    from tqdm.auto import tqdm

    from parasent.core.model import load
    from parasent.core.vector_files import ZeroRowTally, write_vectors
    from parasent.support.lines import check_input_file

    fmt = output_format(args.output, args.format)
    _check_outputs(args)
    if args.input != "-":
        # a missing file, a directory or a device fails before the model loads; --workers reads twice
        check_input_file(args.input, stream_ok=args.workers == 1)
    if args.workers > 1:
        return _run_sharded(args, fmt)
    model = load(args.model or default_model())
    # A bar on stderr when it is a terminal (tqdm disables itself otherwise), counting sentences.
    zero = ZeroRowTally()
    with tqdm(
        total=_bar_total(args), desc="encode", unit="sentence", disable=True if args.quiet else None
    ) as bar:
        count = write_vectors(
            model,
            input_lines(args.input),
            args.output,
            fmt,
            batch_size=args.batch_size,
            normalize=args.normalize,
            progress=bar,
            overwrite=args.overwrite,
            watch=zero,
        )
    if args.output != "-":
        print(f"encoded {count} sentence(s) to {args.output}", file=sys.stderr)
    for note in zero.notes():
        print(note, file=sys.stderr)
    return 0


def _bar_total(args: argparse.Namespace) -> int | None:
    """The lines of a regular input file, counted first when a bar shows (stderr a terminal)
    so that it has a total and an ETA; None for stdin or a pipe, which can be read only once."""
    from parasent.support.lines import count_lines
    from parasent.support.regular_files import is_regular

    if args.quiet or args.input == "-" or not sys.stderr.isatty() or not is_regular(args.input):
        return None
    return count_lines(args.input)


def _check_outputs(args: argparse.Namespace) -> None:
    """The file(s) this run writes: --output, or with --workers its shards."""
    from parasent.corpus.sharded_encoding import shard_paths

    sharded = args.workers > 1 and args.output != "-"
    for path in shard_paths(args.output, args.workers) if sharded else [args.output]:
        check_output_file(path, "--output", overwrite=args.overwrite, inputs=[args.input])


def _run_sharded(args: argparse.Namespace, fmt: str) -> int:
    """``--workers N``: N processes, one shard each (:mod:`parasent.corpus.sharded_encoding`)."""
    from parasent.corpus.sharded_encoding import encode_sharded

    if args.input == "-" or args.output == "-":
        from parasent.errors import OptionError

        raise OptionError("--workers needs an input file and an --output path")
    done, outputs, zero = encode_sharded(
        args.model or default_model(),
        args.input,
        args.output,
        fmt,
        args.workers,
        batch_size=args.batch_size,
        normalize=args.normalize,
        overwrite=args.overwrite,
    )
    print(
        f"encoded {done} sentence(s) to {args.workers} shards {outputs[0]} ... {outputs[-1]}", file=sys.stderr
    )
    for note in zero.notes():
        print(note, file=sys.stderr)
    return 0
