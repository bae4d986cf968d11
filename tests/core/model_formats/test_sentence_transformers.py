import json

import numpy as np
import pytest
import torch

from parasent import load
from parasent.cli import main
from parasent.core.model import SentenceModel
from parasent.encoders.word_averaging import WordAveraging
from parasent.errors import ModelFormatError
from parasent.text import WordTokenizer
from parasent.text.word_vectors import WordVectors

SENTENCES = [
    "A man is playing a guitar.",
    "a guy plays the GUITAR",
    "unknown zzz words, only!",
    "",
    "the cat sat on the mat",
]


@pytest.fixture()
def trained_like_model():
    tokenizer = WordTokenizer.from_vocabulary(
        ["a", "man", "is", "playing", "guitar", ".", "guy", "plays", "the", "cat"]
    )
    torch.manual_seed(0)
    encoder = WordAveraging(tokenizer.vocab_size, 12)
    encoder.set_embeddings(torch.randn(tokenizer.vocab_size, 12))
    return SentenceModel.from_encoder(tokenizer, encoder)


def cosines(a, b):
    na, nb = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
    both = (na > 0) & (nb > 0)
    assert np.array_equal(na > 0, nb > 0)  # zero vectors on the same sentences
    return (a[both] * b[both]).sum(1) / (na[both] * nb[both])


@pytest.mark.parametrize("unknown", ["vector", "skip"])
def test_sentence_transformers_encodes_the_same_vectors(trained_like_model, tmp_path, unknown):
    st = pytest.importorskip("sentence_transformers")
    model = trained_like_model
    if unknown == "skip":  # plain averaging of pretrained vectors skips unknown words
        model = SentenceModel.from_vectors(
            WordVectors(
                ["a", "man", "guitar", "the", "cat"],
                np.random.default_rng(1).normal(size=(5, 7)).astype(np.float32),
            )
        )
    path = model.export(tmp_path / "st")
    loaded = st.SentenceTransformer(str(path), device="cpu")
    theirs = loaded.encode(SENTENCES, convert_to_numpy=True)
    ours = model.encode(SENTENCES)
    assert theirs.shape == ours.shape
    assert cosines(ours, theirs).min() > 0.9999
    if unknown == "vector":
        np.testing.assert_allclose(theirs, ours, rtol=1e-5, atol=1e-6)


def test_load_reads_a_sentence_transformers_static_directory(trained_like_model, tmp_path):
    path = trained_like_model.export(tmp_path / "st")
    again = load(path)
    assert again.tokenizer.kind == "tokenizer"
    np.testing.assert_allclose(again.encode(SENTENCES), trained_like_model.encode(SENTENCES), rtol=1e-6)
    assert again.metadata["source"]["format"] == "sentence-transformers"
    # saved as a parasent model, it loads back with the same (pretrained) tokenizer
    saved = again.save(tmp_path / "parasent-copy")
    np.testing.assert_allclose(load(saved).encode(SENTENCES), again.encode(SENTENCES), rtol=1e-6)


def test_a_wordpiece_static_model_made_by_sentence_transformers(tmp_path):
    st = pytest.importorskip("sentence_transformers")
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "play": 3, "##ing": 4, "guitar": 5, "man": 6, "a": 7}
    tokenizer = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    weights = np.random.default_rng(0).normal(size=(len(vocab), 5)).astype(np.float32)
    module = st.sentence_transformer.modules.StaticEmbedding(tokenizer, embedding_weights=weights)
    st.SentenceTransformer(modules=[module], device="cpu").save(str(tmp_path / "wp"))
    theirs = st.SentenceTransformer(str(tmp_path / "wp"), device="cpu").encode(
        ["A man playing guitar", "xyz"]
    )
    ours = load(tmp_path / "wp")
    np.testing.assert_allclose(ours.encode(["A man playing guitar", "xyz"]), theirs, rtol=1e-5, atol=1e-6)
    assert ours.oov_rate(["xyz"]) == 1.0 and ours.oov_rate(["playing"]) == 0.0


def test_unsupported_directories(tmp_path, trained_like_model):
    path = trained_like_model.export(tmp_path / "st")
    modules = json.loads((path / "modules.json").read_text())
    (path / "modules.json").write_text(
        json.dumps(
            modules
            + [{"idx": 1, "name": "1", "path": "1_Dense", "type": "sentence_transformers.models.Dense"}]
        )
    )
    with pytest.raises(ModelFormatError, match="Dense"):
        load(path)
    (path / "modules.json").write_text(
        json.dumps([{"idx": 0, "path": "", "type": "sentence_transformers.models.Transformer"}])
    )
    with pytest.raises(ModelFormatError, match="static-embedding models only"):
        load(path)
    (path / "modules.json").write_text(json.dumps(modules))
    (path / "model.safetensors").unlink()
    with pytest.raises(ModelFormatError, match="never pickle"):
        load(path)


def test_model2vec_layout_is_folded(tmp_path, trained_like_model):
    from safetensors.numpy import save_file

    path = trained_like_model.export(tmp_path / "m2v")
    rows = np.random.default_rng(0).normal(size=(3, 4)).astype(np.float32)
    vocab = trained_like_model.tokenizer.vocab_size
    mapping = np.arange(vocab) % 3
    weights = np.linspace(0.5, 1.5, vocab).astype(np.float32)
    save_file(
        {"embeddings": rows, "mapping": mapping.astype(np.int64), "weights": weights},
        str(path / "model.safetensors"),
    )
    table = load(path).weights["embedding.weight"]
    np.testing.assert_allclose(table, rows[mapping] * weights[:, None], rtol=1e-6)


