"""``parasent mine`` and ``parasent dedup``: a corpus from a file, stdin, gzip or JSON Lines;
pairs and removed lines as TSV or JSONL with their line numbers; nothing overwritten unasked;
bad input as one line."""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import sys

import numpy as np
import pytest

from parasent.cli import main
from parasent.core.model import SentenceModel
from parasent.text.word_vectors import WordVectors

WORDS = ["a", "man", "plays", "guitar", "cat", "sleeps", "dog", "runs", "market", "falls"]
LINES = [
    "a man plays guitar",
    "a cat sleeps",
    "a man plays a guitar",
    "dog runs",
    "a\tcat sleeps",
    "market falls",
]


@pytest.fixture()
def model(tmp_path):
    vectors = np.random.default_rng(0).normal(size=(len(WORDS), 16)).astype(np.float32)
    return str(SentenceModel.from_vectors(WordVectors(WORDS, vectors)).save(tmp_path / "m"))


def test_mine_writes_pairs_with_line_numbers_and_reports(model, tmp_path, capsys):
    corpus = tmp_path / "corpus.txt.gz"
    corpus.write_bytes(gzip.compress(("\n".join(LINES) + "\n").encode()))
    out = tmp_path / "pairs.tsv"
    assert (
        main(["mine", str(corpus), "-o", str(out), "--model", model, "--threshold", "0.9", "--top-k", "2"])
        == 0
    )
    rows = [line.split("\t") for line in out.read_text().splitlines()]
    assert rows[0] == ["score", "line_1", "line_2", "text_1", "text_2"]
    assert {(r[1], r[2]) for r in rows[1:]} == {("2", "5"), ("1", "3")}
    assert ["2", "5", "a cat sleeps", "a\\tcat sleeps"] in [r[1:] for r in rows[1:]]  # a tab is escaped
    err = capsys.readouterr().err
    assert "2 pair(s) among 6 line(s)" in err and "scores:" in err
    assert main(["mine", str(corpus), "-o", str(out), "--model", model]) == 2
    assert "exists; not replacing it (pass --overwrite" in capsys.readouterr().err
    assert (
        main(["mine", str(corpus), "-o", str(out), "--model", model, "--overwrite", "--max-pairs", "1"]) == 0
    )
    assert len(out.read_text().splitlines()) == 2


def test_mine_reads_jsonl_from_stdin_and_writes_jsonl(model, tmp_path, monkeypatch):
    records = "".join(json.dumps({"body": line, "id": i}) + "\n" for i, line in enumerate(LINES))
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(records.encode())))
    out = tmp_path / "pairs.jsonl"
    assert main(["mine", "-", "--field", "body", "-o", str(out), "--model", model, "--threshold", "0.9"]) == 0
    pairs = [json.loads(line) for line in out.read_text().splitlines()]
    assert set(pairs[0]) == {"score", "line_1", "line_2", "text_1", "text_2"}
    assert {(p["text_1"], p["text_2"]) for p in pairs} >= {("a cat sleeps", "a\tcat sleeps")}


def test_dedup_keeps_first_texts_and_explains_the_others(model, tmp_path, capsys):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join([*LINES, "dog runs"]) + "\n")
    kept, removed = tmp_path / "kept.txt", tmp_path / "removed.tsv"
    command = ["dedup", str(corpus), "-o", str(kept), "--removed", str(removed), "--model", model]
    assert main([*command, "--threshold", "0.9"]) == 0
    assert kept.read_text().splitlines() == ["a man plays guitar", "a cat sleeps", "dog runs", "market falls"]
    rows = [line.split("\t") for line in removed.read_text().splitlines()]
    assert rows[0] == ["score", "kind", "line", "kept_line", "text", "kept_text"]
    assert [r[1:4] for r in rows[1:]] == [["near", "3", "1"], ["near", "5", "2"], ["exact", "7", "4"]]
    assert (
        "kept 4 of 7 text(s); removed 1 exact duplicate(s) and 2 near-duplicate(s)" in capsys.readouterr().err
    )
    assert main([*command, "--threshold", "0.9"]) == 2  # both outputs exist
    assert "--output" in capsys.readouterr().err


