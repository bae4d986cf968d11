import numpy as np
import pytest

from parasent.errors import ModelFormatError
from parasent.text.featurizers import load_tokenizer, tokenizer_from_string
from parasent.text.tokenized import Tokenized
from parasent.text.tokenizer import WordTokenizer
from parasent.text.word_bigrams import (
    JOINER,
    WordBigramTokenizer,
    check_trigram_vocabulary,
    count_grams,
    count_pairs,
    merge_units,
)

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


def test_merge_is_each_sentence_then_its_grams_on_random_batches():
    # empty sentences, sentences without grams, grams of the first and last sentences
    rng = np.random.default_rng(3)
    for _ in range(300):
        lists = [rng.integers(0, 50, size=rng.integers(0, 4)).tolist() for _ in range(rng.integers(2, 7))]
        sentence = np.sort(rng.integers(0, len(lists), size=rng.integers(1, 6)))
        grams = rng.integers(100, 200, size=len(sentence))
        merged = merge_units(Tokenized.from_lists(lists), grams, sentence)
        expected = [words + grams[sentence == i].tolist() for i, words in enumerate(lists)]
        assert [merged.sentence(i).tolist() for i in range(len(lists))] == expected


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


# Trigrams -------------------------------------------------------------------------------
TRI_WORDS = WordTokenizer.from_vocabulary("new york is a city not very good".split())
TRI_TEXTS = [
    "New York is a city",
    "not very good . new york is a city",
    "zzz new york zzz",
    "is a city",
    "not very good",
    "very good",
]


def trigram_tokenizer(**options):
    settings = {"max_bigrams": 2, "max_trigrams": 2, "min_count": 2, **options}
    return WordBigramTokenizer.from_texts(TRI_WORDS, TRI_TEXTS, **settings)


def test_most_frequent_triples_of_known_words_become_trigrams_after_the_bigrams():
    tokenizer = trigram_tokenizer()
    # new york / is a / a city / very good x3 (ties by word ids); is a city x3, then new york is,
    # york is a, not very good x2 (ties by word ids); none holds "zzz" or "."
    assert tokenizer.vocabulary()[TRI_WORDS.vocab_size :] == [
        f"new{JOINER}york",
        f"is{JOINER}a",
        f"is{JOINER}a{JOINER}city",
        f"new{JOINER}york{JOINER}is",
    ]
    assert tokenizer.config() == {
        "kind": "word_bigrams",
        "unknown": "vector",
        "vocab_size": 14,
        "bigrams": 2,
        "trigrams": 2,
    }
    assert tokenizer.bigram_ids.tolist() == [10, 11] and tokenizer.trigram_ids.tolist() == [12, 13]
    (pair_keys, pair_counts), (triple_keys, triple_counts) = count_grams(TRI_WORDS, TRI_TEXTS)
    assert int(pair_counts.sum()) == 4 + 6 + 1 + 2 + 2 + 1  # per text, as count_pairs
    np.testing.assert_array_equal(pair_keys, count_pairs(TRI_WORDS, TRI_TEXTS)[0])
    assert int(triple_counts.sum()) == 3 + 4 + 0 + 1 + 1 + 0 and sorted(triple_counts.tolist()) == [
        2,
        2,
        2,
        3,
    ]
    assert "trigrams" not in trigram_tokenizer(max_trigrams=0).config()  # no trigrams: the config as before
    assert trigram_tokenizer(max_trigrams=0).vocabulary() == tokenizer.vocabulary()[:12]


def test_counting_in_chunks_counts_as_one_pass(monkeypatch):
    whole = count_grams(TRI_WORDS, TRI_TEXTS * 3)
    monkeypatch.setattr("parasent.text.word_bigrams.COUNT_CHUNK", 4)
    chunked = count_grams(TRI_WORDS, iter(TRI_TEXTS * 3))
    for (keys, counts), (again, counted) in zip(whole, chunked, strict=True):
        np.testing.assert_array_equal(keys, again)
        np.testing.assert_array_equal(counts, counted)


def test_a_sentence_is_its_words_then_its_bigrams_then_its_trigrams():
    tokenizer = trigram_tokenizer()
    assert units(tokenizer, "New York is a city") == [
        *"new york is a city".split(),
        f"new{JOINER}york",
        f"is{JOINER}a",
        f"new{JOINER}york{JOINER}is",  # in the sentence's order
        f"is{JOINER}a{JOINER}city",
    ]
    assert units(tokenizer, "new zzz york is a") == ["new", "[UNK]", "york", "is", "a", f"is{JOINER}a"]
    skip = WordBigramTokenizer(tokenizer.tokenizer, unknown="skip")
    assert units(skip, "is zzz a city") == ["is", "a", "city"]  # skipping a word does not join its neighbours
    assert units(tokenizer, "city is a") == ["city", "is", "a", f"is{JOINER}a"]
    assert tokenizer.encode_batch(["", "is a city"]).lengths.tolist() == [0, 5]


