"""The ``parasent`` command line. Each subcommand is a module of :mod:`parasent.commands`.

Imports are deferred to each command so that ``parasent similarity`` starts fast and never
imports torch for a word-averaging model; ``parasent --help`` and ``--version`` import no
command module at all (the overview lists :data:`SUMMARIES`).
"""

from __future__ import annotations

import argparse
import codecs
import importlib
import signal
import sys
from typing import NoReturn

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
    "paper-tables",
    "distill",
    "teacher-pass",
    "export",
    "compact",
    "data",
    "index",
    "query",
    "mine",
    "dedup",
    "serve",
]

# One line per command for ``parasent --help`` (a test checks each equals its module's help).
SUMMARIES = {
    "train": "train a model: margin objective (Wieting et al. 2016) or --objective siamese-cbow",
    "prepare": "tokenize pair files (any size, streaming) into memory-mapped shards for train --prepared",
    "evaluate": "evaluate a model (or averaged vectors) on an STS or PPDB phrase suite, or on your own pairs",
    "encode": "encode sentences (one per line) to vectors, in a file or on stdout (parasent encode -h: the formats)",
    "similarity": "cosine similarity of two sentences",
    "word2vec": "train word2vec (gensim) on running text and save the averaging model (baseline)",
    "compare-models": "several models side by side on a suite, with a Wilcoxon test against a reference",
    "sts-system": "fine-tune a model on task-internal STS pairs, add synthetic paraphrases, fit the ensemble",
    "head": "supervised heads: a classifier of your own labels, SICK relatedness/entailment, SST sentiment",
    "analyze": "the papers' analyses: length, oov, learning-curve, words, norm-weights, errors, significance",
    "tune": "grid search over the paper's hyperparameters, selecting by STS 2016 (or --protocol ppdb: PPDB dev)",
    "compare": "train every encoder with the same budget and seeds; write the Table 2 comparison",
    "paper-tables": "regenerate the papers' tables in docs/ from scratch (resumable through its run log)",
    "distill": "word vectors distilled from a sentence-transformers model (pip install parasent[distill])",
    "teacher-pass": "the teacher pass of a distilled run on its own, on one process or N (--ranks N)",
    "export": "write a model for another library (sentence-transformers, model2vec)",
    "compact": "a smaller copy of an averaging model: pruned vocabulary, fewer dimensions, int8/float16",
    "data": "download the public data sets of the protocol (fetch), or list what is present (list)",
    "index": "build a semantic-search index of a corpus (one text per line)",
    "query": "search an index built by `parasent index`",
    "mine": "the paraphrase pairs of a corpus: each line's nearest other lines above a cosine",
    "dedup": "remove near-duplicates from a corpus, or what is too close to another set (--against)",
    "serve": "serve a model over HTTP (OpenAI-style /v1/embeddings; needs parasent[serve])",
}


