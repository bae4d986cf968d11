"""The texts of a corpus a command reads: lines of a file, gzip or stdin, or a JSON Lines field."""

from __future__ import annotations

import gzip
import io
import json

import pytest

from parasent.data.text_input import SpooledCorpus, read_texts
from parasent.errors import DataFormatError


def test_plain_lines_keep_blank_ones_and_gzip_is_read_by_its_bytes(tmp_path):
    path = tmp_path / "corpus.dat"  # no .gz name: the magic bytes decide
    path.write_bytes(gzip.compress(b"one\n\nthree\r\n"))
    assert list(read_texts(str(path))) == [(1, "one", "one"), (2, "", ""), (3, "three", "three")]


def test_jsonl_reads_the_field_and_names_a_bad_line(tmp_path):
    path = tmp_path / "corpus.jsonl"
    path.write_text('{"text": "a", "id": 1}\n\n{"text": "b\\tc"}\n')
    assert [(n, t) for n, _, t in read_texts(str(path))] == [(1, "a"), (3, "b\tc")]
    path.write_text('{"body": "a"}\n')
    assert [t for _, _, t in read_texts(str(path), field="body")] == ["a"]
    for line, reason in [
        ('{"body": "a"}', "no field 'text'"),
        ('{"text": 3}', "field 'text' is a JSON int"),
        ('["text"]', "a JSON list"),
        ("{oops", "not JSON"),
        ("[" * 100_000 + "]" * 100_000, "JSON nested too deeply"),
    ]:
        path.write_text('{"text": "fine"}\n' + line + "\n")
        with pytest.raises(DataFormatError, match=f"corpus.jsonl:2: {reason}"):
            list(read_texts(str(path)))


def test_field_makes_any_file_jsonl_and_stdin_is_read(monkeypatch):
    stdin = io.TextIOWrapper(io.BytesIO(json.dumps({"q": "from stdin"}).encode() + b"\n"))
    monkeypatch.setattr("sys.stdin", stdin)
    assert list(read_texts("-", field="q")) == [(1, '{"q": "from stdin"}', "from stdin")]


def test_spooled_corpus_keeps_texts_records_and_line_numbers(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "a"}\n\n{"text": "b", "x": 1}\n')
    with SpooledCorpus(str(path)) as corpus:
        assert len(corpus) == 2 and list(corpus.lines) == [1, 3]
        assert list(corpus.texts) == ["a", "b"]
        assert list(corpus.records) == ['{"text": "a"}', '{"text": "b", "x": 1}']
    plain = tmp_path / "c.txt"
    plain.write_text("x\ny\n")
    with SpooledCorpus(str(plain)) as corpus:
        assert corpus.records is corpus.texts and list(corpus.lines) == [1, 2]


@pytest.mark.parametrize(
    "name, content",
    [("c.txt", "a man\nhalf\x00binary\n"), ("c.jsonl", '{"text": "a"}\n{"text": "b\\u0000c"}\n')],
)
def test_a_nul_byte_is_refused_naming_its_line(tmp_path, name, content):
    """NUL bytes passed through mine and dedup into their outputs."""
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(DataFormatError, match=rf"{name}:2: a NUL byte"):
        list(read_texts(str(path)))
