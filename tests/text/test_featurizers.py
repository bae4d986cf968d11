"""A model's tokenizer is read the way its kind says, and only a file of that kind is read so:
each featurizer declares the regular expressions its pipeline may run (a hostile pattern is
refused at load) and how a file of its kind looks (a swapped ``tokenizer.kind`` is refused)."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
from tokenizers import Regex, Tokenizer, models, pre_tokenizers

from parasent.cli import main
from parasent.core.model import SentenceModel, load
from parasent.errors import ModelFormatError
from parasent.text import featurizers
from parasent.text.characters import CharNgramTokenizer
from parasent.text.pretrained import PretrainedTokenizer
from parasent.text.tokenizer import WordTokenizer, encode_checked, regex_patterns
from parasent.text.word_bigrams import WordBigramTokenizer
from parasent.text.word_vectors import WordVectors

HOSTILE = "(a|aa)+$"
WORDS = ["the", "cat", "sat", "on", "mat", "aaaa"]


def _model(tmp_path, kind="words"):
    rng = np.random.default_rng(0)
    base = SentenceModel.from_vectors(WordVectors(WORDS, rng.normal(size=(6, 8)).astype(np.float32)))
    if kind == "word_bigrams":
        tokenizer = WordBigramTokenizer.from_words(base.tokenizer, [("the", "cat")])
    elif kind == "char_ngrams":
        tokenizer = CharNgramTokenizer.from_texts(["the cat sat on the mat"], orders=(2, 3))
    else:
        tokenizer = base.tokenizer
    table = rng.normal(size=(tokenizer.vocab_size, 8)).astype(np.float32)
    config = {"name": "word_averaging", "vocab_size": tokenizer.vocab_size, "embedding_dim": 8}
    path = tmp_path / kind
    SentenceModel(tokenizer, config, {"embedding.weight": table}).save(path)
    return path


def _rehash(path):
    """What a hostile author does after editing tokenizer.json: update the hash so it loads."""
    config = json.loads((path / "config.json").read_text())
    digest = hashlib.sha256((path / "tokenizer.json").read_bytes()).hexdigest()
    config["tokenizer"]["sha256"] = digest
    (path / "config.json").write_text(json.dumps(config))


def _set_pattern(path, pattern):
    data = json.loads((path / "tokenizer.json").read_text())
    data["pre_tokenizer"] = {
        "type": "Sequence",
        "pretokenizers": [
            {"type": "WhitespaceSplit"},
            {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False},
        ],
    }
    (path / "tokenizer.json").write_text(json.dumps(data))
    if (path / "config.json").is_file():
        _rehash(path)


@pytest.mark.parametrize("kind", ["words", "word_bigrams", "char_ngrams"])
def test_a_hostile_pattern_is_refused_at_load(tmp_path, kind):
    path = _model(tmp_path, kind)
    _set_pattern(path, HOSTILE)
    with pytest.raises(
        ModelFormatError, match=r"tokenizer.json: regular expression '\(a\|aa\)\+\$' is not one"
    ):
        load(path)


def test_a_hostile_pattern_in_a_sentence_transformers_directory_is_refused(tmp_path):
    path = _model(tmp_path)
    load(path).export(tmp_path / "st")
    _set_pattern(tmp_path / "st", HOSTILE)
    with pytest.raises(ModelFormatError, match="regular expression"):
        load(tmp_path / "st")


def test_a_hostile_pattern_is_a_one_line_error_on_the_command_line(tmp_path, capsys):
    path = _model(tmp_path)
    _set_pattern(path, HOSTILE)
    assert main(["similarity", "a" * 40 + "b", "x", "--model", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and f"{path}/tokenizer.json" in err


def test_every_kind_declares_its_patterns_and_writes_only_those(tmp_path):
    classes = {
        "words": WordTokenizer,
        "word_bigrams": WordBigramTokenizer,
        "char_ngrams": CharNgramTokenizer,
        "tokenizer": PretrainedTokenizer,
    }
    assert set(classes) == set(featurizers.KINDS)
    for kind in ("words", "word_bigrams", "char_ngrams"):
        featurizer = load(_model(tmp_path, kind)).tokenizer
        assert isinstance(featurizer, classes[kind])
        assert set(regex_patterns(featurizer.tokenizer)) <= classes[kind].PATTERNS
    assert not CharNgramTokenizer.PATTERNS and WordTokenizer.PATTERNS <= PretrainedTokenizer.PATTERNS


def test_a_pretrained_pipeline_with_a_known_pattern_loads_and_an_unknown_one_does_not():
    def pipeline(pattern):
        tokenizer = Tokenizer(models.WordLevel({"[UNK]": 0, "a": 1}, unk_token="[UNK]"))
        tokenizer.pre_tokenizer = pre_tokenizers.Split(Regex(pattern), behavior="isolated")
        return tokenizer

    llama3 = next(p for p in PretrainedTokenizer.PATTERNS if "{1,3}" in p)
    assert PretrainedTokenizer(pipeline(llama3)).vocab_size == 2
    with pytest.raises(ModelFormatError, match="'tokenizer' tokenizer"):
        PretrainedTokenizer(pipeline(HOSTILE))


def test_a_tokenizer_panic_is_an_error_not_a_base_exception():
    """A backtracking pattern that reached the tokenizer anyway (built in Python) panics in
    Rust (pyo3's PanicException, no Exception); the encode wrapper turns it into one error."""
    tokenizer = Tokenizer(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Split(Regex(HOSTILE), behavior="isolated")
    with pytest.raises(ModelFormatError, match="cannot encode text"):
        encode_checked(tokenizer.encode_batch, ["a" * 5000 + "b"])


def test_the_command_line_reports_a_panic_in_one_line(tmp_path, monkeypatch, capsys):
    tokenizer = Tokenizer(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Split(Regex(HOSTILE), behavior="isolated")
    try:
        tokenizer.encode("a" * 5000 + "b")
    except BaseException as exc:  # noqa: BLE001 - the panic to replay
        panic = exc
    assert type(panic).__name__ == "PanicException" and not isinstance(panic, Exception)

    def run(args):
        raise panic

    import parasent.commands.similarity as similarity

    monkeypatch.setattr(similarity, "run", run)
    assert main(["similarity", "a", "b"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("parasent: error: a native library failed (") and err.count("\n") == 1


SWAPS = [
    ("words", "char_ngrams", "regular expression"),
    ("words", "word_bigrams", "holds no word bigrams"),
    ("word_bigrams", "words", "tokenizer.bigrams is no setting of a 'words' tokenizer"),
    ("word_bigrams", "tokenizer", "tokenizer.bigrams is no setting"),
    ("char_ngrams", "words", "tokenizer.lowercase is no setting"),
    ("char_ngrams", "word_bigrams", "its words are not both in the vocabulary"),
]


@pytest.mark.parametrize(("saved", "claimed", "message"), SWAPS)
def test_a_swapped_tokenizer_kind_is_refused(tmp_path, saved, claimed, message):
    path = _model(tmp_path, saved)
    config = json.loads((path / "config.json").read_text())
    config["tokenizer"]["kind"] = claimed
    (path / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelFormatError, match=message):
        load(path)


@pytest.mark.parametrize(("saved", "claimed"), [("word_bigrams", "words"), ("word_bigrams", "tokenizer")])
def test_a_swapped_kind_with_its_settings_removed_is_still_refused(tmp_path, saved, claimed):
    path = _model(tmp_path, saved)
    config = json.loads((path / "config.json").read_text())
    config["tokenizer"] = {
        "kind": claimed,
        "unknown": "skip",
        "vocab_size": config["tokenizer"]["vocab_size"],
    }
    (path / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelFormatError, match="holds word bigrams"):
        load(path)


def test_a_word_bigram_count_that_differs_from_the_file_is_refused(tmp_path):
    path = _model(tmp_path, "word_bigrams")
    config = json.loads((path / "config.json").read_text())
    config["tokenizer"]["bigrams"] = 7
    (path / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelFormatError, match="holds 1 word bigrams, the config says 7"):
        load(path)


@pytest.mark.parametrize("value", [123, None, True, ["x"], "abc", "G" * 64])
def test_a_tokenizer_hash_that_is_no_sha256_is_refused(tmp_path, value):
    path = _model(tmp_path)
    config = json.loads((path / "config.json").read_text())
    config["tokenizer"]["sha256"] = value
    (path / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelFormatError, match="tokenizer.sha256 must be a sha256 in hex"):
        load(path)
