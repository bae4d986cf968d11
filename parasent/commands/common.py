"""Helpers shared by the command modules."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from parasent.training.run_directory import check_output_dir, check_run_dir  # noqa: F401 - the commands' names

if TYPE_CHECKING:
    from parasent.evaluation.file_pairs import PairsReport

DEFAULT_RUN = "runs/default"
MODEL_ENV = "PARASENT_MODEL"
MODEL_HELP = f"model or run directory (default: ${MODEL_ENV}, else the shipped default model)"


def default_model() -> str:
    """``$PARASENT_MODEL``, else ``default``: the compact model shipped inside the package."""
    return os.environ.get(MODEL_ENV) or "default"


def train_default(option: str):
    """The default of a training option (flat name), from :class:`TrainConfig` (the one source of truth)."""
    from parasent.training.config import TrainConfig

    return TrainConfig().flat()[option]


def text_argument(value: str, name: str) -> str:
    """A text given on the command line (a query, a sentence) as UTF-8 text: bytes that are UTF-8
    but were read in an ASCII locale (``LC_ALL=POSIX PYTHONUTF8=0``) are decoded as the UTF-8 they
    are; bytes that are no UTF-8 are one line naming the argument ``name``. (A path argument stays
    as given: Python opens it as the same bytes.)"""
    from parasent.errors import NameEncodingError
    from parasent.support.path_names import as_utf8, shown

    text = as_utf8(value)
    if text is None:
        raise NameEncodingError(
            f"{name} '{shown(value)}': not UTF-8 text; pass it as UTF-8 (a UTF-8 terminal or "
            "locale, e.g. LC_ALL=C.UTF-8)"
        )
    return text


def add_data_dir(parser: argparse.ArgumentParser, purpose: str) -> None:
    """``--data-dir``, its help saying what this command reads there (``purpose``) and the one rule
    every command finds it by (:data:`parasent.support.paths.RULE`)."""
    from parasent.support.paths import RULE

    parser.add_argument("--data-dir", metavar="DIR", help=f"the data directory ({purpose}); default: {RULE}")


def check_output_file(
    path: str | None, option: str, *, overwrite: bool = True, inputs: Sequence[str | None] = ()
) -> None:
    """Fail before any work when an output file cannot be written: its folder is missing or
    it names a directory (the result would otherwise be lost after the work is done), it is one
    of the command's ``inputs`` (even with ``--overwrite``: the input would be gone before it was
    read), or, without ``overwrite``, a file is there already (the user's own data is never
    replaced unasked: ``--overwrite``)."""
    from pathlib import Path

    from parasent.errors import OptionError

    if path is None or path == "-":
        return
    target = Path(path)
    if target.is_dir():
        raise OptionError(f"{option} {path}: is a directory")
    for given in inputs:
        source = _input_path(given)
        if source is not None and target.exists() and os.path.samefile(target, source):
            raise OptionError(
                f"{option} {path}: is this command's input {given}; write the result to another file"
            )
    if not overwrite and target.is_file():  # a device or a pipe is written into, never replaced
        raise OptionError(f"{option} {path}: exists; not replacing it (pass --overwrite to replace it)")
    parent = target.parent
    if not parent.is_dir():
        raise OptionError(f"{option} {path}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise OptionError(f"{option} {path}: directory {parent} is not writable")


def _input_path(spec: str | None) -> str | None:
    """The file an input argument reads (``p.tsv:labelled`` reads ``p.tsv``); None for stdin, an
    unset option, or a file that is not there."""
    if spec in (None, "-"):
        return None
    if os.path.exists(spec):
        return spec
    head, sep, _ = spec.rpartition(":")
    return head if sep and head and os.path.exists(head) else None


def refuse_output_holding(path: str, option: str, inputs: Sequence[str | None]) -> None:
    """Fail before any work when the output directory ``path`` is or holds one of the command's
    ``inputs`` (a model, a corpus, a pair file ``FILE[:FORMAT]``), even with ``--overwrite``:
    the input would be replaced by what is made of it."""
    from parasent.errors import OptionError
    from parasent.support.paths import holds

    for given in inputs:
        source = _input_path(given)
        if source is not None and holds(path, source):
            raise OptionError(
                f"{option} {path}: holds this command's input {given}; write the result to another directory"
            )


def refuse_existing_dir(
    path: str,
    option: str,
    *,
    overwrite: bool,
    foreign: Callable[[Path], None] | None = None,
    inputs: Sequence[str | None] = (),
) -> None:
    """Fail before any work when ``path`` is a directory holding anything and ``overwrite`` was
    not given: an earlier index or export is the user's, replaced only on their say; or when it
    holds one of the command's ``inputs`` (the model it reads, its corpus), even with
    ``overwrite``: the input would be replaced by what is made of it. ``foreign`` first
    refuses, in its own words, a directory holding what is not this output's kind (the
    library's check, which names those files)."""
    from parasent.errors import OptionError

    target = Path(path)
    refuse_output_holding(path, option, inputs)
    held = sorted(entry.name for entry in target.iterdir())[:5] if target.is_dir() and not overwrite else []
    if held and foreign is not None:
        foreign(target)
    if held:
        shown = ", ".join(held[:4]) + (", ..." if len(held) > 4 else "")
        raise OptionError(
            f"{option} {path}: holds {shown}; not replacing it (pass --overwrite to replace it)"
        )


