"""``parasent encode``: one row per input line, a previous output kept whole until the new one
is complete, and bad input or options as one-line errors before any work."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from parasent.cli import main
from parasent.data.vectors import WordVectors
from parasent.model import SentenceModel


@pytest.fixture()
def model(tmp_path):
    rng = np.random.default_rng(0)
    words = ["the", "cat", "sat", "dog"]
    return str(
        SentenceModel.from_vectors(WordVectors(words, rng.normal(size=(4, 6)).astype(np.float32))).save(
            tmp_path / "m"
        )
    )


def test_one_row_per_line_even_with_bare_carriage_returns(model, tmp_path):
    source = tmp_path / "in.txt"
    source.write_bytes(b"".join(b"the cat\rsat %d\r\n" % i for i in range(10)))
    assert main(["encode", "--model", model, str(source), "-o", str(tmp_path / "out.npy")]) == 0
    assert np.load(tmp_path / "out.npy").shape == (10, 6)


@pytest.mark.parametrize("option", [["--batch-size", "0"], ["--batch-size", "-3"]])
def test_bad_batch_size_is_refused_before_writing(model, tmp_path, option, capsys):
    out = tmp_path / "out.npy"
    out.write_bytes(b"previous")
    (tmp_path / "in.txt").write_text("the cat\n")
    with pytest.raises(SystemExit) as exit_:
        main(["encode", "--model", model, str(tmp_path / "in.txt"), "-o", str(out), *option])
    assert exit_.value.code == 2 and "must be > 0" in capsys.readouterr().err
    assert out.read_bytes() == b"previous"


def test_bad_encoding_names_file_and_line(model, tmp_path, capsys):
    source = tmp_path / "in.txt"
    source.write_bytes(b"the cat\nthe \xff dog\n")
    out = tmp_path / "out.npy"
    out.write_bytes(b"previous")
    assert main(["encode", "--model", model, str(source), "-o", str(out)]) == 2
    assert f"{source}:2: not valid UTF-8" in capsys.readouterr().err
    assert out.read_bytes() == b"previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt", "m", "out.npy"]


@pytest.mark.parametrize("case", ["missing", "directory", "output-dir-missing", "output-is-dir"])
def test_unusable_paths_are_one_line_errors(model, tmp_path, capsys, case):
    source = tmp_path / "in.txt"
    source.write_text("the cat\n")
    argv = {
        "missing": [str(tmp_path / "nope.txt")],
        "directory": [str(tmp_path)],
        "output-dir-missing": [str(source), "-o", str(tmp_path / "no" / "out.npy")],
        "output-is-dir": [str(source), "-o", str(tmp_path)],
    }[case]
    assert main(["encode", "--model", model, *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("parasent: error: ") and "Traceback" not in err


def test_a_killed_encode_leaves_the_previous_output_whole(model, tmp_path):
    """kill -9 while encoding stdin: the previous .npy is untouched, no partial file appears."""
    out = tmp_path / "out.npy"
    np.save(out, np.ones((2, 6), dtype=np.float32))
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "parasent.cli",
            "encode",
            "--model",
            model,
            "-",
            "-o",
            str(out),
            "--batch-size",
            "1",
        ],
        stdin=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    child.stdin.write(b"the cat\n" * 100)
    child.stdin.flush()
    while not list(tmp_path.glob(".out.npy.tmp-*")):  # writing has started
        assert child.poll() is None
    child.kill()
    child.wait()
    assert np.load(out).shape == (2, 6)
    assert main(["encode", "--model", model, str(_lines(tmp_path)), "-o", str(out)]) == 0
    assert np.load(out).shape == (3, 6)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt", "m", "out.npy"]  # leftovers cleaned


def _lines(tmp_path):
    path = tmp_path / "in.txt"
    path.write_text("a\nb\nc\n")
    return path


def test_a_killed_encode_leaves_no_file_numpy_reads(tmp_path):
    """The header is written last: a run killed mid-way leaves bytes no .npy reader accepts."""
    from parasent.commands.encode import _write_npy

    class Bar:
        def update(self, n):
            pass

    def chunks():
        yield ["a", "b"], np.ones((2, 3), np.float32)
        raise KeyboardInterrupt  # a kill

    partial = tmp_path / ".out.npy.tmp-123"
    with open(partial, "wb") as handle, pytest.raises(KeyboardInterrupt):
        _write_npy(handle, chunks(), 3, Bar())
    with pytest.raises(ValueError):
        np.load(partial)


def test_leftovers_of_a_killed_encode_are_removed_by_the_next(model, tmp_path):
    leftover = tmp_path / ".out.npy.tmp-999999999"  # no such process
    leftover.write_bytes(b"\0" * 200)
    (tmp_path / "in.txt").write_text("the cat\n")
    assert main(["encode", "--model", model, str(tmp_path / "in.txt"), "-o", str(tmp_path / "out.npy")]) == 0
    assert not leftover.exists() and np.load(tmp_path / "out.npy").shape == (1, 6)
