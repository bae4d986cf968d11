import gzip

import numpy as np
import pytest

from parasent.errors import DataFormatError
from parasent.support.lines import ReadReport
from parasent.text.word_vectors import WordVectors, read_word_vectors, write_word_vectors


def test_word2vec_header_gzip(tmp_path):
    path = tmp_path / "v.txt.gz"
    with gzip.open(path, "wt") as handle:
        handle.write("2 3\nThe 1 2 3\ncat 4 5 6\n")
    vectors = read_word_vectors(path)
    assert vectors.words == ["the", "cat"] and vectors.dim == 3
    np.testing.assert_array_equal(vectors.matrix, [[1, 2, 3], [4, 5, 6]])
    assert vectors.matrix.dtype == np.float32


def test_glove_without_header_and_spaces_in_words(tmp_path):
    path = tmp_path / "glove.txt"
    path.write_text("the 1 2\n. . . 3 4\ncat 5 6\n")
    vectors = read_word_vectors(path)
    assert vectors.words == ["the", ". . .", "cat"]
    np.testing.assert_array_equal(vectors.matrix[1], [3, 4])


def test_lowercase_keeps_first_occurrence(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("Apple 1 1\napple 2 2\n")
    assert read_word_vectors(path).matrix[0, 0] == 1
    assert read_word_vectors(path, lowercase=False).words == ["Apple", "apple"]


def test_dimension_mismatch_names_line(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("2 3\nthe 1 2 3\ncat 4 5\n")
    with pytest.raises(DataFormatError, match=r"v.txt:3: expected a word and 3 numbers"):
        read_word_vectors(path)


def test_non_numeric_and_lenient(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("the 1 2\ncat x 2\ndog 3 nan\nbird 5 6\n")
    with pytest.raises(DataFormatError, match=r":2: vector of 'cat'"):
        read_word_vectors(path)
    report = ReadReport()
    vectors = read_word_vectors(path, lenient=True, report=report)
    assert vectors.words == ["the", "bird"] and report.skipped == 2


def test_header_count_mismatch_is_a_note(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("1 2\nthe 1 2\ncat 3 4\n")
    report = ReadReport()
    assert len(read_word_vectors(path, report=report)) == 2
    assert "announced 1 vectors, found 2" in report.notes[0]


def test_round_trip(tmp_path):
    vectors = WordVectors(["a", "b"], np.array([[0.5, -1.25], [3.0, 4.0]], dtype=np.float32))
    write_word_vectors(tmp_path / "out.txt.gz", vectors)
    again = read_word_vectors(tmp_path / "out.txt.gz")
    assert again.words == ["a", "b"]
    np.testing.assert_allclose(again.matrix, vectors.matrix)


def test_empty_file(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("")
    with pytest.raises(DataFormatError, match="no word vectors"):
        read_word_vectors(path)


@pytest.mark.parametrize("name", ["vectors.txt", "vectors.txt.gz"])
def test_word_vectors_are_staged_under_a_name_of_this_process(tmp_path, monkeypatch, name):
    """The temporary file carries the process id (two processes writing one path shared
    ``NAME.tmp`` and destroyed each other's work) and is the only file beside the target."""
    import os

    from parasent.text import word_vectors as module

    seen = []
    real = module.format_word_vectors

    def watched(*args, **kwargs):
        for line in real(*args, **kwargs):
            seen.append(sorted(p.name for p in tmp_path.iterdir()))
            yield line

    monkeypatch.setattr(module, "format_word_vectors", watched)
    table = module.WordVectors(["a", "b"], np.ones((2, 3), dtype=np.float32))
    module.write_word_vectors(tmp_path / name, table)
    assert seen[0] == [f".{name}.tmp-{os.getpid()}"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]
    assert module.read_word_vectors(tmp_path / name).words == ["a", "b"]
