"""``parasent query``: the corpus texts of an index nearest to a text."""

from __future__ import annotations

import argparse
import json


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("query", help="search an index built by `parasent index`")
    parser.add_argument("index", help="index directory")
    parser.add_argument("text", nargs="+", help="query text(s)")
    parser.add_argument("-k", "--top-k", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="one JSON line per query")
    parser.add_argument("--exact", action="store_true", help="exact search even if the index has a graph")


def run(args: argparse.Namespace) -> int:
    from parasent.index import load_index

    if args.top_k <= 0:
        raise ValueError(f"--top-k must be positive, got {args.top_k}")
    index = load_index(args.index)
    for text, hits in zip(args.text, index.search(args.text, args.top_k, exact=args.exact), strict=True):
        if args.json:
            print(json.dumps({"query": text, "hits": hits}, ensure_ascii=False))
            continue
        if len(args.text) > 1:
            print(f"# {text}")
        for rank, hit in enumerate(hits, 1):
            print(f"{rank}\t{hit['score']:.4f}\t{hit['corpus_id']}\t{hit['text']}")
    return 0
