"""Unknown words as subword pieces (parasent.text.word_pieces): no shared [UNK] row."""

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parasent.core.model import SentenceModel, load
from parasent.core.stored_weights import EMBEDDING_KEY
from parasent.text.tokenized import Tokenized
from parasent.text.tokenizer import UNK_ID, WordTokenizer
from parasent.text.word_bigrams import WordBigramTokenizer
from parasent.text.word_pieces import forget_words, piece_text, piece_token, splice, teacher_pieces

pytestmark = pytest.mark.core

WORDS = ["a", "man", "plays", "the", "guitar", ".", "dog"]
PIECES = ["gui", "##tr", "##tar", "z", "##z", "##q", "##x", "q", "##v", "м", "##о", "##с", "猫", "##s"]
OLD_MODEL = Path(__file__).parents[1] / "models" / "word-bigrams-0.1.0"


def tokenizer(unknown: str = "pieces") -> WordTokenizer:
    return WordTokenizer.from_vocabulary(WORDS + [piece_token(p) for p in PIECES], unknown=unknown)


def tokens(featurizer, text: str) -> list[str]:
    vocabulary = featurizer.vocabulary()
    return [vocabulary[i] for i in featurizer.encode_batch([text]).ids]


def test_an_unknown_word_becomes_its_pieces_and_known_words_stay_whole():
    words = tokenizer()
    assert tokens(words, "A man plays the guitr.") == ["a", "man", "plays", "the", "[p]gui", "[p]##tr", "."]
    assert tokens(words, "zzqx") == ["[p]z", "[p]##z", "[p]##q", "[p]##x"]
    assert tokens(words, "猫猫") == ["[p]猫", "[p]猫"]  # every CJK character a word of its own
    assert tokens(words, "Мос") == ["[p]м", "[p]##о", "[p]##с"]
    assert tokens(words, "Ωμέγα ☃") == []  # no known piece: nothing, never a shared row
    assert tokens(tokenizer("vector"), "guitr") == ["[UNK]"]  # the old policy is unchanged
    assert words.config()["pieces"] == len(PIECES)


def test_batches_keep_sentence_bounds_with_pieces_in_between():
    words = tokenizer()
    texts = ["the guitr", "", "zzqx dog", "a man", "Ωμέγα"]
    batch = words.encode_batch(texts)
    assert [list(batch.sentence(i)) for i in range(len(texts))] == [
        list(words.encode_batch([t]).ids) for t in texts
    ]


def test_word_bigrams_with_pieces_form_bigrams_of_known_words_only():
    words = tokenizer()
    bigrams = WordBigramTokenizer.from_words(words, [("the", "guitar"), ("man", "plays")])
    assert bigrams.unknown == "pieces"
    assert tokens(bigrams, "a man plays the guitr") == [
        "a", "man", "plays", "the", "[p]gui", "[p]##tr", "man\u2581plays",
    ]  # fmt: skip
    assert bigrams.config()["pieces"] == len(PIECES)
    kept, _ = bigrams.keeping(np.zeros(0, dtype=np.int64))
    assert tokens(kept, "guitr") == ["[p]gui", "[p]##tr"]  # compaction keeps the policy and pieces


def test_splice_replaces_tokens_by_arrays_of_any_length():
    tokenized = Tokenized.from_lists([[5, 1, 6], [], [1], [7, 1]])
    out = splice(
        tokenized, np.array([1, 3, 5]), [np.array([8, 9]), np.array([], dtype=np.int64), np.array([4])]
    )
    assert [list(out.sentence(i)) for i in range(4)] == [[5, 8, 9, 6], [], [], [7, 4]]


def test_forgetting_is_seeded_and_leaves_specials_alone():
    tokenized = Tokenized.from_lists([[2, 3, 4, 5, 6, 7, 8, 9] * 50, [0, 1]])
    first = forget_words(tokenized, 0.3, seed=1, unknown_id=UNK_ID)
    assert np.array_equal(first.ids, forget_words(tokenized, 0.3, seed=1, unknown_id=UNK_ID).ids)
    share = np.mean(first.sentence(0) == UNK_ID)
    assert 0.2 < share < 0.4 and list(first.sentence(1)) == [0, 1]
    assert forget_words(tokenized, 0.0, seed=1, unknown_id=UNK_ID) is tokenized
    words = tokenizer()
    view = words.encode_batch_forgetting(["a man plays the guitar ."] * 40, 0.5, seed=0)
    vocabulary = words.vocabulary()
    pieces = [vocabulary[i] for i in view.ids if vocabulary[i].startswith("[p]")]
    assert "[p]gui" in pieces and "[p]##tar" in pieces  # "guitar" spelt out where forgotten