def test_dedup_against_another_set_keeps_json_records_whole(model, tmp_path):
    corpus = tmp_path / "train.jsonl"
    corpus.write_text("".join(json.dumps({"text": line, "n": i}) + "\n" for i, line in enumerate(LINES)))
    other = tmp_path / "test.txt"
    other.write_text("market falls\nthe man plays a guitar\n")
    kept, removed = tmp_path / "kept.jsonl", tmp_path / "removed.jsonl"
    assert main(["dedup", str(corpus), "--against", str(other), "--threshold", "0.9", "--model", model,
                 "-o", str(kept), "--removed", str(removed)]) == 0  # fmt: skip
    assert [json.loads(line)["n"] for line in kept.read_text().splitlines()] == [1, 3, 4]
    gone = {r["text"]: (r["kind"], r["kept_line"]) for r in map(json.loads, removed.read_text().splitlines())}
    assert gone == {
        "market falls": ("exact", 1),
        "a man plays guitar": ("near", 2),
        "a man plays a guitar": ("near", 2),
    }


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["mine", "{corpus}", "--threshold", "2"], "must be a cosine"),
        (["mine", "{corpus}", "--top-k", "0"], "must be > 0"),
        (["mine", "{corpus}", "-o", "{tmp}/pairs.csv"], "name a .tsv or a .jsonl file"),
        (["dedup", "{corpus}", "--removed", "{tmp}/no/such/dir/r.tsv"], "does not exist"),
        (["mine", "{tmp}/missing.txt"], "missing.txt: no such file"),
        (["dedup", "-", "--against", "-"], "cannot both be read from stdin"),
        (["dedup", "{corpus}", "-o", "{tmp}/k.tsv", "--removed", "{tmp}/k.tsv"], "give each its own file"),
    ],
)
def test_bad_options_and_input_are_one_line(model, tmp_path, capsys, argv, message):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("a man\n")
    argv = [a.format(corpus=corpus, tmp=tmp_path) for a in argv]
    usage = "--threshold" in argv or "--top-k" in argv  # refused by the parser: a usage error
    with pytest.raises(SystemExit) if usage else contextlib.nullcontext():
        assert main([*argv, "--model", model]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_bars_with_a_total_on_a_terminal(model, tmp_path):
    from tests.commands.test_encode import run_in_terminal

    (tmp_path / "c.txt").write_text("\n".join(f"{line} n{i}" for i in range(20) for line in LINES) + "\n")
    code, out = run_in_terminal(["mine", "c.txt", "--model", model, "-o", "p.tsv"], tmp_path)
    assert code == 0 and "encode: 100%" in out and "120/120" in out and "mine: 100%" in out
    code, out = run_in_terminal(["dedup", "c.txt", "--model", model, "-o", "k.txt"], tmp_path)
    assert code == 0 and "dedup: 100%" in out


def test_an_output_that_names_an_input_is_refused_even_with_overwrite(tmp_path, capsys):
    """`dedup c.tsv -o k.txt --removed c.tsv --overwrite` replaced the corpus, and `evaluate --pairs
    p.tsv --json p.tsv --overwrite` the pairs: an input is never an output."""
    from parasent.cli import main

    corpus = tmp_path / "c.tsv"
    corpus.write_text("a man plays a guitar\nsomeone plays the guitar\na dog runs\n")
    kept = corpus.read_text()
    cases = [
        ["dedup", str(corpus), "-o", str(tmp_path / "k.txt"), "--removed", str(corpus), "--overwrite"],
        ["mine", str(corpus), "-o", str(corpus), "--overwrite"],
        ["encode", str(corpus), "-o", str(corpus), "--overwrite"],
    ]
    for argv in cases:
        assert main(argv) == 2
        assert "is this command's input" in capsys.readouterr().err
        assert corpus.read_text() == kept
    pairs = tmp_path / "p.tsv"
    pairs.write_text("".join(f"{i % 2}\tsentence {i}\tanother {i}\n" for i in range(20)))
    before = pairs.read_text()
    assert main(["evaluate", "--pairs", f"{pairs}:labelled", "--json", str(pairs), "--overwrite"]) == 2
    assert "is this command's input" in capsys.readouterr().err and pairs.read_text() == before