class OneLineParser(argparse.ArgumentParser):
    """argparse's parser whose refusals are one line: the error, then where the usage is
    (argparse prints a command's whole usage first, dozens of lines for ``train``, and the
    one line that says what was wrong ends up under them). Subcommands' parsers inherit it."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (usage: {self.prog} --help)\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of command ``only`` (building a command's parser may
    import its defaults; ``parasent similarity`` must not pay for ``train``'s)."""
    from parasent import __version__

    parser = OneLineParser(prog="parasent", description="Paraphrastic sentence embeddings.")
    parser.add_argument("--version", action="version", version=f"parasent {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in [only] if only in COMMANDS else COMMANDS:
        importlib.import_module(f"parasent.commands.{name.replace('-', '_')}").register(commands)
    return parser


def overview_parser() -> argparse.ArgumentParser:
    """``parasent`` without a command (``--help``, ``--version``): names and summaries only,
    so that it answers without importing any command module."""
    from parasent import __version__

    parser = OneLineParser(prog="parasent", description="Paraphrastic sentence embeddings.")
    parser.add_argument("--version", action="version", version=f"parasent {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        commands.add_parser(name, help=SUMMARIES.get(name, ""))
    return parser


def _command_name(argv: list[str]) -> str | None:
    """The subcommand of ``argv``: the first argument that names one (the top level has no
    option taking a value, so nothing before it can be an option's value)."""
    return next((arg for arg in argv if arg in COMMANDS), None)


def main(argv: list[str] | None = None) -> int:
    """Run a command; every expected failure is one line on stderr (exit 2; 130 when interrupted,
    143 when terminated: SIGTERM is handled as Ctrl-C is, so staging files are removed)."""
    from parasent.errors import Terminated

    previous = _terminate_as_interrupt()
    try:
        return _main(argv)
    except Terminated:
        print("parasent: terminated (SIGTERM)", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("parasent: interrupted", file=sys.stderr)
        return 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _terminate_as_interrupt():
    """Make SIGTERM raise :class:`~parasent.errors.Terminated` (a ``KeyboardInterrupt``) in the
    main thread; returns the handler to put back (None where none can be installed)."""
    from parasent.errors import Terminated

    def terminate(_signum, _frame):
        raise Terminated("SIGTERM")

    try:
        return signal.signal(signal.SIGTERM, terminate)
    except (ValueError, TypeError):  # not the main thread
        return None


def _one_line_warnings() -> None:
    """parasent's own warnings as one ``parasent: warning:`` line on stderr (Python's form names
    a source file and line, which say nothing to a user of the command line); others as Python says them."""
    import warnings

    from parasent.errors import ParasentWarning

    shown = warnings.showwarning
    if getattr(shown, "one_line", False):  # installed already (main called again in one process)
        return

    def show(message, category, filename, lineno, file=None, line=None):  # noqa: ANN001, ANN202
        if issubclass(category, ParasentWarning):
            print(f"parasent: warning: {message}", file=sys.stderr)
            return
        shown(message, category, filename, lineno, file, line)

    show.one_line = True  # type: ignore[attr-defined]
    warnings.showwarning = show


def _main(argv: list[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    _one_line_warnings()
    from parasent.support.extras import missing_extra

    try:
        return _run(argv)
    except ModuleNotFoundError as exc:  # a command (or its options) needs an extra not installed
        hint = missing_extra(exc)
        if hint is None:
            raise
        print(f"parasent: error: {hint}", file=sys.stderr)
        return 2


# Commands whose texts may follow their options (`parasent query IX -k 2 "a guitar"`): the
# positional list that takes the words argparse leaves over after the options.
INTERMIXED = {"query": "text"}


def _parse(name: str | None, argv: list[str]) -> argparse.Namespace:
    """The arguments, as ``parse_args`` reads them, except that the texts of an
    :data:`INTERMIXED` command may stand after its options as well as before them."""
    parser = build_parser(name) if name else overview_parser()
    args, extra = parser.parse_known_args(argv)
    target = INTERMIXED.get(getattr(args, "command", None) or "")
    unknown = extra if target is None else [item for item in extra if item.startswith("-") and item != "-"]
    if unknown:  # said by the command's parser: its usage is the one to read
        command = getattr(args, "command", None)
        where = f"{parser.prog} {command}" if command else parser.prog
        parser.exit(
            2, f"{where}: error: unrecognized arguments: {' '.join(unknown)} (usage: {where} --help)\n"
        )
    if extra:
        setattr(args, target, [*getattr(args, target), *extra])
    return args


def _run(argv: list[str]) -> int:
    name = _command_name(argv)
    args = _parse(name, argv)
    from parasent.errors import ParasentError, TrainingInterrupted

    run = importlib.import_module(f"parasent.commands.{args.command.replace('-', '_')}").run
    try:
        return run(args)
    except TrainingInterrupted as exc:
        print(f"parasent: stopped: {exc}", file=sys.stderr)
        return exc.exit_code
    except ParasentError as exc:
        print(f"parasent: error: {exc}", file=sys.stderr)
        return 2
    except UnicodeEncodeError as exc:
        print(f"parasent: error: {_unencodable(exc)}", file=sys.stderr)
        return 2
    except (KeyError, ValueError) as exc:
        message = exc.args[0] if exc.args else str(exc)
        print(f"parasent: error: {message}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except MemoryError as exc:  # numpy's _ArrayMemoryError says how much it could not allocate
        said = str(exc).splitlines()[0][:200] if str(exc) else "no detail"
        print(f"parasent: error: out of memory ({said}); smaller sizes or batches need less", file=sys.stderr)
        return 2
    except OSError as exc:  # a path that cannot be read or written: name it, no traceback
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"parasent: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except BaseException as exc:  # a Rust panic of a native library is no Exception
        if type(exc).__name__ != "PanicException":
            raise
        print(f"parasent: error: a native library failed ({str(exc).splitlines()[0][:200]})", file=sys.stderr)
        return 2


def _unencodable(exc: UnicodeEncodeError) -> str:
    """What could not be written, and what to do: text the output's encoding cannot hold (say
    ``PYTHONIOENCODING=ascii``), or a name whose bytes are not UTF-8 (a lone surrogate)."""
    from parasent.support.path_names import shown

    part = shown(exc.object[max(exc.start - 20, 0) : exc.end + 20])
    if codecs.lookup(exc.encoding).name != "utf-8":
        stream = getattr(sys.stdout, "encoding", None) or exc.encoding
        where = (
            "standard output"
            if codecs.lookup(stream).name == codecs.lookup(exc.encoding).name
            else "the output"
        )
        return (
            f"{where} uses the {exc.encoding} encoding, which cannot write '{part}'; "
            "set PYTHONIOENCODING=utf-8 (or a UTF-8 locale, e.g. LC_ALL=C.UTF-8)"
        )
    return (
        f"{shown(exc.object)}: not UTF-8 text (bytes of a file name or an argument in another "
        "encoding); rename the file, or pass the text as UTF-8"
    )


if __name__ == "__main__":
    sys.exit(main())
