import pytest

from parasent.data.readers.sts import read_sts, read_sts_official
from parasent.errors import DataFormatError
from parasent.support.lines import ReadReport


def test_read_sts_skips_unscored_lines(tmp_path):
    path = tmp_path / "set.tsv"
    path.write_text("4.5\tA man runs.\tA man is running.\n\tunscored\tpair\n0.25\tx\ty\n")
    pairs = list(read_sts(path))
    assert [(p.score, p.s1, p.s2) for p in pairs] == [
        (4.5, "A man runs.", "A man is running."),
        (0.25, "x", "y"),
    ]


def test_read_sts_reports_path_and_line(tmp_path):
    path = tmp_path / "bad.tsv"
    path.write_text("4.5\ta\tb\nfive\tc\td\n")
    with pytest.raises(DataFormatError) as error:
        list(read_sts(path))
    assert str(error.value).startswith(f"{path}:2: ")
    assert "not a number" in str(error.value)


def test_read_sts_wrong_field_count(tmp_path):
    path = tmp_path / "bad.tsv"
    path.write_text("4.5\ta\tb\n3.0\tonly one sentence\n")
    with pytest.raises(
        DataFormatError,
        match=r":2: expected 'score<TAB>s1<TAB>s2', found 2 field\(s\): '3.0' \| 'only one sentence'",
    ):
        list(read_sts(path))


def test_read_sts_lenient_counts_skipped(tmp_path):
    path = tmp_path / "bad.tsv"
    path.write_text("4.5\ta\tb\nnan\tc\td\n1\te\n2\tf\tg\n")
    report = ReadReport()
    pairs = list(read_sts(path, lenient=True, report=report))
    assert [p.s1 for p in pairs] == ["a", "f"]
    assert report.skipped == 2
    assert "skipped 2 malformed" in report.summary()


def test_read_sts_gzip_by_magic(tmp_path):
    import gzip

    path = tmp_path / "set.tsv"  # no .gz suffix: detected by content
    with gzip.open(path, "wt") as handle:
        handle.write("1.0\ta\tb\n")
    assert list(read_sts(path))[0].score == 1.0


def test_read_sts_invalid_utf8(tmp_path):
    path = tmp_path / "bad.tsv"
    path.write_bytes(b"1.0\ta\tb\n2.0\t\xff\xfe\tc\n")
    with pytest.raises(DataFormatError, match=r":2: not valid UTF-8"):
        list(read_sts(path))


def test_read_sts_official_layout(tmp_path):
    inputs, gold = tmp_path / "STS.input.x.txt", tmp_path / "STS.gs.x.txt"
    inputs.write_text("a\tb\nc\td\ne\tf\n")
    gold.write_text("5.000\n\n1.5\n")
    pairs = list(read_sts_official(inputs, gold))
    assert [(p.s1, p.score) for p in pairs] == [("a", 5.0), ("e", 1.5)]


def test_read_sts_official_length_mismatch(tmp_path):
    inputs, gold = tmp_path / "in.txt", tmp_path / "gs.txt"
    inputs.write_text("a\tb\nc\td\n")
    gold.write_text("5.0\n")
    with pytest.raises(DataFormatError, match="fewer lines"):
        list(read_sts_official(inputs, gold))
    gold.write_text("5.0\n1.0\n2.0\n")
    with pytest.raises(DataFormatError, match="more lines"):
        list(read_sts_official(inputs, gold))
