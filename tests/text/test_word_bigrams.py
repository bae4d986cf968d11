import numpy as np
import pytest

from parasent.errors import ModelFormatError
from parasent.text.featurizers import load_tokenizer, tokenizer_from_string
from parasent.text.tokenized import Tokenized
from parasent.text.tokenizer import WordTokenizer
from parasent.text.word_bigrams import JOINER, WordBigramTokenizer, count_pairs, merge_units

WORDS = WordTokenizer.from_vocabulary("new york is a city not good".split())
TEXTS = ["New York is a city", "not good . new york", "zzz new york zzz", "is a city"]


def units(tokenizer, text):
    return tokenizer.tokens(text)


def test_most_frequent_pairs_of_known_words_become_bigrams():
    tokenizer = WordBigramTokenizer.from_texts(WORDS, TEXTS, max_bigrams=3, min_count=2)
    bigrams = tokenizer.vocabulary()[WORDS.vocab_size :]
    # new york x3, is a x2, a city x2 (ties by word ids: is-a before a-city); york is x1 is out
    assert bigrams == [f"new{JOINER}york", f"is{JOINER}a", f"a{JOINER}city"]
    assert tokenizer.config() == {"kind": "word_bigrams", "unknown": "vector", "vocab_size": 12, "bigrams": 3}
    assert tokenizer.bigram_ids.tolist() == [9, 10, 11]
    keys, counts = count_pairs(WORDS, TEXTS)
    assert int(counts.sum()) == 4 + 2 + 1 + 2  # per text; no pair with an unknown word ("zzz", ".")


def test_a_sentence_is_its_words_then_its_listed_bigrams():
    tokenizer = WordBigramTokenizer.from_texts(WORDS, TEXTS, max_bigrams=2, min_count=1)
    assert units(tokenizer, "New York is a city") == ["new", "york", "is", "a", "city", f"new{JOINER}york", f"is{JOINER}a"]  # fmt: skip
    assert units(tokenizer, "york new") == ["york", "new"]  # order matters: no bigram
    assert units(tokenizer, "new zzz york") == ["new", "[UNK]", "york"]
    assert tokenizer.encode_batch([""]).lengths.tolist() == [0]
    skip = WordBigramTokenizer(tokenizer.tokenizer, unknown="skip")
    assert units(skip, "new zzz york") == ["new", "york"]  # skipping a word does not join its neighbours
    assert skip.oov_counts(["new zzz york"]) == (1, 3)  # bigrams are never unknown


def test_the_fast_path_and_the_short_path_agree():
    tokenizer = WordBigramTokenizer.from_texts(WORDS, TEXTS, max_bigrams=5, min_count=1)
    many = [TEXTS[i % 4] + (" new york" * (i % 3)) for i in range(600)]  # above the fast-path size
    together = tokenizer.encode_batch(many)
    for i in (0, 1, 2, 299, 599):
        assert together.sentence(i).tolist() == tokenizer.encode_batch([many[i]]).ids.tolist()


def test_merge_keeps_sentences_apart():
    words = Tokenized.from_lists([[2, 3], [], [4, 5, 6]])
    merged = merge_units(words, np.array([9, 10, 11]), np.array([0, 2, 2]))
    assert [merged.sentence(i).tolist() for i in range(3)] == [[2, 3, 9], [], [4, 5, 6, 10, 11]]


def test_round_trips_through_directory_and_string(tmp_path):
    tokenizer = WordBigramTokenizer.from_texts(WORDS, TEXTS, max_bigrams=3, min_count=2)
    tokenizer.save(tmp_path)
    loaded = load_tokenizer(tmp_path, tokenizer.config())
    rebuilt = tokenizer_from_string(tokenizer.tokenizer.to_str(), tokenizer.config())
    for other in (loaded, rebuilt):
        assert isinstance(other, WordBigramTokenizer)
        assert other.encode_batch(TEXTS).ids.tolist() == tokenizer.encode_batch(TEXTS).ids.tolist()


def test_a_bigram_of_unknown_words_is_refused():
    broken = WordTokenizer.from_vocabulary(["new", f"new{JOINER}york"])
    with pytest.raises(ModelFormatError, match="not both in the vocabulary"):
        WordBigramTokenizer(broken.tokenizer)
