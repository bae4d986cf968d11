"""One resumable log for commands that make many runs: ``Sweep(out).run(key, config, work)``.

The grid search (``parasent tune``), the architecture comparison, the learning curve, the
DCU system's fine-tuning and the head-tuning script each make many runs under one output
directory. Each run has a key (its directory under ``out``, e.g. ``pp/seed-1``) and a
configuration (a JSON object: everything that decides its result). When a run finishes,
one JSON line ``{"key", "config", "result", "seconds", "error"}`` is appended to the log,
so a stopped sweep continues where it was.

The one rule for reuse: a logged run is reused when its key and its configuration, up to
the options that do not change a result (:data:`RUN_ONLY_OPTIONS`), are the current ones.
A run whose configuration changed is done again; its old directory is kept beside the new
as ``KEY.stale``. A run that was cut short (its directory exists, it is not in the log)
is handed to ``work`` again, which resumes it from its checkpoint when it has one.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from parasent.errors import DataFormatError, TrainingInterrupted
from parasent.support.regular_files import (
    MAX_LOG_BYTES,
    check_regular_or_absent,
    exists,
    read_regular_json,
    read_regular_text,
)
from parasent.support.staging import write_run_file

RUNS_FILE = "runs.jsonl"
RUN_CONFIG = "sweep_run.json"  # in each run directory: the configuration it was started with
#: Options that change how a run is done (where, how often it reports) but never its result.
RUN_ONLY_OPTIONS = frozenset({"device", "log_every", "checkpoint_every", "progress"})


@dataclass
class SweepRun:
    """One finished run: its ``result`` (a JSON object) or, for a failed one, ``error``."""

    key: str
    config: dict[str, Any]
    result: dict[str, Any] | None
    seconds: float
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def _plain(config: Mapping[str, Any]) -> dict[str, Any]:
    """``config`` as it reads back from JSON (tuples become lists)."""
    return json.loads(json.dumps(config))


def _decisive(value: Any) -> Any:
    """``value`` without the run-only options, at any depth. An option at None is the same as
    an option not recorded: a log written before an option existed (unset options are None)
    still stands for the runs it holds."""
    if isinstance(value, dict):
        return {k: _decisive(v) for k, v in value.items() if k not in RUN_ONLY_OPTIONS and v is not None}
    if isinstance(value, list):
        return [_decisive(v) for v in value]
    return value


def same_run(recorded: Mapping[str, Any], config: Mapping[str, Any]) -> bool:
    """Whether a run recorded with ``recorded`` may stand for a run with ``config``."""
    return _decisive(_plain(recorded)) == _decisive(_plain(config))


class Sweep:
    """The runs under ``out`` and their log (``out/runs.jsonl`` unless ``log`` names another)."""

    def __init__(
        self, out: str | Path, *, log: str = RUNS_FILE, say: Callable[[str], None] = lambda _: None
    ) -> None:
        self.out = Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.log = self.out / log
        self.say = say
        self.runs: dict[str, SweepRun] = {}
        if exists(self.log):  # a FIFO or a device there is refused, never opened
            for number, line in enumerate(
                read_regular_text(self.log, max_bytes=MAX_LOG_BYTES).splitlines(), 1
            ):
                if line.strip():
                    run = self._parse(line, number)
                    self.runs[run.key] = run  # a later line for a key replaces an earlier one

    def _parse(self, line: str, number: int) -> SweepRun:
        try:
            return SweepRun(**json.loads(line))
        except (json.JSONDecodeError, TypeError):
            raise DataFormatError(
                self.log, number, "not a run-log line (an older layout? move the file aside to start over)"
            ) from None

    def directory(self, key: str) -> Path:
        return self.out / key

    def finished(self, key: str, config: Mapping[str, Any]) -> SweepRun | None:
        """The logged run that may be reused for ``key`` with ``config`` (the reuse rule)."""
        run = self.runs.get(key)
        return run if run is not None and same_run(run.config, config) else None

    def run(
        self,
        key: str,
        config: Mapping[str, Any],
        work: Callable[[Path], Mapping[str, Any]],
        *,
        failures: tuple[type[Exception], ...] = (),
    ) -> SweepRun:
        """The run ``key``: reused from the log, or ``work(directory)`` called and logged.

        ``work`` returns the run's result (a JSON object). An exception of a type in
        ``failures`` (a diverging grid point) is logged as a failed run and returned; any
        other, and always an interruption, propagates and nothing is logged.
        """
        done = self.finished(key, config)
        if done is not None:
            return done
        directory = self.directory(key)
        self._set_aside_if_changed(key, config, directory)
        directory.mkdir(parents=True, exist_ok=True)
        write_run_file(directory / RUN_CONFIG, json.dumps(_plain(config), indent=2) + "\n")
        started = time.perf_counter()
        try:
            result: dict[str, Any] | None = _plain(work(directory))
            error = None
        except failures as exc:
            if isinstance(exc, TrainingInterrupted):
                raise
            result, error = None, str(exc)
        run = SweepRun(key, _plain(config), result, time.perf_counter() - started, error)
        check_regular_or_absent(self.log)
        with open(self.log, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(asdict(run)) + "\n")
        self.runs[key] = run
        return run

    def _set_aside_if_changed(self, key: str, config: Mapping[str, Any], directory: Path) -> None:
        """Move a directory started (or finished) with other settings to ``KEY.stale``."""
        started = directory / RUN_CONFIG
        changed = key in self.runs or (exists(started) and not same_run(read_regular_json(started), config))
        if not changed or not directory.exists():
            return
        stale = directory.with_name(directory.name + ".stale")
        self.say(f"    settings of {key} changed: running it again ({stale} keeps the old run)")
        if stale.exists():
            shutil.rmtree(stale)
        directory.rename(stale)
