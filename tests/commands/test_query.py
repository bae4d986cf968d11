"""``parasent query``: queries from arguments, stdin ('-') or a file, as text or JSON lines."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from parasent.cli import main
from parasent.core.model import SentenceModel
from parasent.corpus.index import build_index
from parasent.text.word_vectors import WordVectors

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
    queries.write_text("music\n\n  \na man is playing guitar\n\n")  # blank lines are no queries
    assert main(["query", index, "--queries", str(queries), "-k", "1"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == out
    assert "note: 3 blank line(s) of the queries skipped" in captured.err


def test_no_query_or_a_missing_file_is_one_line(index, tmp_path, capsys):
    assert main(["query", index]) == 2
    assert "give TEXT, '-'" in capsys.readouterr().err
    assert main(["query", index, "--queries", str(tmp_path / "none.txt")]) == 2
    err = capsys.readouterr().err
    assert "none.txt: no such file" in err and len(err.strip().splitlines()) == 1


def _parasent(argv, **env):
    import os
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "parasent.cli", *argv],
        capture_output=True,
        env={**os.environ, **env},
    )


def test_an_output_encoding_that_cannot_write_a_hit_says_what_to_do(tmp_path):
    """``PYTHONIOENCODING=ascii``: the hit 日本語 cannot be printed; the line names it and the fix
    (it said ``parasent: error: ascii``)."""
    words = ["music", "日本語", "cat"]
    model = SentenceModel.from_vectors(WordVectors(words, np.eye(3, dtype=np.float32)))
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("日本語 music\ncat\n", encoding="utf-8")
    index = build_index(model, corpus, tmp_path / "idx", progress=False)
    done = _parasent(["query", str(index), "日本語"], PYTHONIOENCODING="ascii")
    err = done.stderr.decode("ascii").strip()
    assert done.returncode == 2 and err.count("\n") == 0, err
    assert "\\u65e5\\u672c\\u8a9e music" in err  # the text, as stderr can show it
    assert "standard output uses the ascii encoding" in err and "PYTHONIOENCODING=utf-8" in err


def test_utf8_arguments_in_an_ascii_locale_are_read_as_utf8(index):
    """``LC_ALL=POSIX PYTHONUTF8=0``: Python reads the arguments' UTF-8 bytes as lone surrogates;
    a query or a sentence given as UTF-8 is the UTF-8 text it is (it was refused as "a lone
    surrogate")."""
    posix = {"LC_ALL": "POSIX", "LANG": "POSIX", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
    done = _parasent(["query", index, "music 日本語", "-k", "1"], **posix)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().split("\t")[-1].strip() == "music"
    done = _parasent(["similarity", "--model", f"{index}/model", "café music", "music"], **posix)
    assert done.returncode == 0 and float(done.stdout) > 0.5, done.stderr


def test_a_text_argument_that_is_not_utf8_is_named(index, capsys):
    assert main(["query", index, "caf\udce9"]) == 2  # b"caf\xe9": Latin-1, not UTF-8
    err = capsys.readouterr().err.strip()
    assert (
        err
        == "parasent: error: TEXT 'caf\\xe9': not UTF-8 text; pass it as UTF-8 (a UTF-8 terminal or locale, e.g. LC_ALL=C.UTF-8)"
    )


def test_options_may_stand_before_the_texts(index, capsys):
    """`parasent query IX -k 2 "a guitar"` was 'unrecognized arguments': texts follow options too."""
    assert main(["query", index, "-k", "1", "--json", "a dog runs", "music"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["query"] for r in records] == ["a dog runs", "music"]
    assert [len(r["hits"]) for r in records] == [1, 1]
    assert main(["query", index, "music", "-k", "1", "a dog runs", "--json"]) == 0
    assert [json.loads(line)["query"] for line in capsys.readouterr().out.splitlines()] == [
        "music",
        "a dog runs",
    ]
    with pytest.raises(SystemExit):
        main(["query", index, "-k", "1", "music", "--no-such-option"])
    assert "unrecognized arguments: --no-such-option" in capsys.readouterr().err


def test_other_commands_still_refuse_words_left_over(capsys):
    with pytest.raises(SystemExit):
        main(["similarity", "a", "b", "c"])
    assert "unrecognized arguments: c" in capsys.readouterr().err


def test_a_query_the_model_cannot_read_is_said_to_have_no_order(index, capsys):
    assert main(["query", index, "xyzzy plugh", "music", "-k", "2"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "note: query 'xyzzy plugh' has no unit the model knows: every score is 0\n"
    assert "# music" in captured.out  # a query it reads says nothing


def test_hits_the_model_cannot_read_are_not_blamed_on_the_query(tmp_path, capsys):
    words = ["a", "dog", "runs"]
    model = SentenceModel.from_vectors(WordVectors(words, np.eye(3, 8, dtype=np.float32)))
    (tmp_path / "unread.txt").write_text("xyzzy\n\nplugh plover\n")  # no unit the model knows
    index = str(build_index(model, tmp_path / "unread.txt", tmp_path / "idx", progress=False))
    assert main(["query", index, "a dog runs", "-k", "2"]) == 0
    assert "the texts found hold no unit the model knows" in capsys.readouterr().err
    (tmp_path / "blank.txt").write_text("\n \n\n")
    with pytest.raises(Exception, match="blank.txt:1: every line is blank: nothing to index"):
        build_index(model, tmp_path / "blank.txt", tmp_path / "idx2", progress=False)
    assert not (tmp_path / "idx2").exists()


def test_a_tab_in_a_corpus_text_keeps_a_hit_to_four_fields(tmp_path, capsys):
    words = ["a", "cat"]
    model = SentenceModel.from_vectors(WordVectors(words, np.eye(2, 8, dtype=np.float32)))
    (tmp_path / "tabs.txt").write_text("a\tcat\\x\n")
    index = str(build_index(model, tmp_path / "tabs.txt", tmp_path / "idx", progress=False))
    assert main(["query", index, "cat", "-k", "1"]) == 0
    assert capsys.readouterr().out.rstrip("\n").split("\t")[3:] == ["a\\tcat\\\\x"]