@pytest.mark.parametrize("unknown", ["vector", "skip"])
def test_trigrams_in_a_batch_are_the_trigrams_of_each_text_alone(unknown):
    tokenizer = WordBigramTokenizer(trigram_tokenizer(min_count=1, max_bigrams=4).tokenizer, unknown=unknown)
    many = [TRI_TEXTS[i % 6] + (" new york is a city" * (i % 3)) for i in range(600)]  # the fast path too
    together = tokenizer.encode_batch(many)
    for i in (0, 1, 2, 3, 4, 5, 299, 599):
        assert together.sentence(i).tolist() == tokenizer.encode_batch([many[i]]).ids.tolist()
    short = tokenizer.encode_batch(many[:7])
    for i in range(7):
        assert short.sentence(i).tolist() == tokenizer.encode_batch([many[i]]).ids.tolist()


def test_a_trigram_tokenizer_round_trips_through_directory_and_string(tmp_path):
    tokenizer = trigram_tokenizer()
    tokenizer.save(tmp_path)
    loaded = load_tokenizer(tmp_path, tokenizer.config())
    rebuilt = tokenizer_from_string(tokenizer.tokenizer.to_str(), tokenizer.config())
    for other in (loaded, rebuilt):
        assert isinstance(other, WordBigramTokenizer) and other.config() == tokenizer.config()
        assert other.encode_batch(TRI_TEXTS).ids.tolist() == tokenizer.encode_batch(TRI_TEXTS).ids.tolist()
    with pytest.raises(ModelFormatError, match="it holds 2 word trigrams, the config says 5"):
        load_tokenizer(tmp_path, {**tokenizer.config(), "trigrams": 5})


def test_a_malformed_trigram_is_refused():
    unknown_word = WordTokenizer.from_vocabulary(["new", "york", f"new{JOINER}york{JOINER}city"])
    with pytest.raises(ModelFormatError, match="trigram .* not all in the vocabulary"):
        WordBigramTokenizer(unknown_word.tokenizer)
    four = WordTokenizer.from_vocabulary(["a", "b", JOINER.join("abab")])
    with pytest.raises(ModelFormatError, match="joins more than three words"):
        WordBigramTokenizer(four.tokenizer)


def test_a_vocabulary_too_large_for_trigram_keys_is_refused(monkeypatch):
    check_trigram_vocabulary(1 << 21)  # the largest that fits
    with pytest.raises(ModelFormatError, match="at most 2097152 tokens"):
        check_trigram_vocabulary((1 << 21) + 1)
    with_trigrams, bigrams_only = trigram_tokenizer().tokenizer, trigram_tokenizer(max_trigrams=0).tokenizer
    monkeypatch.setattr("parasent.text.word_bigrams.MAX_TRIGRAM_VOCAB", 12)
    with pytest.raises(ModelFormatError, match="with word trigrams holds at most 12 tokens, this one 14"):
        WordBigramTokenizer(with_trigrams)
    WordBigramTokenizer(bigrams_only)  # bigrams alone: no limit
    with pytest.raises(ModelFormatError, match="at most 12 tokens"):
        count_grams(WordTokenizer.from_vocabulary([f"w{i}" for i in range(11)]), ["w1 w2 w3"])


def test_pairs_found_word_first_are_the_listed_keys_of_each_sentence():
    # Listed.pairs_in (the bigram path) against every pair key looked up (pair_keys, rows_of),
    # empty sentences and pairs across sentence boundaries included
    from parasent.text.word_bigrams import pair_keys

    tokenizer = WordBigramTokenizer.from_texts(WORDS, TEXTS, max_bigrams=5, min_count=1)
    rng = np.random.default_rng(0)
    for _ in range(20):
        lists = [rng.integers(0, WORDS.vocab_size, size=rng.integers(0, 6)).tolist() for _ in range(8)]
        words = Tokenized.from_lists(lists)
        keys, sentence = pair_keys(words)
        rows, found = tokenizer._pairs.rows_of(keys)
        got_rows, got_sentence = tokenizer._pairs.pairs_in(words)
        assert got_rows.tolist() == rows.tolist() and got_sentence.tolist() == sentence[found].tolist()
    new, york = WORDS.tokenizer.token_to_id("new"), WORDS.tokenizer.token_to_id("york")
    assert len(tokenizer._pairs.pairs_in(Tokenized.from_lists([[new, york]]))[0]) == 1
    assert tokenizer._pairs.pairs_in(Tokenized.from_lists([[new], [], [york]]))[0].tolist() == []
