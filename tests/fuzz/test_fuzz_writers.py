"""Concurrent writers: two processes writing one target at once.

Each input picks a write (``encode`` to ``.npy`` and JSONL, word vectors, a model save, both
exports, an index), what is at the target before (nothing, or a previous version), ``overwrite``
or not, and how the two meet: released together just before their renames (both past every
check, the race the checks cannot see) or started a few milliseconds apart. Two long-lived
worker processes run the writes, each a different model.

What must hold: each writer succeeds or fails with parasent's own one-line error naming the
target; the target afterwards is whole and is exactly one successful writer's result (or the
previous version when none succeeded); of two writers that claimed a new target without
``overwrite``, exactly one succeeds; a file that was there is never replaced without
``overwrite``; no staging or previous-version files remain beside it.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import queue
import random
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from tests.fuzz.mutate import FUZZ_N, Tally

WORDS = ["the", "cat", "sat", "on", "mat", "dog"]
LINES = ["the cat sat", "a dog", "", "on the mat"] * 8
# write -> (target name, a directory?, takes overwrite?)
WRITES = {
    "encode-npy": ("out.npy", False, True),
    "encode-jsonl": ("out.jsonl", False, True),
    "word-vectors": ("vectors.txt.gz", False, True),
    "save": ("model", True, True),
    "export-sentence-transformers": ("st", True, True),
    "export-model2vec": ("m2v", True, True),
    "index": ("index", True, False),  # an index replaces the directory it finds
}


def _model(seed: int):
    from parasent.core.model import SentenceModel
    from parasent.text.word_vectors import WordVectors

    rng = np.random.default_rng(seed)
    return SentenceModel.from_vectors(WordVectors(WORDS, rng.normal(size=(len(WORDS), 6)).astype(np.float32)))


def write(kind: str, target: Path, seed: int, overwrite: bool) -> None:
    """The write ``kind`` of model ``seed`` to ``target`` (the library call the command makes)."""
    from parasent.core.vector_files import write_vectors
    from parasent.corpus.index import build_index
    from parasent.text.word_vectors import WordVectors, write_word_vectors

    model = _model(seed)
    if kind.startswith("encode-"):
        write_vectors(model, iter(LINES), str(target), kind[7:], batch_size=5, overwrite=overwrite)
    elif kind == "word-vectors":
        table = np.asarray(model.weights["embedding.weight"])[2:]
        write_word_vectors(target, WordVectors(WORDS, table), overwrite=overwrite)
    elif kind == "save":
        model.save(target, overwrite=overwrite)
    elif kind.startswith("export-"):
        model.export(target, kind[7:], overwrite=overwrite)
    else:
        corpus = target.parents[2] / f"corpus-{seed}.txt"  # one path for every write of it
        corpus.write_text("\n".join(LINES[:4]) + "\n")
        build_index(model, corpus, target, progress=False)


def _worker(jobs, results, barrier) -> None:
    """Run writes until ``None``; with ``together`` each waits at the barrier just before its
    renames (after every check), so that both writers commit at the same moment."""
    import contextlib

    from parasent.errors import ParasentError
    from parasent.support import staging

    mode = {"together": False}
    deferred = staging.signals_deferred

    @contextlib.contextmanager
    def meet_then_defer():
        if mode["together"]:
            with contextlib.suppress(Exception):  # the other writer failed before its commit
                barrier.wait()
        with deferred():
            yield

    staging.signals_deferred = meet_then_defer
    while (job := jobs.get()) is not None:
        kind, target, seed, overwrite, together, delay = job
        mode["together"] = together
        time.sleep(delay)
        try:
            write(kind, Path(target), seed, overwrite)
            results.put((seed, "ok", ""))
        except ParasentError as exc:
            results.put((seed, "refused", str(exc)))
        except BaseException as exc:  # noqa: BLE001 - anything else is a finding
            results.put((seed, "crashed", f"{type(exc).__name__}: {exc}"))


def _snapshot(path: Path):
    if path.is_file():
        return hashlib.sha256(path.read_bytes()).hexdigest()
    if path.is_dir():
        return {
            str(p.relative_to(path)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(path.rglob("*"))
            if p.is_file()
        }
    return None


def _references(root: Path) -> dict[tuple[str, int], object]:
    """What each write of each model produces, written alone."""
    found = {}
    for kind, (name, _, _) in WRITES.items():
        for seed in (0, 1, 2):
            folder = root / f"reference-{kind}-{seed}" / "parent"
            folder.mkdir(parents=True)
            write(kind, folder / name, seed, True)
            found[kind, seed] = _snapshot(folder / name)
    return found


class Workers:
    """Two spawned processes (importing parasent once), each with a queue of writes."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")
        self.barrier = context.Barrier(2, timeout=10)
        self.results = context.Queue()
        self.jobs = [context.Queue(), context.Queue()]
        self.processes = [
            context.Process(target=_worker, args=(jobs, self.results, self.barrier), daemon=True)
            for jobs in self.jobs
        ]
        for process in self.processes:
            process.start()

    def race(self, jobs: list[tuple]) -> dict[int, tuple[str, str]]:
        for queue_, job in zip(self.jobs, jobs, strict=True):
            queue_.put(job)
        outcomes = {}
        for _ in jobs:
            seed, status, message = self.results.get(timeout=120)
            outcomes[seed] = (status, message)
        if self.barrier.broken:
            self.barrier.reset()
        return outcomes

    def close(self) -> None:
        for queue_ in self.jobs:
            queue_.put(None)
        for process in self.processes:
            process.join(30)
            if process.is_alive():
                process.kill()


