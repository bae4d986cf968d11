"""``parasent mine``: the paraphrase pairs of a corpus (each line's nearest others)."""

from __future__ import annotations

import argparse
import sys

from parasent.commands.common import add_overwrite, add_quiet, check_output_file, default_model
from parasent.commands.corpus_options import add_corpus_options
from parasent.support.validation import cosine, positive_int

SUMMARY = "the paraphrase pairs of a corpus: each line's nearest other lines above a cosine"


def register(commands: argparse._SubParsersAction) -> None:
    from parasent.corpus.mining import DEFAULT_THRESHOLD, DEFAULT_TOP_K

    parser = commands.add_parser(
        "mine",
        help=SUMMARY,
        description="For every text of CORPUS, its --top-k most similar other texts at or above "
        "--threshold; each pair once, best first: score, the two line numbers, the two texts "
        "(sentence-transformers' paraphrase_mining). Exact by blocks of a matrix product in "
        "bounded memory, or --ann. The score distribution is printed on stderr.",
    )
    add_corpus_options(parser)
    parser.add_argument(
        "-o", "--output", default="-", help="pairs: .tsv (with a header row) or .jsonl; '-' = stdout (TSV)"
    )
    parser.add_argument(
        "--top-k", type=positive_int, default=DEFAULT_TOP_K, help="neighbours per line (default %(default)s)"
    )
    parser.add_argument(
        "--threshold",
        type=cosine,
        default=DEFAULT_THRESHOLD,
        help="least cosine of a pair (default %(default)s)",
    )
    parser.add_argument("--max-pairs", type=positive_int, help="keep only the best N pairs")
    parser.add_argument(
        "--ann",
        action="store_true",
        help="approximate neighbours from an HNSW graph (usearch: parasent[ann]), for corpora past "
        "what an exact scan affords (its time grows with the square of the lines)",
    )
    add_overwrite(parser)
    add_quiet(parser)


def run(args: argparse.Namespace) -> int:
    from parasent.core.model import load
    from parasent.corpus.corpus_files import table_format, write_pairs
    from parasent.corpus.mining import mine_corpus, mining_report
    from parasent.data.text_input import SpooledCorpus

    table_format(args.output)
    check_output_file(args.output, "--output", overwrite=args.overwrite, inputs=[args.corpus])
    if args.ann:
        from parasent.corpus.ann import require_usearch

        require_usearch()  # before the corpus is read
    model = load(args.model or default_model())
    with SpooledCorpus(args.corpus, field=args.field) as corpus:
        pairs = mine_corpus(
            model, corpus, top_k=args.top_k, threshold=args.threshold, max_pairs=args.max_pairs,
            ann=args.ann, batch_size=args.batch_size, progress=not args.quiet,
            notice=lambda line: print(line, file=sys.stderr),
        )  # fmt: skip
        write_pairs(pairs, corpus, args.output, overwrite=args.overwrite)
        report = mining_report(pairs, len(corpus))
    where = "" if args.output == "-" else f" to {args.output}"
    print(f"mined {len(pairs):,} pair(s){where}", file=sys.stderr)
    print("\n".join(report), file=sys.stderr)
    return 0
