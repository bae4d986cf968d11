"""A header line opening a user's file is skipped by every reader of one, and a line of the
wrong shape says what it looks like it meant (data/readers/line_shapes.py)."""

from __future__ import annotations

import pytest

from parasent.cli import main
from parasent.data.readers.pairs import read_labelled_pairs, read_text_pairs
from parasent.data.readers.sentiment import read_text_labels
from parasent.data.readers.sts import read_sts
from parasent.data.training_text.pools import sniff_pair_format
from parasent.errors import DataFormatError
from parasent.supervised.tasks import file_examples
from parasent.support.lines import ReadReport


def _file(tmp_path, name: str, lines: list[str]):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_text_label_header_is_skipped_not_made_a_class(tmp_path):
    rows = (
        ["text\tlabel"]
        + [f"a fine film {i}\tpos" for i in range(3)]
        + [f"a poor film {i}\tneg" for i in range(3)]
    )
    path = _file(tmp_path, "texts.tsv", rows)
    report = ReadReport()
    assert [r.label for r in read_text_labels(path, report=report)] == ["pos"] * 3 + ["neg"] * 3
    assert report.notes == [f"{path}:1: a header line, skipped ('text\\tlabel')"]
    _, classes = file_examples(path)
    assert classes == ("neg", "pos")
    # a text that merely opens with a column name is data
    assert len(list(read_text_labels(_file(tmp_path, "data.tsv", ["text of a letter\tlabel a"])))) == 1
    assert len(list(read_text_labels(_file(tmp_path, "numbered.tsv", ["text 0\tlabel 0"])))) == 1


def test_the_pair_readers_skip_a_header_line_and_sniff_past_it(tmp_path):
    sts = _file(tmp_path, "s.tsv", ["score\tsentence1\tsentence2", "4.5\ta cat\ta kitten", "1\ta dog\ta car"])
    assert sniff_pair_format(sts) == "sts" and [p.score for p in read_sts(sts)] == [4.5, 1.0]
    labelled = _file(
        tmp_path, "l.tsv", ["label\t#1 String\t#2 String", "1\ta cat\ta kitten", "0\ta dog\ta car"]
    )
    assert sniff_pair_format(labelled) == "labelled" and len(list(read_labelled_pairs(labelled))) == 2
    plain = _file(tmp_path, "p.tsv", ["sentence_A\tsentence_B", "a cat\ta kitten"])
    assert sniff_pair_format(plain) == "tsv" and [p.s1 for p in read_text_pairs(plain)] == ["a cat"]


@pytest.mark.parametrize(
    ("line", "meant"),
    [
        ("a cat sat\ta kitten sat\t4.2", "it looks like the score or label last ('4.2')"),
        (
            "true\ta cat sat\ta kitten sat",
            "it looks like a label 'true': labelled pairs are 1 (paraphrase) or 0",
        ),
        ("3,3\ta cat sat\ta kitten sat", "it looks like a score with a decimal comma ('3,3'): write 3.3"),
    ],
)
def test_a_line_of_another_layout_says_what_it_looks_like_in_one_line(tmp_path, capsys, line, meant):
    path = _file(tmp_path, "mine.tsv", [line] * 12)
    assert main(["evaluate", "--pairs", str(path)]) == 2
    error = capsys.readouterr().err.strip()
    assert "\n" not in error and error.startswith(
        f"parasent: error: {path}:1: expected 's1<TAB>s2', found 3 field(s)"
    )
    assert meant in error


def test_a_header_inside_a_file_and_a_decimal_comma_in_an_sts_file_are_named(tmp_path):
    inside = _file(tmp_path, "cat.tsv", ["a cat\ta kitten", "score\tsentence1\tsentence2"])
    with pytest.raises(DataFormatError, match=r"cat.tsv:2: .*it looks like a header line"):
        list(read_text_pairs(inside))
    comma = _file(tmp_path, "comma.tsv", ["3,3\ta cat\ta kitten"])
    with pytest.raises(
        DataFormatError, match=r"comma.tsv:1: score '3,3' is not a number; it looks like .* write 3.3"
    ):
        list(read_sts(comma))


def test_fields_past_the_fourth_are_counted_not_hidden():
    from parasent.data.readers.line_shapes import shape_error

    reason = shape_error("label<TAB>s1<TAB>s2", ["a", "b", "c", "d", "e"])
    assert reason == "expected 'label<TAB>s1<TAB>s2', found 5 field(s): 'a' | 'b' | 'c' | 'd' | ... (1 more)"
