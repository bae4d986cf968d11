"""encode_one gives the ids a batch of one gets, and the model's one-text path the same vector
bit for bit (parasent/text/one_text.py)."""

from __future__ import annotations

import pytest

import parasent
from parasent.text.one_text import MEMO_ENTRIES, Memo, Whole, ascii_tokens, within
from parasent.text.tokenizer import WordTokenizer
from parasent.text.word_bigrams import WordBigramTokenizer
from parasent.text.word_pieces import piece_token

pytestmark = pytest.mark.core

TEXTS = [
    "A man is playing a guitar.",
    "A MAN is Playing a GUITAR!!",
    "guitr plaing man, teh kids",
    "zxqv blorptic frimble",
    "It's 5 o'clock -- isn't it?",
    "new york new york new york",
    "",
    "   \t\n ",
    "a",
    "under_score snake_case_words and CamelCase",
    "tabs\tand\x0bvertical\x0cfeeds\rreturn",
    "control\x01chars\x1fhere",
    "emails: someone@example.com, urls: https://example.org/a?b=c",
    "1,234.56 $ 78% #tag @user",
    "the the the the the the the the the the the the the the the the",
]
NOT_ASCII = [
    "Ein Mann spielt Gitarre, schön.",
    "東京は日本の首都です。",
    "café",
    "ΟΔΟΣ “İstanbul” — ½ naïve\u00a0STRASSE 😀",
]
BATCH_ONLY = ["nul\0byte", "x" * 10_001 + " é"]  # the separator; longer than MAX_CHARACTERS


@pytest.fixture(scope="module")
def model():
    return parasent.load()


@pytest.mark.parametrize("text", TEXTS)
def test_encode_one_gives_the_ids_of_a_batch_of_one(model, text):
    ids = model.tokenizer.encode_one(text)
    assert ids is not None
    assert ids.tolist() == model.tokenizer.encode_batch([text]).ids.tolist()


@pytest.mark.parametrize("text", TEXTS + NOT_ASCII + BATCH_ONLY)
def test_one_text_is_the_batch_path_bit_for_bit(model, text):
    expected = model._average([text])[0]
    assert model.encode(text).tobytes() == expected.tobytes()
    assert model.encode([text])[0].tobytes() == expected.tobytes()


@pytest.mark.parametrize("text", NOT_ASCII)
def test_text_of_any_script_gives_the_ids_of_a_batch_of_one(model, text):
    ids = model.tokenizer.encode_one(text)
    assert ids is not None
    assert ids.tolist() == model.tokenizer.encode_batch([text]).ids.tolist()


@pytest.mark.parametrize("text", BATCH_ONLY)
def test_other_text_takes_the_batch_path(model, text):
    assert model.tokenizer.encode_one(text) is None


def test_a_word_tokenizer_of_a_plain_pipeline_agrees_with_its_batches():
    words = WordTokenizer.from_vocabulary(["a", "man", "plays", "guitar", "."], unknown="skip")
    assert words.encode_one("A man plays.") is None  # not known to be the plain pipeline yet
    words._plain_pipeline()
    for text in ["A man plays guitar.", "a woman plays", "guitar guitar ."]:
        assert words.encode_one(text).tolist() == words.encode_batch([text]).ids.tolist()


def test_ascii_tokens_split_as_the_word_pipeline():
    from parasent.text.tokenizer import pre_tokenize

    for text in TEXTS:
        assert ascii_tokens(text) == pre_tokenize(text)


def test_the_memo_fills_once_and_stays_bounded(monkeypatch):
    calls = []

    def fill(keys):
        calls.append(list(keys))
        return [key * 2 for key in keys]

    memo = Memo(fill)
    assert memo.lookup([1, 2, 1]) == [2, 4, 2]
    assert memo.lookup([2, 1]) == [4, 2]
    assert calls == [[1, 2]]
    monkeypatch.setattr("parasent.text.one_text.MEMO_ENTRIES", 3)
    memo.lookup([3, 4])  # 2 + 2 > 3: starts afresh
    assert len(memo._entries) == 2 and MEMO_ENTRIES > 3
    assert Memo(lambda keys: None).lookup([1]) is None
    memo.lookup([5, 6, 7, 8])  # one call past the bound: answered, not kept
    assert len(memo._entries) == 0


def test_a_long_text_takes_the_batch_path(model):
    from parasent.text.one_text import MAX_CHARACTERS

    text = "a man plays a guitar " * (MAX_CHARACTERS // 20)
    assert ascii_tokens(text) is None
    assert model.encode(text).tobytes() == model._average([text])[0].tobytes()


@pytest.mark.parametrize("unknown", ["vector", "skip", "pieces"])
def test_a_trigram_tokenizer_gives_the_ids_of_a_batch_of_one(unknown):
    vocabulary = ["a", "man", "is", "playing", "guitar", ".", "new", "york", "the"]
    words = WordTokenizer.from_vocabulary(
        vocabulary + [piece_token(p) for p in ("gui", "##tr")], unknown=unknown
    )
    pairs = [("a", "man"), ("new", "york"), ("playing", "a")]
    triples = [("a", "man", "is"), ("new", "york", "new"), ("man", "is", "playing"), ("the", "the", "the")]
    tokenizer = WordBigramTokenizer.from_words(words, pairs, triples)
    tokenizer._words._plain_pipeline()  # as a stored vocabulary says it is
    for text in TEXTS + ["a man is playing a guitr", "A man zzz is playing", "new york new"]:
        ids = tokenizer.encode_one(text)
        assert ids is not None
        assert ids.tolist() == tokenizer.encode_batch([text]).ids.tolist()
    assert tokenizer.encode_one("the the the the").tolist() == [10, 10, 10, 10, 19, 19]


def test_ids_outside_the_vocabulary_leave_the_one_text_path():
    assert within([2, 5, 0], 6).tolist() == [2, 5, 0]
    assert within([], 6).tolist() == []
    assert within([2, 6], 6) is None
    assert within([-1, 2], 6) is None


def test_a_list_held_whole_gives_the_values_of_the_listed_keys_in_order():
    assert Whole({10: 3, 20: 4}).listed([20, 30, 10, 20]) == [4, 3, 4]


def test_a_long_list_of_bigrams_is_memoised_and_gives_the_same_ids(monkeypatch):
    from parasent.text import word_bigrams

    monkeypatch.setattr(word_bigrams, "WHOLE_KEYS", 10)  # the default's 12,000 bigrams: memoised
    fresh = parasent.load()
    for text in TEXTS + NOT_ASCII:
        assert fresh.tokenizer.encode_one(text).tolist() == fresh.tokenizer.encode_batch([text]).ids.tolist()
    assert getattr(fresh.tokenizer._one_pairs, "__self__", None) is None  # a memo, not a Whole


@pytest.mark.parametrize("text", ["guitr plaing qwzx-blorp", "an unseenword unseenword café naïveté"])
def test_words_never_seen_give_the_ids_of_a_batch_of_one(text):
    fresh = parasent.load()  # empty memos: every word a miss
    assert fresh.tokenizer.encode_one(text).tolist() == fresh.tokenizer.encode_batch([text]).ids.tolist()
