import pytest
from tokenizers import Tokenizer, models, pre_tokenizers

from parasent.errors import ModelFormatError
from parasent.text.featurizers import load_tokenizer, tokenizer_from_string
from parasent.text.pretrained import PretrainedTokenizer
from parasent.text.tokenizer import WordTokenizer


def wordpiece():
    vocab = {"[PAD]": 0, "hello": 1, "[UNK]": 2, "world": 3, "##s": 4}
    tokenizer = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    return tokenizer


def test_keeps_ids_and_counts_its_unknown_token(tmp_path):
    tokenizer = PretrainedTokenizer(wordpiece())
    tokenized = tokenizer.encode_batch(["hello worlds", "zzz"])
    assert tokenized.ids.tolist() == [1, 3, 4, 2] and tokenized.offsets.tolist() == [0, 3, 4]
    assert tokenizer.unk_id == 2 and tokenizer.oov_counts(["hello zzz"]) == (1, 2)
    assert tokenizer.config() == {"kind": "tokenizer", "unknown": "vector", "vocab_size": 5}
    tokenizer.save(tmp_path)
    again = load_tokenizer(tmp_path, tokenizer.config())
    assert isinstance(again, PretrainedTokenizer) and again.vocabulary()[3] == "world"
    rebuilt = tokenizer_from_string(tokenizer.tokenizer.to_str(), tokenizer.config())
    assert rebuilt.encode_batch(["hello"]).ids.tolist() == [1]
    with pytest.raises(ValueError):
        PretrainedTokenizer(wordpiece(), unknown="average")
    skipping = PretrainedTokenizer(wordpiece(), unknown="skip")  # model2vec's policy: drop [UNK]
    assert skipping.encode_batch(["zzz hello"]).ids.tolist() == [1]
    assert skipping.config()["unknown"] == "skip"
    assert load_tokenizer(tmp_path, skipping.config()).unknown == "skip"


def test_kind_dispatch_defaults_to_words(tmp_path):
    words = WordTokenizer.from_vocabulary(["a", "b"])
    words.save(tmp_path)
    assert type(load_tokenizer(tmp_path, {})) is WordTokenizer
    with pytest.raises(ModelFormatError, match="unknown tokenizer kind"):
        load_tokenizer(tmp_path, {"kind": "bytes"})
