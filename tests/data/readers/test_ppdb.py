import gzip

import pytest

from parasent.data.readers.ppdb import read_ppdb_human, read_ppdb_lexical, read_ppdb_phrasal
from parasent.errors import DataFormatError
from parasent.support.lines import ReadReport

PHRASAL = (
    "[NP] ||| the united states ||| the us ||| PPDB2.0Score=3.84 p(e|f)=0.23 Abstract=0 ||| 0-0 1-1 2-1 ||| Equivalence\n"
    "[VP] ||| is going to ||| will ||| PPDB2.0Score=2.1 ||| 0-0 1-0 2-0\n"
)


def test_read_ppdb_phrasal_real_format(tmp_path):
    path = tmp_path / "ppdb-2.0-s-phrasal.gz"
    with gzip.open(path, "wt") as handle:
        handle.write(PHRASAL)
    rules = list(read_ppdb_phrasal(path))
    assert rules[0].lhs == "[NP]" and rules[0].s1 == "the united states" and rules[0].s2 == "the us"
    assert rules[0].features == {"PPDB2.0Score": 3.84, "p(e|f)": 0.23, "Abstract": 0.0}
    assert rules[0].alignment == ((0, 0), (1, 1), (2, 1))
    assert rules[0].entailment == "Equivalence"
    assert rules[1].entailment is None and rules[1].s2 == "will"


@pytest.mark.parametrize(
    "line, reason",
    [
        ("[NP] ||| a ||| b ||| S=1\n", "expected 5 or 6"),
        ("[NP] ||| a ||| b ||| Score ||| 0-0\n", "feature 'Score' is not name=number"),
        ("[NP] ||| a ||| b ||| S=1 ||| 0:0\n", "alignment point '0:0'"),
        ("[NP] |||  ||| b ||| S=1 ||| 0-0\n", "empty phrase"),
    ],
)
def test_read_ppdb_phrasal_errors(tmp_path, line, reason):
    path = tmp_path / "ppdb.txt"
    path.write_text(PHRASAL + line)
    with pytest.raises(DataFormatError) as error:
        list(read_ppdb_phrasal(path))
    assert str(error.value).startswith(f"{path}:3: ") and reason in str(error.value)


def test_read_ppdb_phrasal_lenient(tmp_path):
    path = tmp_path / "ppdb.txt"
    path.write_text(PHRASAL + "garbage\n" + PHRASAL)
    report = ReadReport()
    assert len(list(read_ppdb_phrasal(path, lenient=True, report=report))) == 4
    assert report.skipped == 1 and ":3:" in report.examples[0]


def test_read_ppdb_human(tmp_path):
    path = tmp_path / "ppdb-sample.tsv"
    path.write_text("4.0\t[NP]\tthis video\tthe movie\t3.0,4.0,5.0\n")
    pair = next(read_ppdb_human(path))
    assert (pair.score, pair.lhs, pair.s1, pair.s2, pair.ratings) == (
        4.0,
        "[NP]",
        "this video",
        "the movie",
        (3.0, 4.0, 5.0),
    )
    path.write_text("4.0\t[NP]\tthis video\tthe movie\tthree\n")
    with pytest.raises(DataFormatError, match=":1: ratings"):
        list(read_ppdb_human(path))


def test_read_ppdb_lexical(tmp_path):
    path = tmp_path / "syn.txt"
    path.write_text("females males \nbig large\n\n")
    assert [(p.s1, p.s2) for p in read_ppdb_lexical(path)] == [("females", "males"), ("big", "large")]
    path.write_text("big large huge\n")
    with pytest.raises(DataFormatError, match=":1: expected 2 whitespace-separated words"):
        list(read_ppdb_lexical(path))
