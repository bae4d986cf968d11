"""The command line on mutated command lines: every run ends with exit status 0, 2 (a one-line
error) or 130, never a traceback, and never hangs."""

from __future__ import annotations

import contextlib
import io
import random

import numpy as np
import pytest

from parasent.cli import main
from parasent.core.model import SentenceModel
from parasent.text.word_vectors import WordVectors, write_word_vectors
from tests.fuzz.mutate import FUZZ_N, Hang, time_limit

VALUES = [
    "",
    "-1",
    "0",
    "1",
    "2",
    "nan",
    "inf",
    "-inf",
    "1e999",
    "3.5",
    "x",
    "\udcff",
    "caf\udce9",
    "bogus",
    "cuda",
    "cuda:7",
    "cpu",
    "foo=bar",
    "layers=-1",
    "layers=1000000",
    "1:2",
    "3:1:0.5",
    "a:b:c",
    "{PATH}/missing.txt",
    "{PATH}",
    "{PATH}/in.txt",
    "{PATH}/file",
    "/nonexistent/dir/out.json",
    "{PATH}/model",
    "none",
]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli")
    rng = np.random.default_rng(0)
    words = ["the", "cat", "sat", "dog", "ran", "a"]
    vectors = WordVectors(words, rng.normal(size=(len(words), 8)).astype(np.float32))
    SentenceModel.from_vectors(vectors).save(root / "model")
    write_word_vectors(root / "vectors.txt", vectors)
    (root / "in.txt").write_text("the cat sat\na dog ran\r\nthe\n")
    (root / "pairs.tsv").write_text("the cat sat\ta cat sat\nthe dog ran\ta dog ran\n" * 3)
    (root / "file").write_text("a plain file\n")
    return root


def templates(root) -> list[list[str]]:
    model = str(root / "model")
    return [
        ["similarity", "--model", model, "the cat", "a dog"],
        ["encode", "--model", model, str(root / "in.txt"), "-o", str(root / "out.npy"), "--batch-size", "2"],
        ["encode", "--model", model, str(root / "in.txt"), "--normalize"],
        ["export", "--model", model, str(root / "exported")],
        [
            "evaluate",
            "--vectors",
            str(root / "vectors.txt"),
            "--suite",
            "nosuch",
            "--json",
            str(root / "r.json"),
        ],
        [
            "train",
            "--out",
            str(root / "run"),
            "--pool",
            "none",
            "--pairs",
            str(root / "pairs.tsv"),
            "--vectors",
            str(root / "vectors.txt"),
            "--validation",
            "none",
            "--epochs",
            "1",
            "--batch-size",
            "2",
            "--quiet",
            "--clip",
            "1",
            "--device",
            "cpu",
            "--recipe",
            "paper",
        ],
        ["compare", "--out", str(root / "cmp"), "--seeds", "1", "--variants", "nosuch", "--preset", "ci"],
        [
            "sts-system",
            "--model",
            model,
            "--out",
            str(root / "sts"),
            "--sweep",
            "1:2:0.5",
            "--data-dir",
            "/nonexistent",
        ],
        [
            "distill",
            "--teacher",
            str(root / "file"),
            "--vocab",
            "10",
            "-o",
            str(root / "d.txt"),
            "--device",
            "cpu",
        ],
        ["head", "train", "--out", str(root / "head"), "--hidden", "4", "--data-dir", "/nonexistent"],
        ["analyze", "words", model, "-k", "3", "--data-dir", "/nonexistent"],
    ]


def mutate_argv(argv: list[str], rng: random.Random, root) -> list[str]:
    argv = list(argv)
    for _ in range(rng.randint(1, 2)):
        i = rng.randrange(1, len(argv))
        action = rng.random()
        if action < 0.7:
            argv[i] = rng.choice(VALUES).replace("{PATH}", str(root))
        elif action < 0.85:
            del argv[i]
            if len(argv) < 2:
                break
        else:
            argv.insert(i, argv[i])
    return argv


def run_cli(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse usage errors
            code = exc.code if isinstance(exc.code, int) else 2
    return code, err.getvalue()


def test_cli_survives_mutated_command_lines(workdir, monkeypatch):
    monkeypatch.setenv("PARASENT_DATA", str(workdir))  # no shared data: commands needing it fail cleanly
    monkeypatch.chdir(workdir)  # a mutated output path ("1", "x") lands here, not in the repository
    rng = random.Random(5)
    failures = []
    base = templates(workdir)
    n = max(FUZZ_N // 2, 40)
    for _ in range(n):
        argv = mutate_argv(rng.choice(base), rng, workdir)
        try:
            with time_limit(60):
                code, stderr = run_cli(argv)
        except Hang:
            failures.append(f"{argv}: hang")
            continue
        except BaseException as exc:  # noqa: BLE001 - anything escaping main is a finding
            failures.append(f"{argv}: {type(exc).__name__}: {exc}")
            continue
        errors = [line for line in stderr.splitlines() if "error:" in line or "Traceback" in line]
        if code not in (0, 2, 130) or "Traceback" in stderr or (code == 2 and len(errors) != 1):
            failures.append(f"{argv}: exit {code}: {stderr[-400:]}")
    print(f"cli: {n} command lines, {len(failures)} failures")
    assert not failures, "\n".join(failures[:10])
