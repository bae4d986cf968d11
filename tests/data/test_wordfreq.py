import pytest

from parasent.data.wordfreq import read_word_counts
from parasent.errors import DataFormatError


def test_counts_are_read_and_case_variants_summed(tmp_path):
    path = tmp_path / "counts.txt"
    path.write_text("the 100\nThe 5\nfox 7\n\n")
    assert read_word_counts(path) == {"the": 105, "fox": 7}
    assert read_word_counts(path, lowercase=False)["The"] == 5


def test_bad_line_names_path_and_line(tmp_path):
    path = tmp_path / "counts.txt"
    path.write_text("the 100\nfox many\n")
    with pytest.raises(DataFormatError, match=r"counts.txt:2: count 'many' is not an integer"):
        read_word_counts(path)
