import json
import os
import stat

import numpy as np
import pytest

from parasent import load
from parasent.data.vectors import WordVectors
from parasent.model import SentenceModel
from parasent.model_card import read_front_matter

WORDS = ["a", "man", "plays", "guitar", "the", "cat"]
SENTENCES = ["a man plays the guitar", "the cat", "zzz cat", ""]


@pytest.fixture()
def model():
    table = np.random.default_rng(3).normal(size=(len(WORDS), 10)).astype(np.float32)
    return SentenceModel.from_vectors(WordVectors(WORDS, table), metadata={"teacher": "all-MiniLM-L6-v2"})


def test_float16_truncated_export_loads_in_sentence_transformers(model, tmp_path):
    st = pytest.importorskip("sentence_transformers")
    path = model.export(tmp_path / "st", dtype="float16", truncate_dim=4)
    mode = stat.S_IMODE(os.stat(path / "model.safetensors").st_mode)
    assert mode & 0o044 and not mode & 0o111  # readable by others, never executable
    texts = SENTENCES[:3]  # (sentence-transformers gives NaN for an empty text in float16)
    theirs = st.SentenceTransformer(str(path), device="cpu").encode(texts, normalize_embeddings=True)
    ours = model.encode(texts, truncate_dim=4, normalize_embeddings=True)
    assert theirs.shape == ours.shape == (3, 4)
    np.testing.assert_allclose(theirs, ours, atol=2e-3)
    assert load(path).weights["embedding.weight"].dtype == np.float32  # read back widened
    front = read_front_matter((path / "README.md").read_text())
    assert front["library_name"] == "sentence-transformers"
    assert json.loads(front["base_model"]) == "all-MiniLM-L6-v2" and json.loads(front["license"]) == "mit"


def test_a_normalizing_model_exports_a_normalize_module(model, tmp_path):
    st = pytest.importorskip("sentence_transformers")
    model.metadata["normalize"] = True
    path = model.export(tmp_path / "st")
    kinds = [m["type"] for m in json.loads((path / "modules.json").read_text())]
    assert kinds[-1].endswith("Normalize")
    theirs = st.SentenceTransformer(str(path), device="cpu").encode(SENTENCES[:2])
    np.testing.assert_allclose(np.linalg.norm(theirs, axis=1), 1, rtol=1e-5)
    again = load(path)
    assert again.normalizes
    np.testing.assert_allclose(again.encode(SENTENCES[:2]), theirs, rtol=1e-5, atol=1e-6)


def test_export_refuses_what_the_format_cannot_hold(model, tmp_path):
    with pytest.raises(ValueError, match="int8"):
        model.export(tmp_path / "x", dtype="int8")
    with pytest.raises(ValueError, match="truncate_dim"):
        model.export(tmp_path / "x", truncate_dim=11)
    with pytest.raises(ValueError, match="unknown model format"):
        model.export(tmp_path / "x", format="onnx")
    assert not (tmp_path / "x").exists()


def test_a_word_bigram_model_is_refused_for_both_formats(model, tmp_path):
    from parasent.errors import ModelFormatError
    from parasent.text.word_bigrams import WordBigramTokenizer

    tokenizer = WordBigramTokenizer.from_words(model.tokenizer, [("a", "man")])
    table = np.vstack([np.asarray(model.weights["embedding.weight"]), np.ones((1, 10), np.float32)])
    config = dict(model.encoder_config, vocab_size=tokenizer.vocab_size)
    bigrams = SentenceModel(tokenizer, config, {"embedding.weight": table})
    for format in ("sentence-transformers", "model2vec"):
        with pytest.raises(ModelFormatError, match="--words-only"):
            bigrams.export(tmp_path / format, format=format)
    assert not list(tmp_path.iterdir())
    from parasent.cli import main

    bigrams.save(tmp_path / "b")
    assert main(["export", str(tmp_path / "st"), "--model", str(tmp_path / "b")]) != 0
    assert main(["export", str(tmp_path / "st"), "--model", str(tmp_path / "b"), "--words-only"]) == 0
    from parasent.inference import cosine_rows

    words = load(tmp_path / "st").encode(SENTENCES[:3])  # the word model's directions (its [UNK] is zero)
    assert np.all(cosine_rows(words, model.encode(SENTENCES[:3])) > 0.9999)


def test_export_command_formats_and_precision(model, tmp_path, capsys):
    from parasent.cli import main

    model.save(tmp_path / "m")
    argv = ["export", str(tmp_path / "out"), "--model", str(tmp_path / "m"), "--format", "model2vec"]
    assert main(argv + ["--dtype", "int8", "--truncate-dim", "5"]) == 0
    assert "x 5, int8" in capsys.readouterr().out
    assert json.loads((tmp_path / "out" / "config.json").read_text())["embedding_dtype"] == "int8"
    assert load(tmp_path / "out").dim == 5
    assert main(["export", str(tmp_path / "st"), "--model", str(tmp_path / "m"), "--dtype", "int8"]) == 2
    assert "float32, float16" in capsys.readouterr().err