def add_lenient(parser: argparse.ArgumentParser, inputs: str) -> None:
    """``--lenient``: malformed lines of ``inputs`` (e.g. "--pairs") skipped and counted instead
    of stopping at the first, named by its line."""
    parser.add_argument(
        "--lenient", action="store_true", help=f"skip (and count) malformed lines in {inputs}"
    )


def add_plot(parser: argparse.ArgumentParser, what: str) -> None:
    """``--plot FILE.png``: ``what`` drawn as a PNG (matplotlib, the ``analysis`` extra); a file
    there is replaced only with the command's ``--overwrite``."""
    parser.add_argument(
        "--plot",
        metavar="FILE.png",
        help=f"also draw {what} as a PNG (needs matplotlib: the analysis extra); replaces a file there "
        "only with --overwrite",
    )


def check_plot(args: argparse.Namespace, inputs: Sequence[str | None] = ()) -> None:
    """Before any work: ``--plot`` names a new ``.png`` (or ``--overwrite`` was given) that is none
    of the command's ``inputs``, and matplotlib is installed (a long run never ends without the
    figure it was asked for)."""
    path = getattr(args, "plot", None)
    if path is None:
        return
    from parasent.analysis.plots import require_matplotlib
    from parasent.errors import OptionError

    if path == "-" or not path.lower().endswith(".png"):
        raise OptionError(f"--plot {path}: the figure is written as PNG; name a file ending in .png")
    report = getattr(args, "json", None)
    if report not in (None, "-") and os.path.realpath(report) == os.path.realpath(path):
        raise OptionError(f"--plot and --json both name {path}: give each its own file")
    check_output_file(path, "--plot", overwrite=args.overwrite, inputs=inputs)
    require_matplotlib()


# what --overwrite replaces for a training run (train, head train)
RUN_OVERWRITE = (
    "what an --out holding a run has: start over in it (its model kept as model.previous until the new run "
    "finishes); and the file at --plot"
)


def add_overwrite(
    parser: argparse.ArgumentParser,
    replaces: str = "what is at --output (a file, or a directory of other files)",
) -> None:
    """``--overwrite``, the one declaration: what a command may replace is never replaced unasked."""
    parser.add_argument("--overwrite", action="store_true", help=f"replace {replaces}")


