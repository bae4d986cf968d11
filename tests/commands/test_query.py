"""``parasent query``: queries from arguments, stdin ('-') or a file, as text or JSON lines."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from parasent.cli import main
from parasent.core.index import build_index
from parasent.core.model import SentenceModel
from parasent.data.vectors import WordVectors

CORPUS = ["a man is playing guitar", "the cat sat on the mat", "a dog runs", "music"]


@pytest.fixture()
def index(tmp_path):
    words = ["a", "man", "is", "playing", "guitar", "the", "cat", "sat", "on", "mat", "dog", "runs", "music"]
    model = SentenceModel.from_vectors(
        WordVectors(words, np.random.default_rng(0).normal(size=(len(words), 8)).astype(np.float32))
    )
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(CORPUS) + "\n")
    return str(build_index(model, corpus, tmp_path / "idx", progress=False))


def test_dash_reads_queries_from_stdin(index, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"a dog runs\nthe cat sat on the mat\n")))
    assert main(["query", index, "-", "-k", "1", "--json"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["query"] for r in records] == ["a dog runs", "the cat sat on the mat"]  # not the text "-"
    assert [r["hits"][0]["text"] for r in records] == ["a dog runs", "the cat sat on the mat"]


def test_queries_from_a_file_and_as_text(index, tmp_path, capsys):
    queries = tmp_path / "q.txt"
    queries.write_text("music\na man is playing guitar\n")
    assert main(["query", index, "--queries", str(queries), "-k", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "# music",
        "1\t1.0000\t3\tmusic",
        "# a man is playing guitar",
        "1\t1.0000\t0\ta man is playing guitar",
    ]


def test_no_query_or_a_missing_file_is_one_line(index, tmp_path, capsys):
    assert main(["query", index]) == 2
    assert "give TEXT, '-'" in capsys.readouterr().err
    assert main(["query", index, "--queries", str(tmp_path / "none.txt")]) == 2
    err = capsys.readouterr().err
    assert "none.txt: no such file" in err and len(err.strip().splitlines()) == 1
