"""Named pipes a user names as inputs: read once into a copy that every later read opens, and
refused, never waited on for ever, when nothing writes to them."""

from __future__ import annotations

import os
import threading
import time

import pytest

from parasent.errors import SpecialFileError
from parasent.support import pipes
from parasent.support.lines import LineReader


def _pipe_with_writer(path, text: str) -> threading.Thread:
    os.mkfifo(path)

    def feed():
        with open(path, "w") as handle:
            handle.write(text)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    return writer


def test_a_pipe_read_twice_reads_its_copy_the_second_time(tmp_path):
    path = tmp_path / "pairs"
    writer = _pipe_with_writer(path, "a man\ta guy\nthe cat\tthe kitten\n")
    first = [text for _, text in LineReader(path, copy_pipe=True)]
    second = [text for _, text in LineReader(path, copy_pipe=True)]  # a pipe gives its bytes once
    writer.join(5)
    assert first == second == ["a man\ta guy", "the cat\tthe kitten"]


def test_a_pipe_nothing_writes_to_is_refused_in_bounded_time(tmp_path, monkeypatch):
    monkeypatch.setattr(pipes, "PIPE_WAIT_S", 0.3)
    path = tmp_path / "silent"
    os.mkfifo(path)
    started = time.monotonic()
    with pytest.raises(
        SpecialFileError, match="silent: a FIFO \\(named pipe\\) that nothing wrote to within 0.3 s"
    ):
        list(LineReader(path, copy_pipe=True))
    assert time.monotonic() - started < 3


def test_evaluate_pairs_reads_a_pipe(tmp_path, capsys):
    """`evaluate --pairs <(zcat f.gz)` was refused as a FIFO (the file is read twice: sniffed, then read)."""
    import numpy as np

    from parasent.cli import main
    from parasent.core.model import SentenceModel
    from parasent.text.word_vectors import WordVectors

    words = ["a", "man", "guy", "the", "cat", "kitten", "dog", "runs", "sleeps", "walks", "plays", "sings"]
    SentenceModel.from_vectors(
        WordVectors(words, np.random.default_rng(0).normal(size=(len(words), 8)).astype(np.float32))
    ).save(tmp_path / "m")
    rows = [f"{i % 5}\ta {w}\tthe {v}" for i, (w, v) in enumerate(zip(words, reversed(words), strict=True))]
    path = tmp_path / "pairs"
    writer = _pipe_with_writer(path, "\n".join(rows) + "\n")
    assert main(["evaluate", "--model", str(tmp_path / "m"), "--pairs", str(path)]) == 0
    writer.join(5)
    assert "pearson" in capsys.readouterr().out
