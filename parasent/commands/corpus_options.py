"""The options of a command that reads a corpus and encodes it (``parasent mine``,
``parasent dedup``): a helper of the command modules, not a command, so that no command
module imports another (each is imported only when its command runs)."""

from __future__ import annotations

import argparse

from parasent.commands.common import MODEL_HELP
from parasent.support.validation import positive_int


def add_corpus_options(parser: argparse.ArgumentParser) -> None:
    """The corpus and how it is read and encoded."""
    parser.add_argument(
        "corpus",
        nargs="?",
        default="-",
        help="one text per line (.txt, gzip read as such; '-' = stdin), or JSON Lines (.jsonl, or --field)",
    )
    parser.add_argument(
        "--field", help="the JSON field holding the text of each line (a .jsonl corpus: 'text' unless given)"
    )
    parser.add_argument("--model", help=MODEL_HELP)
    parser.add_argument("--batch-size", type=positive_int, default=4096)
