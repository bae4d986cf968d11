import re
from collections import Counter

import numpy as np

from parasent.text import PAD, UNK, Tokenized, WordTokenizer, build_vocabulary, count_words, pre_tokenize


def test_pre_tokenize_matches_papers_preprocessing():
    text = "Dominick's $2.5 billion, naïve «hi» don't"
    assert pre_tokenize(text) == re.findall(r"\w+|[^\w\s]", text.lower())
    assert pre_tokenize("yucaipa owned dominick 's") == pre_tokenize("Yucaipa owned Dominick's")


def test_unknown_policies():
    vector = WordTokenizer.from_vocabulary(["the", "cat"])
    skip = WordTokenizer.from_vocabulary(["the", "cat"], unknown="skip")
    assert vector.encode_batch(["The dog"]).ids.tolist() == [2, 1]
    assert skip.encode_batch(["The dog"]).ids.tolist() == [2]
    assert vector.oov_counts(["the dog", "cat"]) == (1, 3)


def test_specials_and_save_load(tmp_path):
    tokenizer = WordTokenizer.from_vocabulary(["b", "a", "b", PAD])
    assert tokenizer.vocabulary() == [PAD, UNK, "b", "a"]
    tokenizer.save(tmp_path)
    again = WordTokenizer.load(tmp_path, unknown="skip")
    assert again.vocabulary() == tokenizer.vocabulary()
    assert (tmp_path / "tokenizer.json").is_file()
    assert again.encode_batch(["a zzz b"]).ids.tolist() == [3, 2]


def test_empty_sentences():
    tokenizer = WordTokenizer.from_vocabulary(["a"])
    tokenized = tokenizer.encode_batch(["", "a", "   "])
    assert tokenized.lengths.tolist() == [0, 1, 0]


def test_vocabulary_order_and_min_count():
    counts = count_words(["new new word", "word other", "The"])
    vocab = build_vocabulary(["the", "a", "the"], counts, min_count=2)
    assert vocab == ["the", "a", "new", "word"]
    assert build_vocabulary([], Counter({"b": 1, "a": 1}), min_count=1) == ["a", "b"]
    assert build_vocabulary([], Counter({"b": 3, "a": 1}), max_new_words=1) == ["b"]


def test_tokenized_take_and_without():
    corpus = Tokenized.from_lists([[2, 3], [], [1, 4, 1], [5]])
    sub = corpus.take(np.array([2, 0, 1, 2]))
    assert [sub.sentence(i).tolist() for i in range(len(sub))] == [[1, 4, 1], [2, 3], [], [1, 4, 1]]
    dropped = corpus.without(1)
    assert [dropped.sentence(i).tolist() for i in range(len(dropped))] == [[2, 3], [], [4], [5]]
    joined = Tokenized.concatenate([corpus, dropped])
    assert len(joined) == 8 and joined.sentence(6).tolist() == [4]
