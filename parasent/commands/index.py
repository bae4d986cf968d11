"""``parasent index``: a semantic-search index of a corpus (one text per line)."""

from __future__ import annotations

import argparse
import sys

from parasent.commands.common import (
    MODEL_HELP,
    add_overwrite,
    add_quiet,
    default_model,
    refuse_existing_dir,
    refuse_stdout,
)


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "index",
        help="build a semantic-search index of a corpus (one text per line)",
        description="Encode every line of CORPUS and save texts, unit vectors and the model in DIR "
        "(safetensors, JSON and plain text); `parasent query DIR TEXT` answers from it.",
    )
    parser.add_argument("corpus", help="text file, one sentence per line")
    parser.add_argument("-o", "--output", required=True, help="index directory to write")
    parser.add_argument("--model", help=MODEL_HELP)
    parser.add_argument("--batch-size", type=int, default=4096)
    parser.add_argument(
        "--ann", action="store_true", help="also build an approximate-search graph (needs parasent[ann])"
    )
    add_overwrite(parser)
    add_quiet(parser)


def run(args: argparse.Namespace) -> int:
    from parasent.core.model import load
    from parasent.corpus.index import build_index

    if args.batch_size <= 0:
        raise ValueError(f"--batch-size must be positive, got {args.batch_size}")
    refuse_stdout(args.output, "--output", "an index")
    refuse_existing_dir(
        args.output, "--output", overwrite=args.overwrite, foreign=_foreign, inputs=[args.model, args.corpus]
    )
    if args.ann:
        from parasent.corpus.ann import require_usearch

        require_usearch()  # before the model loads and the corpus is encoded
    model = load(args.model or default_model())
    path = build_index(
        model,
        args.corpus,
        args.output,
        batch_size=args.batch_size,
        ann=args.ann,
        progress=not args.quiet,
        overwrite=args.overwrite,
    )
    print(f"indexed {args.corpus} into {path}", file=sys.stderr)
    return 0


def _foreign(directory) -> None:
    """A directory holding files an index does not: refused, and named, by the library's check."""
    from parasent.corpus.index import INDEX_ENTRIES
    from parasent.support.staging import check_replaceable

    check_replaceable(directory, model=False, overwrite=False, owns=INDEX_ENTRIES.__contains__)