def test_piece_helpers():
    assert piece_text("[p]##tr") == "tr" and piece_text("[p]gui") == "gui"
    assert teacher_pieces(["[PAD]", "[unused3]", "<s>", "[", "##a", "cat"]) == ["[", "##a", "cat"]


def unknown_text_model() -> SentenceModel:
    words = tokenizer()
    table = np.random.default_rng(0).normal(size=(words.vocab_size, 16)).astype(np.float32)
    table[0] = 0
    config = {"name": "word_averaging", "vocab_size": words.vocab_size, "embedding_dim": 16}
    return SentenceModel(words, config, {EMBEDDING_KEY: table}, metadata={"languages": ["en"]})


def test_unknown_text_is_not_one_vector_and_text_without_units_is_zero(tmp_path):
    model = unknown_text_model()
    assert model.similarity_pairwise("zzqx", "qqvv") < 0.999  # the [UNK] row made this 1.0
    assert model.similarity_pairwise("Ωμέγα", "Ωμέγα") == 0.0  # zero vectors: 0, never NaN
    assert not model.encode("☃ ☃").any()
    model.save(tmp_path / "m")
    again = load(tmp_path / "m")
    assert again.tokenizer.unknown == "pieces" and again.languages == ["en"]
    np.testing.assert_array_equal(again.encode(["the guitr", "zzqx"]), model.encode(["the guitr", "zzqx"]))
    card = (tmp_path / "m" / "README.md").read_text()
    assert 'language:\n- "en"' in card and "subword pieces" in card and "zero vector" in card


def test_coverage_counts_known_words_pieces_and_the_rest():
    coverage = unknown_text_model().coverage(["the guitr .", "Ωμέγα zzqx"])
    assert (coverage.words, coverage.known, coverage.by_pieces, coverage.unknown) == (5, 2, 2, 1)
    assert coverage.share == pytest.approx(0.4)
    old = load(OLD_MODEL).coverage("a man plays zzqx")
    assert (old.words, old.by_pieces) == (4, 0) and old.unknown == old.words - old.known


def test_a_model_written_before_pieces_loads_and_encodes_as_it_did():
    expected = json.loads((OLD_MODEL / "expected_vectors.json").read_text())
    model = load(OLD_MODEL)
    assert model.tokenizer.unknown == "vector" and model.languages == []
    np.testing.assert_array_equal(
        model.encode(expected["sentences"]), np.asarray(expected["vectors"], dtype=np.float32)
    )


# characters the BERT normalizer and pre-tokenizer treat apart: accents, CJK, punctuation,
# controls, marks alone, ligatures, capitals, digits, symbols outside the basic plane
ALPHABET = "zqxv guitrм猫ос_éÉ\u0301ﬁǅ“”-.'0\x01\u200bΩ😀Ⅻ"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=ALPHABET, max_size=12), max_size=8))
def test_the_pieces_of_words_pieced_together_are_those_of_each_word_alone(words):
    fallback = tokenizer().piece_fallback()
    alone = [
        [i for i in fallback._tokenizer.encode(word, add_special_tokens=False).ids if i != UNK_ID]
        for word in words
    ]
    assert [ids.tolist() for ids in fallback.pieces_of(words)] == alone


def test_the_same_unknown_words_again_give_the_same_pieces_and_nothing_is_remembered():
    words = tokenizer()
    texts = ["guitr zzqx zzq zqx", "zqq guitr", "zzzz qqqq guitr zzqx zz"]
    first = [list(words.encode_batch([t]).ids) for t in texts]
    batch = words.encode_batch(texts)
    assert [list(batch.sentence(i)) for i in range(3)] == first
    assert words.piece_fallback().__dict__.keys() == {"_words_of", "size", "unknown_id", "_tokenizer"}


def test_splice_is_each_sentence_spelt_out_on_random_batches():
    # positions at sentence starts and ends, empty sentences, empty and long replacements
    rng = np.random.default_rng(7)
    for _ in range(300):
        lists = [rng.integers(0, 50, size=rng.integers(0, 5)).tolist() for _ in range(rng.integers(1, 6))]
        tokenized = Tokenized.from_lists(lists)
        positions = np.unique(rng.integers(0, max(len(tokenized.ids), 1), size=rng.integers(0, 6)))
        positions = positions[positions < len(tokenized.ids)]
        replacements = [rng.integers(100, 200, size=rng.integers(0, 4)) for _ in positions]
        by_position = dict(zip(positions.tolist(), (r.tolist() for r in replacements), strict=True))
        expected, flat = [], 0
        for sentence in lists:
            expected.append([])
            for token in sentence:
                expected[-1] += by_position.get(flat, [token])
                flat += 1
        out = splice(tokenized, positions, replacements)
        assert [out.sentence(i).tolist() for i in range(len(lists))] == expected
