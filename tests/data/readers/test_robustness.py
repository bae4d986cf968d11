"""Reproductions of bad-input defects of the readers: each is a clear ``path:line`` error (or a
correct read), never a traceback, a hang, or garbage read as data."""

from __future__ import annotations

import gzip

import pytest

from parasent.data.readers.pit import read_pit2015
from parasent.data.readers.ppdb import read_ppdb_human, read_ppdb_phrasal
from parasent.data.readers.sts import read_sts, read_sts_official
from parasent.data.readers.wordfreq import read_word_frequencies
from parasent.errors import CorruptFileError, DataFormatError
from parasent.support.lines import MAX_LINE_BYTES, LineReader, ReadReport
from parasent.text.word_vectors import read_word_vectors


def _gzip(path, text: bytes) -> bytes:
    data = gzip.compress(text, mtime=0)
    path.write_bytes(data)
    return data


@pytest.mark.parametrize("damage", ["truncated", "corrupted"])
def test_corrupt_gzip_names_file_and_last_good_line(tmp_path, damage):
    path = tmp_path / "sts.txt.gz"
    data = _gzip(path, b"".join(b"3.0\ta sentence %d\tanother one\n" % i for i in range(2000)))
    if damage == "truncated":
        path.write_bytes(data[: len(data) // 2])
    else:
        path.write_bytes(data[:-12] + bytes(b ^ 0xFF for b in data[-12:-8]) + data[-8:])
    with pytest.raises(CorruptFileError, match=rf"^{path}: corrupt gzip .*\(after line \d+\)$"):
        list(read_sts(path, lenient=True))  # fatal even in lenient mode


def test_bom_is_stripped(tmp_path):
    path = tmp_path / "vectors.txt"
    path.write_bytes("\ufeff2 3\nthe 1 2 3\ncar 4 5 6\n".encode())
    vectors = read_word_vectors(path)
    assert vectors.dim == 3 and vectors.words == ["the", "car"]


def test_overlong_line_is_an_error_not_a_hang(tmp_path):
    path = tmp_path / "big.txt"
    path.write_bytes(b"ok\n" + b"x" * (MAX_LINE_BYTES + 10) + b"\nafter\n")
    with pytest.raises(DataFormatError, match=rf"{path}:2: line longer than"):
        list(LineReader(path))
    report = ReadReport()
    assert list(LineReader(path, lenient=True, report=report)) == [(1, "ok"), (3, "after")]
    assert report.skipped == 1


@pytest.mark.parametrize("score", ["5.5", "-0.1", "1e308", "nan", "inf"])
def test_sts_score_outside_range_is_refused(tmp_path, score):
    path = tmp_path / "sts.txt"
    path.write_text(f"4\ta\tb\n{score}\tc\td\n")
    with pytest.raises(DataFormatError, match=rf"{path}:2: score"):
        list(read_sts(path))


def test_official_sts_lenient_skips_the_pair_and_keeps_alignment(tmp_path):
    inputs, gold = tmp_path / "STS.input.x.txt", tmp_path / "STS.gs.x.txt"
    inputs.write_bytes(b"a1\ta2\nb1\xff\tb2\nc1\tc2\n")
    gold.write_text("1\n2\n3\n")
    report = ReadReport()
    pairs = list(read_sts_official(inputs, gold, lenient=True, report=report))
    assert [(p.s1, p.score) for p in pairs] == [("a1", 1.0), ("c1", 3.0)]
    gold.write_bytes(b"1\n\xff\n3\n")
    inputs.write_text("a1\ta2\nb1\tb2\nc1\tc2\n")
    pairs = list(read_sts_official(inputs, gold, lenient=True))
    assert [(p.s1, p.score) for p in pairs] == [("a1", 1.0), ("c1", 3.0)]


def test_pit_lenient_keeps_label_alignment(tmp_path):
    data, labels = tmp_path / "test.data", tmp_path / "test.label"
    data.write_bytes(b"1\tt\ta\tb\t4\n2\tt\tc\xff\td\t1\n3\tt\te\tf\t5\n")
    labels.write_text("true\t0.8\nfalse\t0.2\ntrue\t1.0\n")
    pairs = list(read_pit2015(data, labels, lenient=True))
    assert [(p.s1, p.degree) for p in pairs] == [("a", 0.8), ("e", 1.0)]


@pytest.mark.parametrize("degree", ["nan", "inf", "1.5", "-0.2"])
def test_pit_degree_must_be_in_unit_interval(tmp_path, degree):
    data, labels = tmp_path / "test.data", tmp_path / "test.label"
    data.write_text("1\tt\ta\tb\t4\n")
    labels.write_text(f"true\t{degree}\n")
    with pytest.raises(DataFormatError, match=rf"{labels}:1: degree"):
        list(read_pit2015(data, labels))


@pytest.mark.parametrize("label", ["\u00b3", "(\u00b3, 2)", "(99999, 1)"])
def test_pit_unicode_digits_are_a_format_error(tmp_path, label):
    data = tmp_path / "train.data"
    data.write_text(f"1\tt\ta\tb\t{label}\n")
    with pytest.raises(DataFormatError, match=rf"{data}:1: label"):
        list(read_pit2015(data))


@pytest.mark.parametrize(
    "line", ["nan\t[NP]\ta\tb\t4,4", "4\t[NP]\ta\tb\t4,inf", "6\t[NP]\ta\tb\t4", "4\t[NP]\ta\tb\t0,9"]
)
def test_ppdb_ratings_must_be_finite_and_in_range(tmp_path, line):
    path = tmp_path / "ppdb.tsv"
    path.write_text(line + "\n")
    with pytest.raises(DataFormatError, match=rf"{path}:1:"):
        list(read_ppdb_human(path))


@pytest.mark.parametrize("field", ["Score=nan ||| 0-0", "Score=inf ||| 0-0", "Score=1 ||| \u00b3-0"])
def test_ppdb_phrasal_features_and_alignment_are_checked(tmp_path, field):
    path = tmp_path / "ppdb"
    path.write_text(f"[NP] ||| a ||| b ||| {field}\n")
    with pytest.raises(DataFormatError, match=rf"{path}:1:"):
        list(read_ppdb_phrasal(path))


@pytest.mark.parametrize("header", ["2 \u00b3", "\u00b3 2", "2 99999999999999999999"])
def test_vector_header_unicode_digits_and_huge_dimension(tmp_path, header):
    path = tmp_path / "vectors.txt"
    path.write_text(f"{header}\nthe 1 2\n")
    try:
        read_word_vectors(path)
    except DataFormatError as exc:
        assert str(path) in str(exc)


def test_huge_declared_dimension_is_refused(tmp_path):
    path = tmp_path / "vectors.txt"
    path.write_text("1 99999999999999999999\n")
    with pytest.raises(DataFormatError, match=rf"{path}:1: header dimension"):
        read_word_vectors(path)


def test_word_count_overflow_is_a_format_error(tmp_path):
    path = tmp_path / "counts.txt"
    path.write_text("the 10\ncar " + "9" * 400 + "\n")
    with pytest.raises(DataFormatError, match=rf"{path}:2: count"):
        read_word_frequencies(path)
    path.write_text("".join(f"w{i} {2**61}\n" for i in range(4)))  # each fits, the sum does not
    with pytest.raises(DataFormatError, match=rf"{path}:\d: count"):
        read_word_frequencies(path)
