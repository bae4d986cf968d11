import gzip

import pytest

from parasent.data.running_text import RUNNING_TEXT, corpus_sentences, read_sentences, split_sentences
from parasent.errors import DataNotFoundError


def test_split_sentences_handles_abbreviations_initials_and_quotes():
    text = (
        'Mr. Knightley came in. "Is it so?" said Emma.  She smiled! '
        "President Harry S. Truman spoke at 3.5 p.m. today. the end"
    )
    assert split_sentences(text) == [
        "Mr. Knightley came in.",
        '"Is it so?" said Emma.',
        "She smiled!",
        "President Harry S. Truman spoke at 3.5 p.m. today. the end",
    ]
    assert split_sentences("  ") == []


def test_prose_joins_wrapped_lines_and_keeps_order(tmp_path):
    path = tmp_path / "book.txt.gz"
    with gzip.open(path, "wb") as handle:
        handle.write(b"CHAPTER I\n\nEmma Woodhouse, handsome,\nclever and _rich_. She was\nhappy.\n\n")
        handle.write("Caf\xe9 au lait. Done.\n".encode("latin-1"))  # a Latin-1 line in a UTF-8 file
    assert list(read_sentences(path, "prose")) == [
        "CHAPTER I",
        "Emma Woodhouse, handsome, clever and rich.",
        "She was happy.",
        "Caf\xe9 au lait.",
        "Done.",
    ]


def test_lines_layout_and_unknown_layout(tmp_path):
    path = tmp_path / "review.txt"
    path.write_text("first sentence .\n\n  second one ?  \n")
    assert list(read_sentences(path, "lines")) == ["first sentence .", "second one ?"]
    with pytest.raises(ValueError, match="layout"):
        list(read_sentences(path, "xml"))


def test_corpus_sources(text_data_dir, tmp_path):
    everything = list(corpus_sentences(text_data_dir))
    reviews = list(corpus_sentences(text_data_dir, ["movie_reviews"]))
    assert len(reviews) == 40 and set(reviews) < set(everything)
    assert set(RUNNING_TEXT) == {"gutenberg", "movie_reviews", "state_union"}
    with pytest.raises(KeyError, match="unknown running-text source"):
        list(corpus_sentences(text_data_dir, ["nope"]))
    with pytest.raises(DataNotFoundError, match="no files"):
        list(corpus_sentences(tmp_path, ["gutenberg"]))
