"""The ``parasent`` command line. Each subcommand is a module of :mod:`parasent.commands`.

Imports are deferred to each command so that ``parasent similarity`` starts fast and never
imports torch for a word-averaging model.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# Subcommands, in the order ``parasent --help`` lists them: one line per command module.
COMMANDS = [
    "train",
    "prepare",
    "evaluate",
    "encode",
    "similarity",
    "word2vec",
    "compare-models",
    "sts-system",
    "head",
    "analyze",
    "tune",
    "compare",
    "distill",
    "export",
]


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of command ``only`` (building a command's parser may
    import its defaults; ``parasent similarity`` must not pay for ``train``'s)."""
    from parasent import __version__

    parser = argparse.ArgumentParser(prog="parasent", description="Paraphrastic sentence embeddings.")
    parser.add_argument("--version", action="version", version=f"parasent {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in [only] if only in COMMANDS else COMMANDS:
        importlib.import_module(f"parasent.commands.{name.replace('-', '_')}").register(commands)
    return parser


def _command_name(argv: list[str]) -> str | None:
    """The subcommand of ``argv`` when it is the first argument (else the full parser decides)."""
    return argv[0] if argv and argv[0] in COMMANDS else None


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(_command_name(argv)).parse_args(argv)
    from parasent.errors import ParasentError, TrainingInterrupted

    run = importlib.import_module(f"parasent.commands.{args.command.replace('-', '_')}").run
    try:
        return run(args)
    except TrainingInterrupted as exc:
        print(f"parasent: stopped: {exc}", file=sys.stderr)
        return 130
    except ParasentError as exc:
        print(f"parasent: error: {exc}", file=sys.stderr)
        return 2
    except (KeyError, ValueError) as exc:
        message = exc.args[0] if exc.args else str(exc)
        print(f"parasent: error: {message}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
