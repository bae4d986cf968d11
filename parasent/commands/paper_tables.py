"""``parasent paper-tables``: regenerate the papers' tables in docs/ from scratch, resumably."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from parasent.commands.common import add_data_dir

DOCS = Path(__file__).resolve().parents[2] / "docs"  # a source checkout's docs/


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "paper-tables",
        help="regenerate the papers' tables in docs/ from scratch (resumable through its run log)",
        description=(
            "Runs every step the chosen tables need (training, heads, comparisons, evaluations) "
            "once, in order, through OUT/runs.jsonl: a killed run continues where it stopped. Each "
            "table is then written into its block of its doc (<!-- paper-table:NAME --> ... "
            "<!-- /paper-table:NAME -->) with the commit its runs came from. Training runs on one "
            "thread unless OMP_NUM_THREADS is set (a CPU run is then repeatable to the bit)."
        ),
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add_data_dir(parser, "the training pools and evaluation sets of every table")
    parser.add_argument(
        "--out", default="runs/paper-tables", help="directory for every step's runs and the log"
    )
    parser.add_argument("--only", nargs="+", metavar="NAME", help="these tables (default: all; see --list)")
    parser.add_argument("--docs", default=str(DOCS), help="the docs/ folder whose blocks are written")
    parser.add_argument("--list", action="store_true", help="list the tables and their steps, run nothing")


def current_commit(where: Path) -> str:
    """The checked-out commit of ``where`` (``unknown`` outside a git checkout)."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=where, capture_output=True, text=True, check=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"], cwd=where, capture_output=True, text=True
    )
    return done.stdout.strip() + ("+changes" if dirty.stdout.strip() else "")


def command_runner(data_dir: str | None):
    """Run ``python -m parasent ARGV`` with its output in a file; a failure names the file."""
    from parasent.errors import ParasentError

    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    if data_dir:
        env["PARASENT_DATA"] = str(Path(data_dir).expanduser().resolve())

    def run(argv: Sequence[str], output: Path) -> None:
        from parasent.support.regular_files import check_regular_or_absent

        output.parent.mkdir(parents=True, exist_ok=True)
        check_regular_or_absent(output)  # a file of the run directory: a FIFO would block
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(f"$ parasent {' '.join(argv)}\n")
            handle.flush()
            code = subprocess.run([sys.executable, "-m", "parasent", *argv], stdout=handle, stderr=subprocess.STDOUT, env=env).returncode  # fmt: skip
        if code != 0:
            last = output.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-1:]
            raise ParasentError(f"parasent {argv[0]} failed (exit {code}; {output}): {' '.join(last)}")

    return run


def run(args: argparse.Namespace) -> int:
    from parasent.experiments.regenerate import plan, regenerate, select

    tables = select(args.only)
    if args.list:
        for table in tables:
            print(f"{table.name}: {table.paper} -> docs/{table.doc}")
            for step in plan([table]):
                for command in step.commands:
                    print(f"    [{step.key}] parasent {' '.join(command)}")
        return 0
    docs = Path(args.docs)
    out = Path(args.out)
    commit = current_commit(Path.cwd())
    written = regenerate(out, tables, docs, command_runner(args.data_dir), commit=commit, say=print)
    for item in written:
        print(
            f"wrote {item.table.name} ({item.table.paper}) to {item.doc}: {item.seconds / 60:.1f} min of steps"
        )
    total = sum(run.seconds for run in _log_runs(out))
    print(f"{len(written)} table(s) written; every step in {out}/runs.jsonl took {total / 60:.1f} min in all")
    return 0


def _log_runs(out: Path):
    from parasent.support.sweep import Sweep

    return Sweep(out).runs.values()
