import re
from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

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
    assert corpus.token_sentences().tolist() == [0, 0, 2, 2, 2, 3]  # the empty sentence has none


_ALPHABET = (
    [chr(c) for c in range(0, 128)]  # every ASCII character: controls, the separator, \x1c-\x1f
    + ["\u00e9", "\u00c9", "\u2019", "\u00a0", "\u3000", "\u0301", "\u0130", "\u00df", "\u4e2d", "\U0001f600"]
)


def _reference(tokenizer, texts):
    """The tokenizers pipeline alone (the slow path)."""
    encodings = tokenizer.tokenizer.encode_batch(texts, add_special_tokens=False)
    return [e.ids for e in encodings]


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.text(alphabet=_ALPHABET, max_size=25), min_size=1, max_size=40),
    st.sampled_from(["vector", "skip"]),
)
def test_fast_path_matches_the_tokenizers_pipeline(texts, unknown):
    from parasent.text.tokenizer import FAST_PATH_MIN_TEXTS

    words = ["a", "man", "_", "x1", "\u00e9t\u00e9", "'", ".", "\x1c", "ab_c", "\x00"]
    tokenizer = WordTokenizer.from_vocabulary(words, unknown=unknown)
    batch = (texts * (FAST_PATH_MIN_TEXTS // len(texts) + 1))[: FAST_PATH_MIN_TEXTS + 3]
    fast = tokenizer.encode_batch(batch)
    expected = _reference(tokenizer, batch)
    if unknown == "skip":
        expected = [[i for i in ids if i != 1] for ids in expected]
    assert [
        fast.ids[a:b].tolist() for a, b in zip(fast.offsets[:-1], fast.offsets[1:], strict=True)
    ] == expected
    assert tokenizer._ids is not None  # the fast path ran
    reference = [i for ids in _reference(tokenizer, batch) for i in ids]
    assert tokenizer.oov_counts(batch) == (reference.count(1), len(reference))


def test_fast_path_only_for_the_plain_pipeline():
    from tokenizers import normalizers

    plain = WordTokenizer.from_vocabulary(["a"])
    assert plain._plain_pipeline()
    changed = WordTokenizer.from_vocabulary(["a"])
    changed.tokenizer.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])
    assert not WordTokenizer(changed.tokenizer)._plain_pipeline()


def test_tokenized_with_sentences_replaces_those_sentences_only():
    corpus = Tokenized.from_lists([[1, 2], [3], [], [4, 5, 6], [7]])
    others = Tokenized.from_lists([[9, 9, 9], [8]])
    replaced = corpus.with_sentences(np.array([1, 2]), others)
    assert [replaced.sentence(i).tolist() for i in range(5)] == [[1, 2], [9, 9, 9], [8], [4, 5, 6], [7]]
    last = corpus.with_sentences(np.array([0, 4]), Tokenized.from_lists([[], [6, 6]]))
    assert [last.sentence(i).tolist() for i in range(5)] == [[], [3], [], [4, 5, 6], [6, 6]]
