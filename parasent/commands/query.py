"""``parasent query``: the corpus texts of an index nearest to a text."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator

from parasent.commands.common import text_argument


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "query",
        help="search an index built by `parasent index`",
        description="The corpus texts nearest to each query: given as arguments, read one per line from "
        "stdin ('-') or from --queries FILE. Each hit is a line rank<TAB>score<TAB>corpus id<TAB>text, "
        "a tab, newline or backslash in the text escaped (\\t, \\n, \\\\) as `parasent mine` writes them.",
    )
    parser.add_argument("index", help="index directory")
    parser.add_argument("text", nargs="*", help="query text(s); '-' reads queries from stdin, one per line")
    parser.add_argument(
        "--queries", metavar="FILE", help="read queries from FILE, one per line ('-' = stdin)"
    )
    parser.add_argument("-k", "--top-k", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="one JSON line per query: {query, hits}")
    parser.add_argument("--exact", action="store_true", help="exact search even if the index has a graph")
    parser.add_argument("--batch-size", type=int, default=256, help="queries searched together")


def queries_of(args: argparse.Namespace, blank: list[str]) -> Iterator[str]:
    """The query texts in order: the arguments, with '-' standing for the lines of stdin, then
    --queries; a blank line of stdin or the file is no query (as every reader skips it), counted
    into ``blank``."""
    from parasent.data.text_input import input_lines

    def read(source: str) -> Iterator[str]:
        for line in input_lines(source):
            if line.strip():
                yield line
            else:
                blank.append(source)

    for text in args.text:
        yield from read("-") if text == "-" else [text_argument(text, "TEXT")]
    if args.queries is not None:
        yield from read(args.queries)


def run(args: argparse.Namespace) -> int:
    import itertools

    from parasent.corpus.index import load_index
    from parasent.errors import OptionError

    if args.top_k <= 0:
        raise OptionError(f"--top-k must be positive, got {args.top_k}")
    if args.batch_size <= 0:
        raise OptionError(f"--batch-size must be positive, got {args.batch_size}")
    if not args.text and args.queries is None:
        raise OptionError("no query: give TEXT, '-' to read queries from stdin, or --queries FILE")
    if args.queries not in (None, "-"):
        from parasent.support.lines import open_binary

        open_binary(args.queries).close()  # a missing file fails before the index loads
    index = load_index(args.index)
    blank: list[str] = []
    texts = queries_of(args, blank)
    several = len(args.text) > 1 or args.queries is not None or "-" in args.text
    while batch := list(itertools.islice(texts, args.batch_size)):
        for text, hits in zip(batch, index.search(batch, args.top_k, exact=args.exact), strict=True):
            _note_unread(index, text, hits)
            _print_hits(text, hits, args.json, several)
    if blank:
        print(
            f"note: {len(blank)} blank line(s) of the queries skipped (an empty text matches nothing)",
            file=sys.stderr,
        )
    return 0


def _note_unread(index, text: str, hits: list[dict]) -> None:
    """Every hit scoring 0 means no order at all: said, with whose vectors are zero (the query's,
    or those of the texts found: blank lines, a script the model never saw)."""
    from parasent.corpus.index import unread_queries, zero_scored

    if not zero_scored([hits]):
        return
    if not unread_queries([hits], [text], index.model):
        print(
            f"note: every hit of query {text[:60]!r} scores 0: the texts found hold no unit the model knows "
            "(blank lines, or a script it never saw)",
            file=sys.stderr,
        )
    else:
        print(f"note: query {text[:60]!r} has no unit the model knows: every score is 0", file=sys.stderr)


def _print_hits(text: str, hits: list[dict], as_json: bool, several: bool) -> None:
    from parasent.corpus.corpus_files import escape

    if as_json:
        print(json.dumps({"query": text, "hits": hits}, ensure_ascii=False), flush=True)
        return
    if several:
        print(f"# {text}")
    for rank, hit in enumerate(hits, 1):
        print(f"{rank}\t{hit['score']:.4f}\t{hit['corpus_id']}\t{escape(hit['text'])}")