def add_json_output(parser: argparse.ArgumentParser, what: str, *, outputs: str = "--json") -> None:
    """``--json PATH`` (``what``, e.g. "the results", as JSON) and the ``--overwrite`` that lets it
    (and the command's other ``outputs``, e.g. ``--json or --plot``) replace a file already there:
    like every other output, a file is never replaced unasked."""
    parser.add_argument(
        "--json", help=f"also write {what} as JSON to this path ('-' = stdout, the table then on stderr)"
    )
    add_overwrite(parser, f"the file at {outputs}")


def write_json(path: str, data: object, *, overwrite: bool) -> None:
    """A ``--json`` result, written whole or not at all; ``-`` is stdout (as for every output
    option). Without ``overwrite`` a file there is kept, even one that appeared while the work ran."""
    import json
    import sys

    from parasent.support.staging import atomic_file

    text = json.dumps(data, indent=2) + "\n"
    if path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    with atomic_file(path, "w", overwrite=overwrite, encoding="utf-8") as handle:
        handle.write(text)


def report_stream(json_path: str | None):
    """Where a command prints its human-readable table: stderr when ``--json -`` takes stdout
    (so stdout is the JSON alone, for a pipe), else stdout."""
    import sys

    return sys.stderr if json_path == "-" else sys.stdout


def refuse_stdout(path: str | None, option: str, what: str) -> None:
    """``-`` means stdout for every output option; one that writes a directory cannot take it."""
    from parasent.errors import OptionError

    if path == "-":
        raise OptionError(f"{option} -: {what} is a directory, which cannot go to stdout; name a directory")


def add_quiet(parser: argparse.ArgumentParser, *, also: str = "") -> None:
    """``--quiet``, the one declaration (``also``: what else it silences, e.g. training output)."""
    parser.add_argument(
        "--quiet", action="store_true", help=f"no progress bars (they show only on a terminal anyway){also}"
    )


def add_threads(parser: argparse.ArgumentParser) -> None:
    """``--threads N``: torch's thread count in a command that runs torch."""
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        metavar="N",
        help="torch threads (default: $OMP_NUM_THREADS if set, else the cores this process may use that "
        "other work leaves idle: on a busy machine fewer threads run faster)",
    )


def use_threads(args: argparse.Namespace) -> int:
    """Set torch's thread count as :func:`parasent.support.cpu_threads.torch_threads` chooses it
    (``--threads`` first) before any work; the count."""
    import torch

    from parasent.errors import OptionError
    from parasent.support.cpu_threads import OMP_ENV, torch_threads

    try:
        threads = torch_threads(getattr(args, "threads", None))
    except ValueError as exc:
        raise OptionError(str(exc)) from None
    torch.set_num_threads(threads)
    if getattr(args, "threads", None) is not None:  # the teacher and child processes read it too
        os.environ[OMP_ENV] = str(threads)
    return threads


def side_by_side(args: argparse.Namespace, models: list[tuple[str, Any]]) -> int:
    """Several ``(name, model)`` on the user's ``--pairs`` (``evaluate --model A --model B``,
    ``compare-models --pairs``): one table, each model's figures and speed; ``--json``, ``--plot``."""
    from parasent.evaluation.side_by_side import pairs_side_by_side

    result = pairs_side_by_side(
        models, args.pairs, lenient=args.lenient, data_dir=getattr(args, "data_dir", None)
    )
    print(result.format_table(), file=report_stream(args.json))
    plot_pairs(args, result.reports)
    if args.json:
        write_json(args.json, result.to_dict(), overwrite=args.overwrite)
    return 0


def plot_pairs(args: argparse.Namespace, reports: Sequence[PairsReport]) -> None:
    """``--plot``: the figure of each model's points on the pairs (one file's, so never mixed)."""
    if not args.plot:
        return
    from parasent.analysis.plots import pairs_figure

    first = reports[0]
    title = f"{first.name} ({first.n} {first.kind} pairs)"
    pairs_figure([(r.model, r.points) for r in reports], args.plot, title=title, overwrite=args.overwrite)
    print(f"plot: {args.plot}", file=report_stream(args.json))