def _prepare(parent: Path, kind: str, state: str) -> None:
    parent.mkdir(parents=True)
    name = WRITES[kind][0]
    if state == "previous":
        write(kind, parent / name, 2, True)


def _problems(kind, state, overwrite, together, outcomes, parent, references) -> list[str]:
    name, directory, takes_overwrite = WRITES[kind]
    target = parent / name
    problems = []
    for seed, (status, message) in outcomes.items():
        if status == "crashed" or (status == "refused" and (str(target) not in message or "\n" in message)):
            problems.append(f"writer {seed}: {status}: {message[:300]}")
    winners = [seed for seed, (status, _) in outcomes.items() if status == "ok"]
    now = _snapshot(target)
    expected = [references[kind, seed] for seed in winners] or [
        references[kind, 2] if state == "previous" else None
    ]
    if now not in expected:
        problems.append(f"the target is no successful writer's result (winners {winners})")
    claimed = takes_overwrite and not overwrite
    if claimed and state == "absent" and together and len(winners) != 1:
        problems.append(f"{len(winners)} writers claimed one new target")
    if claimed and state == "previous" and not directory and winners:
        problems.append("a file that was there was replaced without overwrite")
    strays = sorted(p.name for p in parent.iterdir() if p.name != name)
    if strays:
        problems.append(f"left {strays}")
    return problems


def test_concurrent_writers(tmp_path):
    pytest.importorskip("safetensors")
    rng = random.Random(53)
    references = _references(tmp_path)
    tally = Tally("concurrent-writers")
    workers = Workers()
    try:
        for index in range(max(FUZZ_N // 10, 30)):
            kind = rng.choice(sorted(WRITES))
            state = rng.choice(["absent", "previous"])
            overwrite = rng.random() < 0.3
            together = rng.random() < 0.7
            parent = tmp_path / f"w{index}" / "parent"
            _prepare(parent, kind, state)
            target = str(parent / WRITES[kind][0])
            delays = [0.0, 0.0] if together else [rng.uniform(0, 0.02), rng.uniform(0, 0.02)]
            jobs = [(kind, target, seed, overwrite, together, delays[seed]) for seed in (0, 1)]
            tally.inputs += 1
            try:
                outcomes = workers.race(jobs)
            except queue.Empty:
                tally.failures.append(f"{kind} {state}: a writer hung")
                break
            tally.rejected += sum(status == "refused" for status, _ in outcomes.values())
            for problem in _problems(kind, state, overwrite, together, outcomes, parent, references):
                tally.failures.append(
                    f"{kind} state={state} overwrite={overwrite} together={together}: {problem}"
                )
            shutil.rmtree(parent.parent)
    finally:
        workers.close()
    print(tally.report())
    assert not tally.failures, "\n".join(tally.failures[:10])