def test_export_command(trained_like_model, tmp_path, capsys):
    trained_like_model.save(tmp_path / "m")
    assert main(["export", str(tmp_path / "out"), "--model", str(tmp_path / "m")]) == 0
    assert "sentence-transformers" in capsys.readouterr().out
    assert json.loads((tmp_path / "out" / "modules.json").read_text())[0]["type"].endswith("StaticEmbedding")


def test_fine_tune_a_sentence_transformers_static_model(mini_data_dir, tmp_path):
    """init_model may name a sentence-transformers static-embedding directory: its vocabulary
    and vectors are the starting point of a paraphrastic (margin) run."""
    pytest.importorskip("sentence_transformers")
    from parasent.data.training_text.pools import build_pool
    from parasent.training.config import TrainConfig
    from parasent.training.run import train

    pairs, _ = build_pool(mini_data_dir, "standard")
    words = sorted({w for p in pairs[:50] for w in p.s1.lower().split()})
    rng = np.random.default_rng(0)
    start = SentenceModel.from_vectors(
        WordVectors(words, rng.normal(size=(len(words), 6)).astype(np.float32))
    )
    st_dir = start.export(tmp_path / "st")
    config = TrainConfig.preset("margin", vectors=None, init_model=str(st_dir), epochs=1, max_pairs=200)
    result = train(config, tmp_path / "run", data_dir=mini_data_dir, progress=False, say=lambda _: None)
    tuned = load(result.model_path)
    assert tuned.tokenizer.vocabulary() == load(st_dir).tokenizer.vocabulary()  # no new words
    assert not np.allclose(tuned.weights["embedding.weight"], load(st_dir).weights["embedding.weight"])


def _model2vec(path, rows, mapping):
    from safetensors.numpy import save_file

    save_file({"embeddings": rows, "mapping": mapping}, str(path / "model.safetensors"))


@pytest.mark.parametrize("bad", ["negative", "out-of-range", "wrong-length"])
def test_model2vec_mapping_ids_are_checked(tmp_path, trained_like_model, bad):
    path = trained_like_model.export(tmp_path / "m2v")
    vocab = trained_like_model.tokenizer.vocab_size
    mapping = np.arange(vocab, dtype=np.int64) % 3
    if bad == "negative":
        mapping[2] = -1
    elif bad == "out-of-range":
        mapping[2] = 3
    else:
        mapping = mapping[:-1]
    _model2vec(path, np.ones((3, 4), dtype=np.float32), mapping)
    with pytest.raises(ModelFormatError, match=f"{path / 'model.safetensors'}: 'mapping'"):
        load(path)


def test_model2vec_mapping_may_not_expand_a_small_file_into_gigabytes(tmp_path, monkeypatch):
    """A mapping repeats rows: the folded table is bounded by a multiple of the file size."""
    from parasent.core.model_formats import model2vec

    monkeypatch.setattr(model2vec, "EXPANSION_FLOOR_BYTES", 1024)  # the real floor, scaled to a tiny model
    words = [f"w{i}" for i in range(200)]
    model = SentenceModel.from_vectors(WordVectors(words, np.ones((200, 2), dtype=np.float32)))
    path = model.export(tmp_path / "m2v")
    vocab = model.tokenizer.vocab_size
    _model2vec(path, np.ones((1, 4096), dtype=np.float32), np.zeros(vocab, dtype=np.int64))
    with pytest.raises(ModelFormatError, match="expands"):
        load(path)


@pytest.mark.parametrize("module_path", ["../..", "/etc", "sub/../../x"])
def test_modules_paths_may_not_leave_the_directory(tmp_path, trained_like_model, module_path):
    path = trained_like_model.export(tmp_path / "st")
    modules = json.loads((path / "modules.json").read_text())
    modules[0]["path"] = module_path
    (path / "modules.json").write_text(json.dumps(modules))
    with pytest.raises(ModelFormatError, match=f"{path / 'modules.json'}: module path"):
        load(path)


def test_export_refuses_a_directory_that_is_not_a_model(trained_like_model, tmp_path, capsys):
    trained_like_model.save(tmp_path / "m")
    target = tmp_path / "d"
    target.mkdir()
    (target / "notes.txt").write_text("x")
    assert main(["export", str(target), "--model", str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err
    assert "holds files that are not a parasent" in err and "notes.txt" in err and "--overwrite" in err
    assert (target / "notes.txt").read_text() == "x"
    plain = tmp_path / "file"
    plain.write_text("keep")
    assert main(["export", str(plain), "--model", str(tmp_path / "m")]) == 2
    assert plain.read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d", "file", "m"]
    assert main(["export", str(target), "--model", str(tmp_path / "m"), "--overwrite"]) == 0
    assert (target / "modules.json").is_file() and not (target / "notes.txt").exists()
    assert main(["export", str(target), "--model", str(tmp_path / "m")]) == 2  # an earlier export: the user's
    assert "not replacing it (pass --overwrite" in capsys.readouterr().err


@pytest.mark.parametrize("damage", ["id-past-the-table", "unknown-token-missing"])
def test_a_tokenizer_that_does_not_fit_the_weights_is_an_error(trained_like_model, tmp_path, damage):
    """Found by the full fuzz run: ids beyond the embedding rows (an IndexError) and a WordLevel
    model whose [UNK] is not in its vocabulary (a plain Exception from tokenizers)."""
    path = trained_like_model.export(tmp_path / "st")
    tokenizer = json.loads((path / "tokenizer.json").read_text())
    vocab = tokenizer["model"]["vocab"]
    if damage == "id-past-the-table":
        vocab["cat"] = 1_000_000
    else:
        del vocab["[UNK]"]
        vocab["zzz-filler"] = 1
    (path / "tokenizer.json").write_text(json.dumps(tokenizer))
    model = load(path)
    with pytest.raises(ModelFormatError, match=str(path)):
        model.encode(["the cat", "never seen words"])
