"""One writer per run directory: a second run fails at once naming the holder; a dead
holder's lock never blocks; log records carry a run id."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from parasent.errors import RunLockedError
from parasent.support.runlock import LOCK_FILE, run_lock


def _hold_in_child(directory):
    """A child process that takes the lock, says so, and waits for its stdin to close."""
    code = textwrap.dedent(
        f"""
        import sys
        from parasent.support.runlock import run_lock
        with run_lock({str(directory)!r}):
            print("locked", flush=True)
            sys.stdin.read()
        """
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert child.stdout.readline().strip() == "locked"
    return child


def test_second_run_fails_naming_the_other_process(tmp_path):
    child = _hold_in_child(tmp_path / "run")
    try:
        with pytest.raises(RunLockedError, match=rf"in use by another parasent run \(pid {child.pid} "):
            with run_lock(tmp_path / "run"):
                pass
    finally:
        child.stdin.close()
        child.wait()
    with run_lock(tmp_path / "run") as run_id:  # released when the holder ends
        assert run_id


def test_lock_of_a_killed_process_does_not_block(tmp_path):
    child = _hold_in_child(tmp_path / "run")
    child.kill()
    child.wait()
    assert json.loads((tmp_path / "run" / LOCK_FILE).read_text())["pid"] == child.pid  # stale file left
    with run_lock(tmp_path / "run"):
        info = json.loads((tmp_path / "run" / LOCK_FILE).read_text())
    assert info["pid"] != child.pid


def test_lock_is_reentrant_within_a_process(tmp_path):
    with run_lock(tmp_path) as outer, run_lock(tmp_path) as inner:
        assert outer == inner


@pytest.mark.parametrize("rank, blocked", [("0", True), ("1", False)])
def test_under_torchrun_rank_zero_alone_holds_the_lock(tmp_path, monkeypatch, rank, blocked):
    """The ranks of one torchrun job share a run directory: rank 0 (the one writer) locks it,
    the other ranks must not fail on that lock."""
    child = _hold_in_child(tmp_path / "run")
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("RANK", rank)
    try:
        if blocked:
            with pytest.raises(RunLockedError):
                with run_lock(tmp_path / "run"):
                    pass
        else:
            with run_lock(tmp_path / "run") as run_id:
                assert run_id
    finally:
        child.stdin.close()
        child.wait()


def test_a_directory_the_lock_made_goes_again_when_the_run_fails_before_writing(tmp_path):
    made = tmp_path / "run"
    with pytest.raises(RuntimeError), run_lock(made):
        raise RuntimeError("refused at the first stage")
    assert not made.exists()
    mine = tmp_path / "mine"
    mine.mkdir()
    with pytest.raises(RuntimeError), run_lock(mine):
        raise RuntimeError
    assert mine.is_dir()  # the user's directory stays
    written = tmp_path / "written"
    with pytest.raises(RuntimeError), run_lock(written):
        (written / "log.jsonl").write_text("{}\n")
        raise RuntimeError
    assert (written / "log.jsonl").is_file()  # what a run wrote is never removed


def test_the_holders_command_is_its_whole_line_cut_visibly():
    """The lock kept the first 6 words of the command, cut without a mark."""
    from parasent.support.runlock import COMMAND_CHARS, command_line

    argv = ["/venv/bin/parasent", "train", "--recipe", "contextual", "--out", "runs/a", "--epochs", "4"]
    assert command_line(argv) == "parasent train --recipe contextual --out runs/a --epochs 4"
    assert command_line(["/src/parasent/__main__.py", "train"]) == "python -m parasent train"
    long = command_line(["parasent", "train", "--pairs", "x" * 400])
    assert (
        len(long) == COMMAND_CHARS and long.endswith("...") and long.startswith("parasent train --pairs xx")
    )
