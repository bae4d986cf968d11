"""Regenerate the papers' tables in docs/ from scratch: every step run once, resumably.

The steps of the chosen tables (:data:`parasent.experiments.paper_tables.STEPS`) run in registry
order through one :class:`~parasent.support.sweep.Sweep` log, so a killed regeneration goes on
where it stopped (a step cut short resumes its training runs from their checkpoints) and a
finished step is never run twice. Each table is then rendered and written into its block of
its doc, between ``<!-- paper-table:NAME -->`` and ``<!-- /paper-table:NAME -->``, with the
commits its steps ran on and their seconds. Nothing outside the blocks is touched.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from parasent.errors import DataNotFoundError, OptionError
from parasent.experiments.paper_tables import STEPS, TABLES, PaperTable, Step
from parasent.support.staging import write_text_atomic
from parasent.support.sweep import Sweep

#: Runs one ``parasent`` command line (``argv`` after ``parasent``), its output to a file.
RunCommand = Callable[[Sequence[str], Path], None]
RESUMABLE = (("train",), ("head", "train"))  # commands that continue a run from its checkpoint
CHECKPOINT = "checkpoint.safetensors"


def begin_marker(name: str) -> str:
    return f"<!-- paper-table:{name} -->"


def end_marker(name: str) -> str:
    return f"<!-- /paper-table:{name} -->"


BLOCK = re.compile(r"<!-- paper-table:([\w-]+) -->")


def doc_blocks(doc: Path) -> list[str]:
    """The names of the table blocks in ``doc``."""
    return BLOCK.findall(doc.read_text(encoding="utf-8"))


def write_block(doc: Path, name: str, markdown: str) -> None:
    """Replace the block ``name`` of ``doc`` with ``markdown`` (the file is replaced whole)."""
    if not doc.is_file():
        raise DataNotFoundError(f"{doc}: no such doc (--docs names the docs/ folder)")
    text = doc.read_text(encoding="utf-8")
    begin, end = begin_marker(name), end_marker(name)
    start, stop = text.find(begin), text.find(end)
    if start < 0 or stop < start:
        raise DataNotFoundError(f"{doc}: no block {begin} ... {end} to write the table into")
    write_text_atomic(doc, f"{text[: start + len(begin)]}\n{markdown}\n{text[stop:]}")


@dataclass(frozen=True)
class Written:
    table: PaperTable
    doc: Path
    commits: tuple[str, ...]
    seconds: float


def select(names: Sequence[str] | None) -> list[PaperTable]:
    """The tables named (all when None), in registry order; an unknown name is an error."""
    unknown = [n for n in names or () if n not in TABLES]
    if unknown:
        raise OptionError(f"no paper table {', '.join(unknown)} (known: {', '.join(TABLES)})")
    return [t for name, t in TABLES.items() if names is None or name in names]


def plan(tables: Sequence[PaperTable]) -> list[Step]:
    """The steps of ``tables``, each once, in registry order."""
    needed = {key for table in tables for key in table.steps}
    return [step for key, step in STEPS.items() if key in needed]


def _command_line(command: Sequence[str], run: Path, out: Path) -> list[str]:
    argv = [part.format(run=run, out=out) for part in command]
    if any(tuple(argv[: len(prefix)]) == prefix for prefix in RESUMABLE):
        target = Path(argv[argv.index("--out") + 1])  # the step's own directory
        argv.append("--resume" if (target / CHECKPOINT).is_file() else "--overwrite")
    return argv


def run_step(step: Step, run: Path, out: Path, run_command: RunCommand, commit: str) -> dict[str, str]:
    """Run the command lines of ``step`` into ``run``; each one's output goes to
    ``run/command-N.out`` (the tables some commands print are read from there)."""
    for number, command in enumerate(step.commands, 1):
        run_command(_command_line(command, run, out), run / f"command-{number}.out")
    return {"commit": commit}


def regenerate(
    out: Path,
    tables: Sequence[PaperTable],
    docs: Path,
    run_command: RunCommand,
    *,
    commit: str,
    say: Callable[[str], None] = lambda _: None,
) -> list[Written]:
    """Run the steps of ``tables`` (reusing logged ones), then write each table into its doc."""
    sweep = Sweep(out, say=say)
    steps = plan(tables)
    for number, step in enumerate(steps, 1):
        done = sweep.finished(step.key, _config(step))
        # a step's commands write their progress to their own files: say where, to follow it there
        running = f"running ({len(step.commands)} command(s); follow each in {sweep.directory(step.key)}/command-N.out)"
        say(f"[{number}/{len(steps)}] {step.key}: {'done before' if done else running}")
        sweep.run(
            step.key, _config(step), lambda run, step=step: run_step(step, run, out, run_command, commit)
        )
    written = []
    for table in tables:
        runs = [sweep.runs[key] for key in table.steps]
        commits = tuple(dict.fromkeys(str((r.result or {}).get("commit", "unknown")) for r in runs))
        seconds = sum(r.seconds for r in runs)
        doc = docs / table.doc
        write_block(doc, table.name, f"{table.render(out)}\n\n{_footer(table, commits, seconds)}")
        written.append(Written(table, doc, commits, seconds))
    return written


def _config(step: Step) -> dict[str, list[list[str]]]:
    return {"commands": [list(command) for command in step.commands]}


def _footer(table: PaperTable, commits: tuple[str, ...], seconds: float) -> str:
    return (
        f"*Written by `parasent paper-tables --only {table.name}` from runs on commit "
        f"{', '.join(c[:7] for c in commits)}; its steps took {seconds / 60:.1f} min on the machine that ran them.*"
    )
