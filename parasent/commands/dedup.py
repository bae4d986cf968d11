"""``parasent dedup``: a corpus without its near-duplicates, or without what is too close to
another set (the semantic leakage guard)."""

from __future__ import annotations

import argparse
import sys

from parasent.commands.common import add_overwrite, add_quiet, check_output_file, default_model
from parasent.commands.corpus_options import add_corpus_options
from parasent.support.validation import cosine

SUMMARY = "remove near-duplicates from a corpus, or what is too close to another set (--against)"


def register(commands: argparse._SubParsersAction) -> None:
    from parasent.corpus.dedup import DEFAULT_THRESHOLD

    parser = commands.add_parser(
        "dedup",
        help=SUMMARY,
        description="Keep, in order, each text of CORPUS that no earlier kept text repeats: exact "
        "copies first (by hash), then texts at or above --threshold by cosine to a kept one. "
        "With --against OTHER, remove instead the texts at or above --threshold to any text of "
        "OTHER (an evaluation set: the leakage guard). --removed says why each text went.",
    )
    add_corpus_options(parser)
    parser.add_argument(
        "-o",
        "--output",
        default="-",
        help="the kept lines, their text as read, each ended by \\n; '-' = stdout",
    )
    parser.add_argument(
        "--removed",
        help="the removed lines: .tsv (header row) or .jsonl, each with the kept text that explains it",
    )
    parser.add_argument(
        "--threshold",
        type=cosine,
        default=DEFAULT_THRESHOLD,
        help="least cosine of a near-duplicate (default %(default)s)",
    )
    parser.add_argument("--against", metavar="OTHER", help="remove what is too close to this corpus instead")
    parser.add_argument("--against-field", help="the JSON field of OTHER (default: --field's)")
    parser.add_argument(
        "--ann", action="store_true", help="look kept texts up in an HNSW graph (parasent[ann])"
    )
    add_overwrite(parser)
    add_quiet(parser)


def run(args: argparse.Namespace) -> int:
    from contextlib import ExitStack

    from parasent.core.model import load
    from parasent.corpus.corpus_files import table_format, write_kept, write_removed
    from parasent.corpus.dedup import dedup_corpus, dedup_report
    from parasent.data.text_input import SpooledCorpus
    from parasent.errors import OptionError

    if args.removed:
        table_format(args.removed)
        if args.removed == args.output:
            raise OptionError(f"--removed and --output both name {args.output}: give each its own file")
    if args.against == "-" and args.corpus == "-":
        raise OptionError("CORPUS and --against OTHER cannot both be read from stdin: name a file for one")
    for path, option in ((args.output, "--output"), (args.removed, "--removed")):
        check_output_file(path, option, overwrite=args.overwrite, inputs=[args.corpus, args.against])
    if args.ann:
        from parasent.corpus.ann import require_usearch

        require_usearch()
    model = load(args.model or default_model())
    with ExitStack() as stack:
        corpus = stack.enter_context(SpooledCorpus(args.corpus, field=args.field))
        other = None
        if args.against:
            field = args.against_field or args.field
            other = stack.enter_context(SpooledCorpus(args.against, field=field))
        result = dedup_corpus(
            model, corpus, threshold=args.threshold, against=other, ann=args.ann,
            batch_size=args.batch_size, progress=not args.quiet,
        )  # fmt: skip
        write_kept(result, corpus, args.output, overwrite=args.overwrite)
        if args.removed:
            write_removed(result, corpus, args.removed, other, overwrite=args.overwrite)
    print("\n".join(dedup_report(result, against=args.against)), file=sys.stderr)
    return 0
