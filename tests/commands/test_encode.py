"""``parasent encode``: one row per input line, a previous output kept whole until the new one
is complete, and bad input or options as one-line errors before any work."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from parasent.cli import main
from parasent.core.model import SentenceModel
from parasent.text.word_vectors import WordVectors


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
    assert main(["encode", "--model", model, str(source), "-o", str(out), "--overwrite"]) == 2
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
            "--overwrite",
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
    assert main(["encode", "--model", model, str(_lines(tmp_path)), "-o", str(out), "--overwrite"]) == 0
    assert np.load(out).shape == (3, 6)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt", "m", "out.npy"]  # leftovers cleaned


def _lines(tmp_path):
    path = tmp_path / "in.txt"
    path.write_text("a\nb\nc\n")
    return path


def test_the_output_extension_says_the_format_or_is_refused(model, tmp_path, capsys):
    source = tmp_path / "in.txt"
    source.write_text("the cat\nsat dog\n")
    base = ["encode", "--model", model, str(source), "--quiet", "-o"]
    assert main([*base, str(tmp_path / "v.txt")]) == 0
    rows = np.loadtxt(tmp_path / "v.txt")
    np.testing.assert_allclose(
        rows, SentenceModel.load(model).encode(["the cat", "sat dog"]), rtol=1e-5, atol=1e-6
    )
    assert main([*base, str(tmp_path / "v.tsv")]) == 0
    assert np.loadtxt(tmp_path / "v.tsv", delimiter="\t").shape == (2, 6)
    capsys.readouterr()
    assert main([*base, str(tmp_path / "v.csv")]) == 2
    assert ".csv names no output format" in capsys.readouterr().err
    assert main([*base, str(tmp_path / "v.npy"), "--format", "jsonl"]) == 2
    assert "a .npy file is not --format jsonl" in capsys.readouterr().err
    assert not (tmp_path / "v.csv").exists() and not (tmp_path / "v.npy").exists()
    assert main([*base, str(tmp_path / "v.vec"), "--format", "txt"]) == 0  # --format names it


def test_no_progress_bar_off_a_terminal_or_with_quiet(model, tmp_path, capsys):
    source = tmp_path / "in.txt"
    source.write_text("the cat\n" * 5)
    assert main(["encode", "--model", model, str(source), "-o", str(tmp_path / "v.npy")]) == 0
    assert "sentence/s" not in capsys.readouterr().err and "it/s" not in capsys.readouterr().err


def run_in_terminal(argv, cwd):
    """Run ``python -m parasent argv`` with a pseudo-terminal as stdout and stderr; its output."""
    import os
    import pty

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    output = bytearray()

    def read(fd):
        data = os.read(fd, 65536)
        output.extend(data)
        return data

    pid, fd = pty.fork()
    if pid == 0:  # the child: a terminal 120 columns wide (a new one has none, and tqdm draws nothing)
        import fcntl
        import struct
        import termios

        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))
        os.chdir(cwd)
        os.execvpe(sys.executable, [sys.executable, "-m", "parasent", *argv], env)
    try:
        while read(fd):
            pass
    except OSError:
        pass
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), output.decode("utf-8", "replace")


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_progress_bars_on_a_terminal_for_encode_index_and_evaluate(model, tmp_path, mini_data_dir):
    source = tmp_path / "in.txt"
    source.write_text("the cat\n" * 50)
    code, out = run_in_terminal(["encode", "--model", model, str(source), "-o", "v.npy"], tmp_path)
    assert code == 0 and "encode: 100%" in out and "50/50" in out  # a total, hence an ETA
    argv = ["index", "--model", model, str(source), "-o", "idx"]
    ann = __import__("importlib").util.find_spec("usearch") is not None
    code, out = run_in_terminal(argv + (["--ann"] if ann else []), tmp_path)
    assert code == 0 and "index" in out and "50/50" in out
    if ann:
        assert "ann graph" in out
    code, out = run_in_terminal(["encode", "--model", model, str(source), "-o", "w.npy", "--quiet"], tmp_path)
    assert code == 0 and "encode:" not in out
    argv = ["evaluate", "--model", model, "--suite", "sts2016", "--data-dir", str(mini_data_dir)]
    code, out = run_in_terminal(argv, tmp_path)
    assert code == 0 and "encode: 100%" in out
    code, out = run_in_terminal([*argv, "--quiet"], tmp_path)
    assert code == 0 and "encode: " not in out


def test_leftovers_of_a_killed_encode_are_removed_by_the_next(model, tmp_path):
    leftover = tmp_path / ".out.npy.tmp-999999999"  # no such process
    leftover.write_bytes(b"\0" * 200)
    (tmp_path / "in.txt").write_text("the cat\n")
    assert main(["encode", "--model", model, str(tmp_path / "in.txt"), "-o", str(tmp_path / "out.npy")]) == 0
    assert not leftover.exists() and np.load(tmp_path / "out.npy").shape == (1, 6)


def test_workers_write_shards_and_say_so(model, tmp_path, capsys):
    from parasent.corpus.sharded_encoding import shard_paths

    source = tmp_path / "in.txt"
    source.write_text("".join(f"the cat {i}\n" for i in range(7)))
    single, sharded = tmp_path / "single.jsonl", tmp_path / "sharded.jsonl"
    assert main(["encode", "--model", model, str(source), "-o", str(single), "--quiet"]) == 0
    assert main(["encode", "--model", model, str(source), "-o", str(sharded), "--workers", "2"]) == 0
    shards = shard_paths(str(sharded), 2)
    assert "".join(open(p, encoding="utf-8").read() for p in shards) == single.read_text(encoding="utf-8")
    err = capsys.readouterr().err
    assert f"encoded 7 sentence(s) to 2 shards {shards[0]} ... {shards[1]}" in err


@pytest.mark.parametrize("workers", [1, 2])
def test_an_existing_output_is_kept_without_overwrite(model, tmp_path, capsys, workers):
    from parasent.corpus.sharded_encoding import shard_paths

    source = _lines(tmp_path)
    out = str(tmp_path / "mine.jsonl")
    taken = shard_paths(out, workers)[-1] if workers > 1 else out
    Path(taken).write_text("the user's own file\n")
    argv = ["encode", "--model", model, str(source), "-o", out, "--workers", str(workers)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert (
        f"--output {taken}: exists; not replacing it (pass --overwrite" in err and len(err.splitlines()) == 1
    )
    assert Path(taken).read_text() == "the user's own file\n"
    assert main([*argv, "--overwrite"]) == 0
    assert Path(taken).read_text() != "the user's own file\n"


def test_a_pipe_as_output_is_written_into_not_replaced(model, tmp_path):
    import os
    import stat
    import threading

    pipe = tmp_path / "pipe.jsonl"
    os.mkfifo(pipe)
    received = []
    reader = threading.Thread(target=lambda: received.append(pipe.read_text()), daemon=True)
    reader.start()
    assert main(["encode", "--model", model, str(_lines(tmp_path)), "-o", str(pipe), "--quiet"]) == 0
    reader.join(timeout=30)
    assert stat.S_ISFIFO(pipe.stat().st_mode) and received and received[0].count("\n") == 3


def test_the_bar_has_a_total_for_a_file_on_a_terminal(model, tmp_path, monkeypatch):
    import argparse

    from parasent.commands.encode import _bar_total

    source = tmp_path / "in.txt"
    source.write_text("the cat\nthe dog\nsat")
    args = argparse.Namespace(quiet=False, input=str(source))
    monkeypatch.setattr("sys.stderr.isatty", lambda: True)
    assert _bar_total(args) == 3
    assert _bar_total(argparse.Namespace(quiet=False, input="-")) is None  # stdin is read once
    assert _bar_total(argparse.Namespace(quiet=True, input=str(source))) is None
    monkeypatch.setattr("sys.stderr.isatty", lambda: False)
    assert _bar_total(args) is None  # no bar in a pipe or a log: nothing to count for


def _open_when_read(fifo, child, seconds: float = 60) -> int:
    """The writing end of ``fifo`` once ``child`` has opened it to read (which it does after
    checking its --output); fails if the child exits first."""
    import errno
    import os
    import time

    deadline = time.monotonic() + seconds
    while True:
        try:
            return os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as exc:
            if exc.errno != errno.ENXIO:
                raise
        assert child.poll() is None, child.stderr.read()
        assert time.monotonic() < deadline, "the encode never opened its input"
        time.sleep(0.01)


@pytest.mark.parametrize("suffix", [".jsonl", ".npy"])
def test_two_racing_encodes_to_one_new_output(model, tmp_path, suffix):
    """Both runs find --output free when they start; the second to finish must not replace the
    first one's result: it fails with the one-line "exists" error, and the file is the first's."""
    import os

    out = tmp_path / f"out{suffix}"
    fifos = [tmp_path / f"in{i}" for i in range(2)]
    children = []
    for fifo in fifos:
        os.mkfifo(fifo)
        children.append(
            subprocess.Popen(
                [sys.executable, "-m", "parasent.cli", "encode", "--model", model, str(fifo), "-o", str(out)],
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    ends = [
        _open_when_read(fifo, child) for fifo, child in zip(fifos, children, strict=True)
    ]  # both past the check
    for rows, end in enumerate(ends, 2):
        os.write(end, b"the cat\n" * rows)  # two rows from the first run, three from the second
        os.close(end)
    codes = [child.wait(120) for child in children]
    errors = [child.stderr.read() for child in children]
    assert sorted(codes) == [0, 2], errors
    loser = errors[codes.index(2)].strip()
    assert loser.count("\n") == 0 and loser.startswith(f"parasent: error: {out}: exists"), loser
    assert "pass --overwrite" in loser
    rows = 2 + codes.index(0)  # the winner's rows, whole
    if suffix == ".npy":
        assert np.load(out).shape == (rows, 6)
    else:
        assert len(out.read_text().splitlines()) == rows
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in0", "in1", "m", out.name]


def test_lines_of_units_the_model_does_not_know_are_counted_not_silent(model, tmp_path, capsys):
    """An emoji-only line (no unit of the model) was a row of zeros with nothing said."""
    (tmp_path / "in.txt").write_text("the cat\n🎉🎉\n\nzzz qqq\nsat\n", encoding="utf-8")
    assert main(["encode", "--model", model, str(tmp_path / "in.txt"), "-o", str(tmp_path / "o.npy")]) == 0
    err = capsys.readouterr().err
    assert "1 blank line(s)" in err
    assert "2 line(s) with no unit the model knows encoded as zero vectors (the first, line 2: '🎉🎉')" in err
    vectors = np.load(tmp_path / "o.npy")
    assert not vectors[1:4].any() and vectors[0].any() and vectors[4].any()


def test_workers_count_blank_and_unknown_lines_as_one_process_does(model, tmp_path, capsys):
    """``--workers`` said nothing of blank lines or lines of no known unit."""
    source = tmp_path / "in.txt"
    source.write_text("the cat\n\nsat\nthe cat\n🎉🎉\n\n", encoding="utf-8")
    assert main(["encode", "--model", model, str(source), "-o", str(tmp_path / "one.npy")]) == 0
    single = capsys.readouterr().err.splitlines()[1:]
    assert (
        main(["encode", "--model", model, str(source), "-o", str(tmp_path / "v.npy"), "--workers", "2"]) == 0
    )
    sharded = capsys.readouterr().err.splitlines()[1:]
    assert (
        sharded
        == single
        == [
            "2 blank line(s) encoded as zero vectors (one row per line)",
            "1 line(s) with no unit the model knows encoded as zero vectors (the first, line 5: '🎉🎉')",
        ]
    )


def test_workers_without_a_file_to_shard_is_a_usage_error(tmp_path, capsys):
    assert main(["encode", "-", "--workers", "2", "-o", str(tmp_path / "x.npy")]) == 2
    assert capsys.readouterr().err == "parasent: error: --workers needs an input file and an --output path\n"
