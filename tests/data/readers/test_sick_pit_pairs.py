import pytest

from parasent.data.readers.pairs import read_labelled_pairs, read_text_pairs
from parasent.data.readers.pit import read_pit2015
from parasent.data.readers.sick import read_sick
from parasent.errors import DataFormatError

SICK_HEADER = "pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment\n"


def test_read_sick(tmp_path):
    path = tmp_path / "SICK.txt"
    path.write_text(SICK_HEADER + "1\tA dog runs\tA dog is running\t4.8\tENTAILMENT\n2\tx\ty\t1.0\tneutral\n")
    pairs = list(read_sick(path))
    assert pairs[0].relatedness == 4.8 and pairs[0].entailment == "ENTAILMENT"
    assert pairs[1].entailment == "NEUTRAL"


def test_read_sick_bad_label_and_header(tmp_path):
    path = tmp_path / "SICK.txt"
    path.write_text(SICK_HEADER + "1\ta\tb\t4.8\tMAYBE\n")
    with pytest.raises(DataFormatError, match=r":2: entailment_judgment 'MAYBE'"):
        list(read_sick(path))
    path.write_text("id\ta\tb\n")
    with pytest.raises(DataFormatError, match=r":1: header lacks column"):
        list(read_sick(path))


def test_read_pit_test_with_labels(tmp_path):
    data, labels = tmp_path / "test.data", tmp_path / "test.label"
    data.write_text("1\tTopic\ta b\tc d\t4\ttags\ttags\n1\tTopic\te\tf\t3\tt\tt\n")
    labels.write_text("true\t0.8000\n----\t0.6000\n")
    pairs = list(read_pit2015(data, labels))
    assert [(p.degree, p.paraphrase, p.expert) for p in pairs] == [(0.8, True, 4), (0.6, None, 3)]


def test_read_pit_votes_and_mismatch(tmp_path):
    data = tmp_path / "dev.data"
    data.write_text("1\tT\ta\tb\t(4, 1)\tt\tt\n2\tT\tc\td\t(2, 3)\tt\tt\n3\tT\te\tf\t(0, 5)\tt\tt\n")
    pairs = list(read_pit2015(data))
    assert [p.votes for p in pairs] == [(4, 1), (2, 3), (0, 5)]
    assert [p.paraphrase for p in pairs] == [True, None, False]
    labels = tmp_path / "test.label"
    labels.write_text("true\t0.8\n")
    with pytest.raises(DataFormatError, match="fewer lines"):
        list(read_pit2015(data, labels))


def test_read_pit_bad_label(tmp_path):
    data = tmp_path / "dev.data"
    data.write_text("1\tT\ta\tb\tyes\tt\tt\n")
    with pytest.raises(DataFormatError, match=r"dev.data:1: label 'yes'"):
        list(read_pit2015(data))


def test_read_labelled_pairs(tmp_path):
    path = tmp_path / "train.tsv"
    path.write_text("1\ta\tb\n0\tc\td\textra-id\n")
    assert [(p.label, p.s1) for p in read_labelled_pairs(path)] == [(1, "a"), (0, "c")]
    path.write_text("1\ta\tb\nx\tc\td\n")
    with pytest.raises(DataFormatError, match=r":2: label 'x' is not an integer"):
        list(read_labelled_pairs(path))


def test_read_text_pairs(tmp_path):
    path = tmp_path / "pairs.tsv"
    path.write_text("a\tb\n\nc\td\n")
    assert [(p.s1, p.s2) for p in read_text_pairs(path)] == [("a", "b"), ("c", "d")]
    path.write_text("a\tb\tc\n")
    with pytest.raises(DataFormatError, match=r":1: expected 's1<TAB>s2'"):
        list(read_text_pairs(path))


def test_read_sick_relatedness_out_of_range(tmp_path):
    path = tmp_path / "SICK.txt"
    path.write_text(SICK_HEADER + "1\ta\tb\t4.8\tNEUTRAL\n2\ta\tb\t5.5\tNEUTRAL\n")
    with pytest.raises(DataFormatError, match=r":3: relatedness_score 5.5 is outside \[1, 5\]"):
        list(read_sick(path))
