import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parasent.errors import HashCollision
from parasent.text import WordTokenizer, ascii_words
from parasent.text.ascii_words import AsciiWordLookup, text_bounds, token_hash, word_hashes
from parasent.text.tokenizer import FAST_PATH_MIN_TEXTS, pre_tokenize


def test_text_bounds_split_words_and_single_symbols_between_separators():
    data = b"Don't  stop\t$2.5\x00\x00x_y\x00"
    starts, ends, lengths = text_bounds(np.frombuffer(data, dtype=np.uint8))
    tokens = [data[a:b].decode() for a, b in zip(starts, ends, strict=True)]
    assert tokens == ["Don", "'", "t", "stop", "$", "2", ".", "5", "x_y"]
    assert lengths.tolist() == [8, 0, 1]


def test_ids_are_case_blind_with_unknowns_and_separators():
    lookup = AsciiWordLookup(
        {"[PAD]": 0, "[UNK]": 1, "the": 2, "cat": 3, "'": 4, "caterpillar": 5}, unknown=1
    )
    ids, lengths = lookup.text_ids(b"The CAT's caterpillars\x00cat\x00")
    assert ids.tolist() == [2, 3, 4, 1, 1, 3] and lengths.tolist() == [5, 1]
    ids, lengths = lookup.text_ids(b"")
    assert ids.tolist() == [] and lengths.tolist() == []


