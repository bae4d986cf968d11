import pytest

from parasent.data.readers.sentiment import read_labelled_sentences
from parasent.errors import DataFormatError
from parasent.support.lines import ReadReport


def test_reads_sst_lines(tmp_path):
    path = tmp_path / "sst.tsv"
    path.write_text("it 's a charming journey . \t1\n\nunflinchingly bleak\t0\n")
    records = list(read_labelled_sentences(path, classes=2))
    assert [(r.text, r.label) for r in records] == [
        ("it 's a charming journey .", 1),
        ("unflinchingly bleak", 0),
    ]


@pytest.mark.parametrize(
    "line, reason",
    [
        ("no tab here", "no tab"),
        ("text\tpositive", "'positive' is not an integer"),
        ("text\t2", "not in 0..1"),
        ("\t1", "empty"),
    ],
)
def test_malformed_lines(tmp_path, line, reason):
    path = tmp_path / "sst.tsv"
    path.write_text(f"good\t1\n{line}\n")
    with pytest.raises(DataFormatError, match=rf"sst.tsv:2: .*{reason}"):
        list(read_labelled_sentences(path, classes=2))
    report = ReadReport()
    assert len(list(read_labelled_sentences(path, classes=2, lenient=True, report=report))) == 1
    assert report.skipped == 1
