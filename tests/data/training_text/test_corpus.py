import gzip

import pytest

from parasent.data.training_text.corpus import CORPORA, read_corpus, read_document
from parasent.data.training_text.leakage import normalize_for_leakage
from parasent.errors import DataNotFoundError


def test_layouts(tmp_path):
    (tmp_path / "one.txt").write_text("a first sentence .\n\nthe second one .\n")
    assert read_document(tmp_path / "one.txt", "sentences").sentences == (
        "a first sentence .",
        "the second one .",
    )
    with gzip.open(tmp_path / "book.txt.gz", "wt") as handle:
        handle.write("CHAPTER I\n\nMr. Smith came\nhome. He slept.\n\nMorning came.\n")
    assert read_document(tmp_path / "book.txt.gz", "wrapped").sentences == (
        "CHAPTER I",
        "Mr. Smith came home.",
        "He slept.",
        "Morning came.",
    )
    (tmp_path / "speech.txt").write_text("To the Congress:\nWe met. We won.\n")
    assert read_document(tmp_path / "speech.txt", "paragraphs").sentences == (
        "To the Congress:",
        "We met.",
        "We won.",
    )
    with pytest.raises(ValueError, match="unknown corpus layout"):
        read_document(tmp_path / "one.txt", "poems")


def test_non_utf8_lines_are_read_as_latin1_and_counted(tmp_path):
    (tmp_path / "old.txt").write_bytes("C\u00e6sar came.\n".encode("latin-1") + b"He saw.\n")
    documents, report = read_corpus(tmp_path, str(tmp_path / "old.txt"))
    assert documents[0].sentences == ("C\u00e6sar came.", "He saw.")
    assert report.recoded_lines == 1


def test_named_corpus_keeps_document_order_and_drops_evaluation_sentences(mini_data_dir):
    documents, report = read_corpus(mini_data_dir, "standard")
    assert set(report.documents) == set(CORPORA["standard"])
    assert sum(report.documents.values()) == len(documents) == 14
    first = documents[0]
    assert first.name.startswith("gutenberg/") and len(first) > 10
    forbidden = {normalize_for_leakage(first.sentences[1])}
    filtered, report = read_corpus(mini_data_dir, "gutenberg", forbidden=forbidden)
    assert filtered[0].sentences == first.sentences[:1] + first.sentences[2:]
    assert report.leaked["gutenberg"] >= 1


def test_user_paths_and_errors(tmp_path, mini_data_dir):
    folder = tmp_path / "texts"
    folder.mkdir()
    (folder / "a.txt").write_text("One. Two.\n")
    (folder / "skip.md").write_text("not read\n")
    documents, _ = read_corpus(mini_data_dir, f"{folder}:paragraphs")
    assert [d.sentences for d in documents] == [("One.", "Two.")]
    with pytest.raises(DataNotFoundError, match="neither a named corpus"):
        read_corpus(mini_data_dir, str(tmp_path / "missing"))
    with pytest.raises(DataNotFoundError, match="no files match"):
        read_corpus(tmp_path, "gutenberg")


def test_an_unknown_layout_of_an_existing_file_is_named_as_such(tmp_path):
    from parasent.data.training_text.corpus import corpus_files
    from parasent.errors import DataNotFoundError

    (tmp_path / "mine.txt").write_text("One sentence.\n")
    with pytest.raises(
        DataNotFoundError, match=r"unknown layout 'lines' \(known: sentences, wrapped, paragraphs\)"
    ):
        corpus_files(tmp_path, f"{tmp_path / 'mine.txt'}:lines")
    with pytest.raises(DataNotFoundError, match="neither a named corpus"):
        corpus_files(tmp_path, f"{tmp_path / 'other.txt'}:lines")