@settings(max_examples=20, deadline=None)
@given(
    st.lists(st.text(alphabet="abcXYZ019_ .,'\t", max_size=12), min_size=1, max_size=30),
    st.integers(0, 2**31),
)
def test_fast_path_matches_tokenizers_on_a_large_vocabulary(texts, seed):
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcxyz019_"))
    vocabulary = {"".join(rng.choice(letters, size=rng.integers(1, 6))) for _ in range(3000)}
    tokenizer = WordTokenizer.from_vocabulary(sorted(vocabulary) + [".", ","])
    batch = (texts * (FAST_PATH_MIN_TEXTS // len(texts) + 1))[: FAST_PATH_MIN_TEXTS + 1]
    fast = tokenizer.encode_batch(batch)
    expected = [e.ids for e in tokenizer.tokenizer.encode_batch(batch, add_special_tokens=False)]
    assert [fast.sentence(i).tolist() for i in range(len(batch))] == expected


def test_a_hash_collision_falls_back_to_the_tokenizers_pipeline(monkeypatch):
    def collide(*args, **kwargs):
        raise HashCollision("two vocabulary words share a 64-bit hash")

    monkeypatch.setattr(ascii_words.AsciiWordLookup, "__init__", collide)
    tokenizer = WordTokenizer.from_vocabulary(["a", "man"])
    batch = ["A man", "a cat"] * FAST_PATH_MIN_TEXTS
    assert tokenizer.encode_batch(batch).sentence(1).tolist() == [2, 1]
    assert tokenizer._ids is None and not tokenizer._plain


def test_a_vocabulary_word_with_capitals_never_matches_as_in_tokenizers():
    tokenizer = WordTokenizer.from_vocabulary(["Paris", "london"])
    batch = ["Paris london PARIS", "paris"] * FAST_PATH_MIN_TEXTS
    expected = [e.ids for e in tokenizer.tokenizer.encode_batch(batch[:2], add_special_tokens=False)]
    fast = tokenizer.encode_batch(batch)
    assert [fast.sentence(i).tolist() for i in range(2)] == expected == [[1, 3, 1], [1]]


def test_non_ascii_words_are_found_by_the_hash_of_their_bytes():
    lookup = AsciiWordLookup({"[PAD]": 0, "[UNK]": 1, "caf\u00e9": 2, "\u4e2d": 3}, unknown=1)
    assert lookup.ids_of_words(["caf\u00e9", "\u4e2d", "cafe", ""]).tolist() == [2, 3, 1, 1]
    assert lookup.ids_of_words([]).tolist() == []


def test_the_byte_classes_and_weights_of_every_byte():
    values = np.arange(256, dtype=np.uint8)
    word, space = ascii_words.word_and_space(values)
    expected = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
    assert np.flatnonzero(word).tolist() == sorted(expected)
    assert np.flatnonzero(space).tolist() == [9, 10, 11, 12, 13, 32]
    lowered = [ord(chr(b).lower()) if chr(b).isascii() and chr(b).isupper() else b for b in range(256)]
    assert ascii_words.byte_weights(values, lowercase=True).tolist() == [b + 1 for b in lowered]
    assert ascii_words.byte_weights(values, lowercase=False).tolist() == list(range(1, 257))


def test_duplicate_hashes_are_refused(monkeypatch):
    def every_byte_alike(values, *, lowercase):
        return np.ones(len(values), dtype=np.uint64)

    monkeypatch.setattr(ascii_words, "byte_weights", every_byte_alike)
    with pytest.raises(HashCollision):
        AsciiWordLookup({"ab": 2, "cd": 3}, unknown=1)


def test_hashing_in_segments_gives_the_same_ids(monkeypatch):
    vocabulary = {"[PAD]": 0, "[UNK]": 1, "a": 2, "longer": 3, "word": 4, "!": 5}
    data = b"A longer word!\x00" * 50 + b"a" * 40 + b" word"
    whole = AsciiWordLookup(vocabulary, unknown=1).text_ids(data)[0]
    monkeypatch.setattr(ascii_words, "SEGMENT_BYTES", 7)  # shorter than some tokens
    segmented = AsciiWordLookup(vocabulary, unknown=1)
    np.testing.assert_array_equal(segmented.text_ids(data)[0], whole)
    assert (
        whole[-2:].tolist() == [1, 4] and len(segmented._powers[0]) <= 14
    )  # the 40-byte token's powers not kept


@pytest.mark.parametrize("threads", ["2", "3", "7"])
def test_long_data_split_in_parts_at_once_gives_the_same_ids(monkeypatch, threads):
    vocabulary = {"[PAD]": 0, "[UNK]": 1, "a": 2, "longer": 3, "word": 4, "!": 5}
    rng = np.random.default_rng(9)
    texts = [
        "".join(rng.choice(["a ", "Longer", " word", "!", "zz", " "], size=rng.integers(0, 6)))
        for _ in range(60)
    ]
    data = ("\0".join(texts) + "\0").encode()
    lookup = AsciiWordLookup(vocabulary, unknown=1)
    ids, lengths = lookup.text_ids(data)
    parts = []
    real = ascii_words.run_together
    monkeypatch.setattr(ascii_words, "run_together", lambda tasks: (parts.append(len(tasks)), real(tasks)))
    monkeypatch.setattr(ascii_words, "PART_MIN_BYTES", 5)
    monkeypatch.setenv("PARASENT_NUM_THREADS", threads)
    for cut in (data, data[:-1], data[: len(data) // 3]):  # the last separator, or none, missing
        alone = lookup._text_ids(memoryview(cut))
        together = lookup.text_ids(cut)
        np.testing.assert_array_equal(together[0], alone[0])
        np.testing.assert_array_equal(together[1], alone[1])
    np.testing.assert_array_equal(lookup.text_ids(data)[1], lengths)
    assert parts == [int(threads)] * 4 and len(lengths) == 60 and (ids == 1).any()


def test_the_hash_table_finds_what_binary_search_finds(monkeypatch):
    rng = np.random.default_rng(3)
    letters = np.array(list("abcxyz019_"))
    vocabulary = {"".join(rng.choice(letters, size=rng.integers(1, 7))) for _ in range(5000)}
    ids = {word: i + 2 for i, word in enumerate(sorted(vocabulary))}
    data = " ".join(rng.choice(sorted(vocabulary) + ["qq", "zzz9", "_"], size=4000)).encode()
    searched = AsciiWordLookup(ids, unknown=1)
    expected = searched.text_ids(data)[0]
    assert searched._table is None  # a short run never builds it
    monkeypatch.setattr(ascii_words, "TABLE_AFTER_WORDS", 1)
    hashed = AsciiWordLookup(ids, unknown=1)
    np.testing.assert_array_equal(hashed.text_ids(data)[0], expected)
    assert hashed._table is not None and (expected == 1).any()


def test_words_at_are_the_words_of_the_split():
    from parasent.text.tokenizer import words_at

    texts = ["Don't stop", "\u00dcber caf\u00e9!", "a\x00b c", "", "x_y  2.5 ##", "THE end"]
    split = [pre_tokenize(text) for text in texts]
    which = np.array([i for i, words in enumerate(split) for _ in words][::-1])
    ranks = np.array([k for words in split for k in range(len(words))][::-1])
    assert words_at(texts, which, ranks) == [word for words in split for word in words][::-1]
    assert ascii_words.words_at(["Ab cd", "E"], np.array([1, 0]), np.array([0, 1])) == ["e", "cd"]


def test_a_token_hashed_in_python_has_the_hash_of_the_array_path():
    words = ["a", "guitar", "café", "東京", "", "x" * 300, "don't", "😀", "\x7f\x01"]
    assert [token_hash(word.encode("utf-8")) for word in words] == word_hashes(words).tolist()


def test_a_few_tokens_are_found_as_the_array_path_finds_them():
    lookup = AsciiWordLookup({"[PAD]": 0, "[UNK]": 1, "man": 2, "café": 3, "'": 4}, unknown=1)
    tokens = ["man", "café", "'", "men", "Man", ""]
    assert lookup.ids_of_tokens(tokens) == lookup.ids_of_words(tokens).tolist() == [2, 3, 4, 1, 1, 1]
