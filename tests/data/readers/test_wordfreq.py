import gzip

import pytest

from parasent.data.readers.wordfreq import read_word_counts, read_word_frequencies
from parasent.errors import DataFormatError


def test_reads_sorts_and_merges_case(tmp_path):
    path = tmp_path / "freq.txt.gz"
    with gzip.open(path, "wt") as handle:
        handle.write("of 50\nthe 100\nThe 10\n\nzebra 1\n")
    freq = read_word_frequencies(path)
    assert freq.words == ["the", "of", "zebra"]
    assert freq.counts.tolist() == [110, 50, 1]
    assert freq.top(2) == ["the", "of"]
    assert abs(freq.probabilities()["of"] - 50 / 161) < 1e-12


@pytest.mark.parametrize(
    "line, reason",
    [("word", "expected 'word count'"), ("word x", "is not an integer"), ("word -3", "negative")],
)
def test_bad_line_names_path_and_line(tmp_path, line, reason):
    path = tmp_path / "freq.txt"
    path.write_text(f"the 10\n{line}\n")
    with pytest.raises(DataFormatError, match=f"{path}:2: .*{reason}"):
        read_word_frequencies(path)


def test_lenient_skips_and_empty_file_fails(tmp_path):
    path = tmp_path / "freq.txt"
    path.write_text("the 10\nbroken\nof 3\n")
    assert read_word_frequencies(path, lenient=True).words == ["the", "of"]
    empty = tmp_path / "empty.txt"
    empty.write_text("\n")
    with pytest.raises(DataFormatError, match="no 'word count' lines"):
        read_word_frequencies(empty)


def test_counts_are_read_and_case_variants_summed(tmp_path):
    path = tmp_path / "counts.txt"
    path.write_text("the 100\nThe 5\nfox 7\n\n")
    assert read_word_counts(path) == {"the": 105, "fox": 7}
    assert read_word_counts(path, lowercase=False)["The"] == 5


def test_counts_bad_line_names_path_and_line(tmp_path):
    path = tmp_path / "counts.txt"
    path.write_text("the 100\nfox many\n")
    with pytest.raises(DataFormatError, match=r"counts.txt:2: count 'many' is not an integer"):
        read_word_counts(path)
