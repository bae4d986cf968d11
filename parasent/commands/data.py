"""``parasent data``: fetch the public data sets of the protocol, or list what is present."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from parasent.commands.common import add_data_dir, add_quiet
from parasent.support.validation import positive_seconds


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "data",
        help="download the public data sets of the protocol (fetch), or list what is present (list)",
        description="Data sets from their original public locations, in the layout the readers read, "
        "verified by sha256 (docs/install.md).",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    for name, text in (
        ("fetch", "download, unpack and verify (resumable; honours http(s)_proxy)"),
        ("list", "what is present, missing or corrupt (exit status 1 when any is missing or corrupt)"),
    ):
        action = actions.add_parser(name, help=text)
        action.add_argument("names", nargs="*", help="data sets (default: all that can be fetched)")
        add_data_dir(action, "where to put the data sets" if name == "fetch" else "the data sets to check")
        if name == "fetch":
            add_quiet(action)
            action.add_argument(
                "--deadline",
                type=positive_seconds,
                default=None,
                metavar="SECONDS",
                help="the most one download may take, all its attempts together (default: 3600)",
            )


def _root(explicit: str | None) -> Path:
    """The directory every other command reads (the one rule of :mod:`parasent.support.paths`)."""
    from parasent.support.paths import data_dir_location

    return data_dir_location(explicit)


def run(args: argparse.Namespace) -> int:
    from parasent.data.fetching import fetch as fetching

    root = _root(args.data_dir)
    if args.action == "fetch":
        from parasent.data.fetching.download import DEADLINE

        fetching.fetch(
            root,
            args.names or None,
            say=lambda line: print(line, file=sys.stderr),
            progress=not args.quiet,
            deadline=args.deadline or DEADLINE,
        )
        return 0
    if root.exists() and not root.is_dir():
        from parasent.errors import OptionError

        raise OptionError(f"--data-dir {root}: not a directory")
    bad = 0
    for item in fetching.status(root, args.names or None):
        print(f"{item.source:<14}  {item.state:<10}  {item.target}")
        bad += item.state in ("missing", "corrupt")
    where = root if root.is_dir() else f"{root} (no such directory)"
    print(f"{where}: {bad} target(s) missing or corrupt", file=sys.stderr)
    return 1 if bad else 0  # a script can check the data with it
