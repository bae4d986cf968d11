"""``parasent export`` against other writers: two exports racing to one target, and SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from parasent.core.model import SentenceModel, load
from parasent.text.word_vectors import WordVectors

PAUSED = [sys.executable, str(Path(__file__).with_name("paused_cli.py"))]
WORDS = ["the", "cat", "sat", "dog"]


def _model(path, seed: int) -> str:
    rng = np.random.default_rng(seed)
    return str(
        SentenceModel.from_vectors(WordVectors(WORDS, rng.normal(size=(4, 6)).astype(np.float32))).save(path)
    )


def _paused(argv, tmp_path, name: str) -> subprocess.Popen:
    env = {
        **os.environ,
        "PARASENT_PAUSE_READY": str(tmp_path / f"ready-{name}"),
        "PARASENT_PAUSE_GO": str(tmp_path / "go"),
    }
    return subprocess.Popen([*PAUSED, *argv], env=env, stderr=subprocess.PIPE, text=True)


def _wait_for(path: Path, children, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        for child in children:
            assert child.poll() is None, child.stderr.read()
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.01)


def test_two_exports_racing_to_one_new_target(tmp_path):
    """Two models exported to one free target, both past their checks before either renames:
    the second must not replace the first one's export."""
    models = [_model(tmp_path / f"m{i}", seed=i) for i in range(2)]
    target = tmp_path / "out" / "target"
    target.parent.mkdir()
    children = [
        _paused(["export", "--model", m, str(target)], tmp_path, str(i)) for i, m in enumerate(models)
    ]
    for i in range(2):
        _wait_for(tmp_path / f"ready-{i}", children)
    (tmp_path / "go").touch()
    codes = [child.wait(120) for child in children]
    errors = [child.stderr.read().strip() for child in children]
    assert sorted(codes) == [0, 2], errors
    loser = errors[codes.index(2)]
    assert loser.count("\n") == 0 and loser.startswith(f"parasent: error: {target}: exists"), loser
    winner = load(models[codes.index(0)])
    assert np.allclose(load(target).encode(["the cat"]), winner.encode(["the cat"]), atol=1e-6)
    assert sorted(p.name for p in target.parent.iterdir()) == ["target"]  # no staging left


def test_sigterm_during_export_removes_its_staging(tmp_path):
    """SIGTERM is handled as Ctrl-C is: a message, the staging folder removed, exit 143; the
    previous export stays whole."""
    model = _model(tmp_path / "m", seed=0)
    target = tmp_path / "out" / "target"
    assert (
        subprocess.run(
            [sys.executable, "-m", "parasent.cli", "export", "--model", model, str(target)]
        ).returncode
        == 0
    )
    before = {p.name: p.read_bytes() for p in target.iterdir() if p.is_file()}
    child = _paused(["export", "--model", model, "--overwrite", str(target)], tmp_path, "t")
    _wait_for(tmp_path / "ready-t", [child])
    assert list(target.parent.glob(".target.tmp-*"))  # it is inside its staging folder
    child.send_signal(signal.SIGTERM)
    assert child.wait(30) == 143
    assert child.stderr.read().strip().splitlines()[-1] == "parasent: terminated (SIGTERM)"
    assert sorted(p.name for p in target.parent.iterdir()) == ["target"]
    assert {p.name: p.read_bytes() for p in target.iterdir() if p.is_file()} == before


@pytest.mark.parametrize("command", ["export", "index"])
def test_a_target_name_that_is_not_utf8_is_named(tmp_path, command, capsys):
    """Model and index files are written by libraries that take UTF-8 names: a name whose bytes
    are not UTF-8 is one line naming it and saying what to do, not 'error: utf-8'."""
    from parasent.cli import main

    model = _model(tmp_path / "m", seed=0)
    (tmp_path / "corpus.txt").write_text("the cat\n")
    target = os.fsdecode(bytes(tmp_path) + b"/out\xff")
    argv = (
        ["export", "--model", model, target]
        if command == "export"
        else ["index", str(tmp_path / "corpus.txt"), "--model", model, "-o", target, "--quiet"]
    )
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert (
        err
        == f"parasent: error: {tmp_path}/out\\xff: the name is not UTF-8 text; model, index and weights files are written and read by libraries that take UTF-8 names: rename it (or choose another path) with a UTF-8 name"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.txt", "m"]


def test_a_second_export_to_one_folder_needs_overwrite(tmp_path, capsys):
    """`export` twice to one folder replaced the first without a word (round 4)."""
    from parasent.cli import main

    out = tmp_path / "st"
    assert main(["export", "--format", "sentence-transformers", str(out)]) == 0
    first = sorted(p.name for p in out.iterdir())
    assert main(["export", "--format", "sentence-transformers", str(out)]) == 2
    assert "not replacing it (pass --overwrite" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == first
    assert main(["export", "--format", "sentence-transformers", str(out), "--overwrite"]) == 0


def test_words_only_on_a_contextual_model_is_refused_without_a_note_first(tmp_path, capsys):
    from parasent.cli import main
    from parasent.training.features_stage import compose_rows

    path = compose_rows(load("default"), "contextual", {"hidden": 4}, seed=0).save(tmp_path / "ctx")
    argv = ["export", "--model", str(path), "--format", "model2vec", "--words-only", str(tmp_path / "out")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "is not static" in err and "dropped" not in err
    assert not (tmp_path / "out").exists()


def test_evaluate_with_a_data_directory_lacking_the_suite_writes_nothing(tmp_path, capsys):
    """--evaluate read its data after writing: a bad --data-dir left an unscored export behind."""
    from parasent.cli import main

    (tmp_path / "empty").mkdir()
    for data in (tmp_path / "missing", tmp_path / "empty"):
        assert main(["export", str(tmp_path / "out"), "--evaluate", "--data-dir", str(data)]) != 0
        assert capsys.readouterr().err.startswith("parasent: error:")
        assert not (tmp_path / "out").exists()
