import pytest

from parasent.errors import ModelFormatError
from parasent.text.characters import BOS, EOS, SPACE, CharNgramTokenizer
from parasent.text.featurizers import load_tokenizer, tokenizer_from_string
from parasent.text.tokenizer import PAD_ID, UNK_ID


def test_ngrams_span_spaces_and_boundary_markers():
    tokenizer = CharNgramTokenizer.from_vocabulary([], orders=(2, 3))
    assert tokenizer.sequence("  A  cat\t") == f"{BOS}a{SPACE}cat{EOS}"
    grams = tokenizer.grams("A cat")
    assert grams[:3] == [f"{BOS}a", f"a{SPACE}", f"{SPACE}c"]
    assert f"at{EOS}" in grams and f"{SPACE}ca" in grams
    assert len(grams) == (7 - 1) + (7 - 2)
    chars = CharNgramTokenizer.from_vocabulary([], orders=(1,))
    assert chars.grams("ab c") == [BOS, "a", "b", SPACE, "c", EOS]  # characters, in order
    assert chars.grams(f"x{BOS}{SPACE}y") == [BOS, "x", "y", EOS]  # reserved characters are dropped


def test_vocabulary_counts_cap_and_unknown_policies():
    texts = ["ab ab", "ab"]
    full = CharNgramTokenizer.from_texts(texts, orders=(2,))
    assert full.vocabulary()[:2] == ["[PAD]", "[UNK]"]
    assert full.vocabulary()[2] == "ab"  # the most frequent bigram first
    capped = CharNgramTokenizer.from_texts(texts, orders=(2,), max_size=2)
    assert capped.vocab_size == 4
    skip = capped.encode_batch(["ab zz"])
    assert UNK_ID not in skip.ids.tolist() and PAD_ID not in skip.ids.tolist()
    assert skip.ids.tolist().count(capped.token_to_id("ab")) == 1
    keep = CharNgramTokenizer.from_texts(texts, orders=(2,), max_size=2, unknown="vector")
    ids = keep.encode_batch(["ab zz"]).ids.tolist()
    assert ids.count(UNK_ID) == len(keep.grams("ab zz")) - 1
    unknown, total = keep.oov_counts(["ab zz"])
    assert (unknown, total) == (len(ids) - 1, len(ids))
    empty = keep.encode_batch([""])
    assert empty.lengths.tolist() == [1]  # the two markers still make a bigram


def test_round_trips_through_directory_and_string(tmp_path):
    tokenizer = CharNgramTokenizer.from_texts(["a cat sat", "the hat"], lowercase=False, unknown="vector")
    tokenizer.save(tmp_path)
    config = tokenizer.config()
    assert config["kind"] == "char_ngrams" and config["orders"] == [2, 3, 4]
    loaded = load_tokenizer(tmp_path, config)
    assert isinstance(loaded, CharNgramTokenizer) and not loaded.lowercase
    texts = ["The Cat", "sat on a hat"]
    expected = tokenizer.encode_batch(texts)
    again = tokenizer_from_string(tokenizer.tokenizer.to_str(), config)
    for other in (loaded.encode_batch(texts), again.encode_batch(texts)):
        assert other.ids.tolist() == expected.ids.tolist()
        assert other.offsets.tolist() == expected.offsets.tolist()
    with pytest.raises(ModelFormatError, match="unknown tokenizer kind"):
        load_tokenizer(tmp_path, {"kind": "bytes"})
    with pytest.raises(ValueError, match="orders"):
        CharNgramTokenizer.from_vocabulary([], orders=())


def test_tokenizer_json_alone_gives_the_same_ids():
    """A user of tokenizer.json alone (the n-grams joined by spaces) gets the model's ids."""
    tokenizer = CharNgramTokenizer.from_texts(["the cat sat", "on a mat"], unknown="vector")
    texts = ["The rat sat", "a  mat!"]
    direct = tokenizer.tokenizer.encode_batch(
        [" ".join(tokenizer.grams(t)) for t in texts], add_special_tokens=False
    )
    assert [e.ids for e in direct] == [tokenizer.encode_batch([t]).ids.tolist() for t in texts]
