"""The stored vocabulary (parasent.text.vocabulary_index): the same ids as tokenizer.json, no JSON read."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parasent.core.model import SentenceModel, load
from parasent.core.stored_weights import EMBEDDING_KEY
from parasent.text.tokenizer import WordTokenizer
from parasent.text.vocabulary_index import INDEX_FILE, VocabularyIndex, read_index, stored_index
from parasent.text.word_bigrams import WordBigramTokenizer
from parasent.text.word_pieces import piece_token

pytestmark = pytest.mark.core

WORDS = [
    "a",
    "man",
    "plays",
    "the",
    "guitar",
    ".",
    "dog",
    "caf\u00e9",
    "\u4e2d",
    "new",
    "york",
    "'",
    "s",
    "\x00",
]
PIECES = ["gui", "##tr", "##tar", "z", "##z", "q", "##v", "\u043c", "##\u043e", "\u732b", "##s"]
TEXTS = [
    "A man plays the guitar.",
    "A man plays the guitr!",  # an unknown word (pieces)
    "New York's caf\u00e9 \u4e2d\u732b",  # not ASCII: off the fast path
    "",
    "   ",
    "zzq \u041c\u043e\u0441 dog\x00man",  # the separator byte inside a text
    "NEW YORK new york",
    "\u2581 a\u2581b [p]gui [UNK]",  # the bigram joiner and piece markers as text
]
OLD_MODEL = Path(__file__).parents[1] / "models" / "word-bigrams-0.1.0"


def featurizer(kind: str, unknown: str):
    words = WordTokenizer.from_vocabulary(WORDS + [piece_token(p) for p in PIECES], unknown=unknown)
    if kind == "words":
        return words
    pairs = [("new", "york"), ("man", "plays"), ("the", "guitar")]
    triples = (
        [("man", "plays", "the"), ("new", "york", "'"), ("a", "man", "plays")]
        if kind == "word_trigrams"
        else []
    )
    return WordBigramTokenizer.from_words(words, pairs, triples)


def saved(tmp_path: Path, kind: str, unknown: str) -> tuple[SentenceModel, Path]:
    tokenizer = featurizer(kind, unknown)
    table = np.random.default_rng(0).normal(size=(tokenizer.vocab_size, 8)).astype(np.float32)
    config = {"name": "word_averaging", "vocab_size": tokenizer.vocab_size, "embedding_dim": 8}
    model = SentenceModel(tokenizer, config, {EMBEDDING_KEY: table})
    return model, model.save(tmp_path / f"{kind}-{unknown}")


@pytest.mark.parametrize("kind", ["words", "word_bigrams", "word_trigrams"])
@pytest.mark.parametrize("unknown", ["vector", "skip", "pieces"])
def test_a_saved_model_encodes_bit_for_bit_without_reading_tokenizer_json(tmp_path, kind, unknown):
    model, path = saved(tmp_path, kind, unknown)
    assert (path / INDEX_FILE).is_file()
    loaded = load(path)
    assert loaded.tokenizer._pipeline is None  # nothing parsed at load
    for texts in (TEXTS, TEXTS[:1], TEXTS[2:3], TEXTS * 40):
        np.testing.assert_array_equal(loaded.encode(texts), model.encode(texts))
        for i, text in enumerate(texts[:8]):
            reference = model.tokenizer.encode_batch([text]).ids.tolist()
            assert loaded.tokenizer.encode_batch(texts).sentence(i).tolist() == reference
    assert loaded.tokenizer._pipeline is None  # encoding, pieces included, never needed the pipeline
    assert loaded.coverage(TEXTS) == model.coverage(TEXTS)
    assert loaded.tokenizer.config() == model.tokenizer.config()
    assert loaded.tokenizer.vocabulary() == model.tokenizer.vocabulary()  # read when asked


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.text(alphabet="aBmnGuitr\u00e9\u4e2d\u732b ._'\x00\u2581[]", max_size=20), min_size=1, max_size=12
    )
)
def test_index_ids_match_the_tokenizers_pipeline_on_any_text(tmp_path_factory, texts):
    global _INDEXED
    if _INDEXED is None:
        _INDEXED = saved(tmp_path_factory.mktemp("index"), "word_bigrams", "pieces")
    model, path = _INDEXED
    loaded = load(path)
    expected = model.tokenizer.encode_batch(texts)
    got = loaded.tokenizer.encode_batch(texts)
    assert got.ids.tolist() == expected.ids.tolist() and got.offsets.tolist() == expected.offsets.tolist()


_INDEXED = None


def test_a_stale_or_broken_index_is_ignored(tmp_path):
    model, path = saved(tmp_path, "word_bigrams", "vector")
    other, other_path = saved(tmp_path / "other", "words", "vector")
    shutil.copy(other_path / INDEX_FILE, path / INDEX_FILE)  # another tokenizer.json's index
    loaded = load(path)
    assert loaded.tokenizer._words._index is None  # read from tokenizer.json instead
    np.testing.assert_array_equal(loaded.encode(TEXTS), model.encode(TEXTS))
    (path / INDEX_FILE).write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{}garbage")
    np.testing.assert_array_equal(load(path).encode(TEXTS), model.encode(TEXTS))
    (path / INDEX_FILE).unlink()
    np.testing.assert_array_equal(load(path).encode(TEXTS), model.encode(TEXTS))


def test_an_unsorted_index_is_not_used(tmp_path):
    _, path = saved(tmp_path, "words", "vector")
    sha = json.loads((path / "config.json").read_text())["tokenizer"]["sha256"]
    index = read_index(path, sha)
    assert index is not None and stored_index(path) is not None
    reversed_index = VocabularyIndex(**{**index.__dict__, "word_hashes": index.word_hashes[::-1].copy()})
    reversed_index.save(path)
    assert read_index(path, sha) is None


def test_only_parasents_own_word_pipeline_gets_an_index(tmp_path):
    from tokenizers import normalizers

    tokenizer = WordTokenizer.from_vocabulary(["a"])
    tokenizer.tokenizer.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])
    assert WordTokenizer(tokenizer.tokenizer).vocabulary_index("0" * 64) is None


def test_a_model_saved_before_the_index_loads_and_encodes_as_it_did():
    expected = json.loads((OLD_MODEL / "expected_vectors.json").read_text())
    assert not (OLD_MODEL / INDEX_FILE).exists()
    model = load(OLD_MODEL)
    vectors = model.encode(expected["sentences"])
    np.testing.assert_array_equal(vectors, np.asarray(expected["vectors"], dtype=np.float32))


def test_resaving_an_indexed_model_keeps_its_index_and_vectors(tmp_path):
    model, path = saved(tmp_path, "word_bigrams", "pieces")
    again = load(path).save(tmp_path / "again")
    assert (again / INDEX_FILE).is_file()
    reloaded = load(again)
    assert reloaded.tokenizer._pipeline is None
    np.testing.assert_array_equal(reloaded.encode(TEXTS), model.encode(TEXTS))


def test_the_shipped_default_model_has_its_index():
    from parasent.core.model import SHIPPED_DIR

    if not (SHIPPED_DIR / "default" / "config.json").is_file():
        pytest.skip("the default model is not installed")
    model = load()
    assert model.tokenizer._pipeline is None


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(alphabet="aB \u03a3\u03c3\u0130\u00e9\u4e2d.'\t\x00\u2581", max_size=12), max_size=8))
def test_splitting_texts_together_is_splitting_each(texts):
    from parasent.text.tokenizer import pre_tokenize, split_words

    assert split_words(texts) == [pre_tokenize(text) for text in texts]


@pytest.mark.parametrize("kind", ["words", "word_bigrams", "word_trigrams"])
def test_one_sentence_alone_is_bit_for_bit_its_row_in_a_batch(tmp_path, kind):
    model, path = saved(tmp_path, kind, "pieces")
    for encoder in (model, load(path)):
        batch = encoder.encode(TEXTS)
        for i, text in enumerate(TEXTS):
            assert (
                encoder.tokenizer.encode_batch([text]).ids.tolist()
                == encoder.tokenizer.encode_batch(TEXTS).sentence(i).tolist()
            )
            np.testing.assert_array_equal(encoder.encode([text])[0], batch[i])
            np.testing.assert_array_equal(encoder.encode(text), batch[i])


def test_trigrams_are_stored_in_a_format_2_index_and_bigram_models_keep_format_1(tmp_path):
    from safetensors import safe_open

    from parasent.text.vocabulary_index import INDEX_FORMAT, TRIGRAM_INDEX_FORMAT

    expected = {"word_bigrams": (INDEX_FORMAT, 0), "word_trigrams": (TRIGRAM_INDEX_FORMAT, 3)}
    for kind, (index_format, trigrams) in expected.items():
        _, path = saved(tmp_path, kind, "vector")
        with safe_open(str(path / INDEX_FILE), "numpy") as stored:
            assert stored.metadata()["format"] == index_format
            assert ("trigram_keys" in stored.keys()) == bool(trigrams)  # a bigram model's file as before
        index = stored_index(path)
        assert index is not None and len(index.trigram_keys) == len(index.trigram_ids) == trigrams
        assert index.bigrams_valid and load(path).tokenizer.trigram_ids.tolist() == sorted(
            index.trigram_ids.tolist()
        )


def test_a_broken_trigram_index_is_not_used(tmp_path, monkeypatch):
    model, path = saved(tmp_path, "word_trigrams", "vector")
    index = stored_index(path)
    broken = VocabularyIndex(**{**index.__dict__, "trigram_keys": index.trigram_keys[::-1].copy()})
    broken.save(path)
    assert stored_index(path) is None  # unsorted: a search would miss trigrams
    np.testing.assert_array_equal(load(path).encode(TEXTS), model.encode(TEXTS))
    monkeypatch.setattr("parasent.text.vocabulary_index._TRI_BITS", 2)  # a vocabulary too large for the keys
    rebuilt = VocabularyIndex.build(model.tokenizer.tokenizer.get_vocab(), "0" * 64)
    assert not rebuilt.bigrams_valid  # then tokenizer.json is read (and refuses it plainly)
