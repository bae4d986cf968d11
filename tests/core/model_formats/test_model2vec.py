"""model2vec directories, made by model2vec itself from a tiny tokenizer (no hub): parasent
encodes what model2vec encodes, honouring ``normalize`` and model2vec's skipping of the
unknown token; and parasent's model2vec export loads back in model2vec."""

import os

import numpy as np
import pytest
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

from parasent import load
from parasent.core.model import SentenceModel
from parasent.core.model_card import read_front_matter
from parasent.text.word_vectors import WordVectors

SENTENCES = ["a man plays guitar", "zzz a man", "qqq", "", "the guitar plays"]


def tiny_tokenizer():
    vocab = {"[PAD]": 0, "[UNK]": 1, "a": 2, "man": 3, "plays": 4, "guitar": 5, "the": 6}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    return tokenizer


@pytest.mark.parametrize("normalize", [True, False])
def test_a_model2vec_directory_encodes_as_model2vec_does(tmp_path, normalize):
    model2vec = pytest.importorskip("model2vec")
    vectors = np.random.default_rng(0).normal(size=(7, 6)).astype(np.float32)
    made = model2vec.StaticModel(vectors, tiny_tokenizer(), normalize=normalize)
    made.save_pretrained(str(tmp_path / "m2v"))
    theirs = model2vec.StaticModel.from_pretrained(str(tmp_path / "m2v")).encode(SENTENCES)
    ours = load(tmp_path / "m2v")
    assert ours.normalizes is normalize and ours.metadata["source"]["format"] == "model2vec"
    np.testing.assert_allclose(ours.encode(SENTENCES), theirs, rtol=1e-5, atol=1e-6)
    # the unknown token is dropped, not averaged in: "zzz a man" is "a man"
    np.testing.assert_allclose(ours.encode("zzz a man"), ours.encode("a man"), rtol=1e-6)
    again = load(ours.save(tmp_path / "copy"))  # a parasent copy keeps both behaviours
    np.testing.assert_allclose(again.encode(SENTENCES), theirs, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int8"])
def test_model2vec_export_loads_in_model2vec(tmp_path, dtype):
    model2vec = pytest.importorskip("model2vec")
    words = ["a", "man", "plays", "guitar", "the"]
    model = SentenceModel.from_vectors(
        WordVectors(words, np.random.default_rng(1).normal(size=(5, 8)).astype(np.float32))
    )
    path = model.export(tmp_path / "out", format="model2vec", dtype=dtype, truncate_dim=6)
    assert oct(os.stat(path / "model.safetensors").st_mode & 0o777) == oct(0o666 & ~_umask())
    theirs = model2vec.StaticModel.from_pretrained(str(path))
    assert theirs.embedding.dtype == np.dtype(dtype) and theirs.dim == 6
    reference = model.encode(SENTENCES, truncate_dim=6, normalize_embeddings=True)
    exported = theirs.encode(SENTENCES, normalize=True).astype(np.float32)
    known = np.linalg.norm(reference, axis=1) > 0
    cos = (reference[known] * exported[known]).sum(1)
    assert cos.min() > (0.9999 if dtype == "float32" else 0.99)
    np.testing.assert_allclose(
        load(path).encode(SENTENCES, normalize_embeddings=True),
        exported,
        atol=2e-3 if dtype != "float32" else 1e-5,
    )
    front = read_front_matter((path / "README.md").read_text())
    assert front["library_name"] == "model2vec"


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_model2vec_directory_without_modules_json(tmp_path):
    model2vec = pytest.importorskip("model2vec")
    import json

    vectors = np.random.default_rng(2).normal(size=(7, 4)).astype(np.float32)
    model2vec.StaticModel(vectors, tiny_tokenizer(), normalize=False).save_pretrained(str(tmp_path / "m"))
    (tmp_path / "m" / "modules.json").unlink()
    config = json.loads((tmp_path / "m" / "config.json").read_text())
    (tmp_path / "m" / "config.json").write_text(json.dumps({**config, "model_type": "model2vec"}))
    ours = load(tmp_path / "m")
    theirs = model2vec.StaticModel.from_pretrained(str(tmp_path / "m")).encode(SENTENCES)
    np.testing.assert_allclose(ours.encode(SENTENCES), theirs, rtol=1e-5, atol=1e-6)


def test_a_model_that_averages_unk_says_model2vec_skips_it(tmp_path, capsys):
    """model2vec drops the unknown token; a model averaging a shared [UNK] row in encodes text
    with unknown words differently there: its card and `parasent export` say so."""
    from parasent.cli import main
    from parasent.text.tokenizer import WordTokenizer

    words = ["a", "man", "plays", "guitar", "the"]
    tokenizer = WordTokenizer.from_vocabulary(words, unknown="vector")
    table = np.random.default_rng(2).normal(size=(tokenizer.vocab_size, 8)).astype(np.float32)
    config = {"name": "word_averaging", "vocab_size": tokenizer.vocab_size, "embedding_dim": 8}
    model = SentenceModel(tokenizer, config, {"embedding.weight": table})
    assert not np.allclose(model.encode("zzz a man"), model.encode("a man"))  # [UNK] averaged in
    card = (model.export(tmp_path / "m2v", format="model2vec") / "README.md").read_text()
    assert "Unknown words skipped: model2vec drops the unknown token" in card
    assert "Words outside its vocabulary are skipped" in card and "shares one [UNK]" not in card
    exported = load(tmp_path / "m2v")
    np.testing.assert_allclose(exported.encode("zzz a man"), exported.encode("a man"), rtol=1e-6)
    st_card = (model.export(tmp_path / "st") / "README.md").read_text()
    assert "Unknown words skipped" not in st_card and "shares one [UNK] vector" in st_card
    model.save(tmp_path / "model")
    assert (
        main(["export", "--model", str(tmp_path / "model"), str(tmp_path / "cli"), "--format", "model2vec"])
        == 0
    )
    assert "Unknown words skipped: model2vec drops the unknown token" in capsys.readouterr().err
