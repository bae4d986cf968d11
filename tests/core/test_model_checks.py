"""Untrusted model directories: declared sizes, types, JSON bombs, non-finite weights and
mismatched tokenizers are refused with an error naming the file, before large allocations."""

from __future__ import annotations

import json

import numpy as np
import pytest
from safetensors.numpy import load_file, save_file

from parasent.core.model import SentenceModel, load
from parasent.errors import ModelFormatError
from parasent.text.word_vectors import WordVectors


def _words(tmp_path, name="m"):
    rng = np.random.default_rng(0)
    words = ["the", "cat", "sat", "dog"]
    model = SentenceModel.from_vectors(WordVectors(words, rng.normal(size=(4, 5)).astype(np.float32)))
    return model.save(tmp_path / name)


def _dan(tmp_path):
    from parasent.encoders import build_encoder
    from parasent.text.tokenizer import WordTokenizer

    tokenizer = WordTokenizer.from_vocabulary(["the", "cat"])
    encoder = build_encoder({"name": "dan", "vocab_size": tokenizer.vocab_size, "embedding_dim": 4})
    return SentenceModel.from_encoder(tokenizer, encoder).save(tmp_path / "dan")


def _edit_config(path, edit):
    config = json.loads((path / "config.json").read_text())
    edit(config)
    (path / "config.json").write_text(json.dumps(config))


@pytest.mark.parametrize(
    "edit",
    [
        lambda c: c.__setitem__("encoder", "x"),
        lambda c: c.__setitem__("format", "2"),
        lambda c: c["encoder"].__setitem__("vocab_size", "8890"),
        lambda c: c["encoder"].__setitem__("embedding_dim", 10**9),
        lambda c: c.__setitem__("tokenizer", [1]),
    ],
)
def test_config_with_wrong_types_is_refused(tmp_path, edit):
    path = _words(tmp_path)
    _edit_config(path, edit)
    with pytest.raises(ModelFormatError, match=str(path / "config.json")):
        load(path)


@pytest.mark.parametrize("key, value", [("layers", 1_000_000), ("hidden_dim", 100_000), ("layers", 2)])
def test_declared_sizes_are_checked_before_allocating(tmp_path, key, value):
    path = _dan(tmp_path)
    _edit_config(path, lambda c: c["encoder"].__setitem__(key, value))
    with pytest.raises(ModelFormatError, match=str(path / "config.json")):
        load(path)


def test_json_nesting_bomb_is_refused(tmp_path):
    path = _words(tmp_path)
    (path / "config.json").write_text("[" * 200_000 + "]" * 200_000)
    with pytest.raises(ModelFormatError, match=f"{path / 'config.json'}: .*nested too deeply"):
        load(path)


def test_non_finite_weights_are_refused(tmp_path):
    path = _words(tmp_path)
    weights = load_file(str(path / "model.safetensors"))
    weights["embedding.weight"][3, 2] = np.nan
    save_file(weights, str(path / "model.safetensors"))
    with pytest.raises(ModelFormatError, match=f"{path / 'model.safetensors'}: .*non-finite"):
        load(path)


def test_tokenizer_of_another_model_is_detected(tmp_path):
    """Same size, permuted ids: the hash written at save no longer matches."""
    path = _words(tmp_path)
    tokenizer = json.loads((path / "tokenizer.json").read_text())
    vocab = tokenizer["model"]["vocab"]
    vocab["cat"], vocab["dog"] = vocab["dog"], vocab["cat"]
    (path / "tokenizer.json").write_text(json.dumps(tokenizer))
    with pytest.raises(ModelFormatError, match=f"{path / 'tokenizer.json'}: not the tokenizer"):
        load(path)


def test_models_saved_without_the_tokenizer_hash_still_load(tmp_path):
    path = _words(tmp_path)
    _edit_config(path, lambda c: c["tokenizer"].pop("sha256"))
    assert load(path).encode(["the cat"]).shape == (1, 5)


def test_oversized_tokenizer_is_refused_before_parsing(tmp_path):
    path = _words(tmp_path)
    with open(path / "tokenizer.json", "ab") as handle:
        handle.write(b" " * (5 << 20))
    _edit_config(path, lambda c: c["tokenizer"].pop("sha256"))
    with pytest.raises(ModelFormatError, match=f"{path / 'tokenizer.json'}: .* bytes is far more"):
        load(path)


def test_run_directory_killed_mid_save_is_recovered_on_load(tmp_path):
    run = tmp_path / "run"
    model = _words(run, "model")
    pid = 999_999_999
    staging = run / f".model.tmp-{pid}"
    import shutil

    shutil.copytree(model, staging)
    model.rename(run / f".model.old-{pid}")
    assert load(run).encode(["the cat"]).shape == (1, 5)
    assert (run / "model" / "config.json").is_file()


def test_surrogates_in_a_sentence_are_a_value_error(tmp_path):
    model = load(_words(tmp_path))
    with pytest.raises(ValueError, match="text 2 \\(index 1\\) is not valid Unicode"):
        model.encode(["the cat", "caf\udce9"])


def test_finiteness_is_checked_once_per_version_of_the_weights(tmp_path, monkeypatch):
    """A memory-mapped model is not read whole at every load: the check is remembered by the
    file's size and modification time, and done again when the file changes."""
    import parasent.core.model_checks as checks

    path = _words(tmp_path)
    calls = []
    original = checks._check_finite
    monkeypatch.setattr(checks, "_check_finite", lambda p, w: calls.append(p) or original(p, w))
    load(path)
    load(path)
    assert len(calls) == 1
    weights = load_file(str(path / "model.safetensors"))
    weights["embedding.weight"][1, 1] = np.inf
    save_file(weights, str(path / "model.safetensors"))
    with pytest.raises(ModelFormatError, match="non-finite"):
        load(path)


def test_weights_too_large_to_average_are_an_error_not_nan(tmp_path):
    words = ["big", "huge"]
    model = SentenceModel.from_vectors(WordVectors(words, np.full((2, 3), 3e38, dtype=np.float32)))
    with pytest.raises(ModelFormatError, match="non-finite vectors"):
        model.encode(["big huge"])


def test_int8_weights_too_large_to_average_are_an_error_for_one_text_too(tmp_path):
    words = ["big", "huge"]
    model = SentenceModel.from_vectors(WordVectors(words, np.full((2, 3), 3e38, dtype=np.float32)))
    model.save(tmp_path / "m", dtype="int8")
    loaded = load(tmp_path / "m")
    loaded.tokenizer._plain_pipeline()  # the one-text path applies
    for texts in ("big huge", ["big huge"], ["big", "big huge"]):
        with pytest.raises(ModelFormatError, match="non-finite vectors"):
            loaded.encode(texts)
