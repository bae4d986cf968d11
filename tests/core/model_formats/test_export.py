import json
import os
import re
import stat

import numpy as np
import pytest

from parasent import load
from parasent.core.model import SentenceModel
from parasent.core.model_card import read_front_matter
from parasent.text.word_vectors import WordVectors

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
    with pytest.raises(ValueError, match="truncate_dim"):
        model.export(tmp_path / "x", truncate_dim=11)
    with pytest.raises(ValueError, match="unknown model format"):
        model.export(tmp_path / "x", format="onnx")
    with pytest.raises(ValueError, match="bfloat16"):
        model.export(tmp_path / "x", dtype="bfloat16")
    assert not (tmp_path / "x").exists()


def bigram_model(model):
    from parasent.text.word_bigrams import WordBigramTokenizer

    tokenizer = WordBigramTokenizer.from_words(model.tokenizer, [("a", "man")])
    table = np.vstack([np.asarray(model.weights["embedding.weight"]), np.ones((1, 10), np.float32)])
    config = dict(model.encoder_config, vocab_size=tokenizer.vocab_size)
    return SentenceModel(
        tokenizer, config, {"embedding.weight": table}, metadata={"transfer": {"STS12": 0.9}}
    )


def test_a_word_bigram_model_exports_to_sentence_transformers_losslessly_with_int8_kept(model, tmp_path):
    st = pytest.importorskip("sentence_transformers")
    bigram_model(model).save(tmp_path / "b", dtype="int8")
    source = load(tmp_path / "b")  # held as int8 rows, as the shipped default is
    path = source.export(tmp_path / "st")
    inner = load(path / "0_ParasentEmbedding")
    assert type(inner.weights["embedding.weight"]).__name__ == "QuantizedTable"  # int8 kept
    theirs = st.SentenceTransformer(str(path), device="cpu", trust_remote_code=True).encode(SENTENCES)
    ours = source.encode(SENTENCES)
    from parasent.core.compaction import words_only

    assert not np.allclose(ours[0], words_only(source).encode(SENTENCES[0]))  # the bigram counts
    np.testing.assert_allclose(theirs, ours, atol=1e-6)
    np.testing.assert_allclose(load(path).encode(SENTENCES), ours, atol=1e-6)  # parasent reads it back
    card = (path / "README.md").read_text()
    assert "parasent must be installed" in card and "trust_remote_code=True" in card
    assert "STS12" not in card and "model-index" not in card  # never the source's scores


def test_the_parasent_module_truncates_and_saves_again(model, tmp_path):
    st = pytest.importorskip("sentence_transformers")
    source = bigram_model(model)
    path = source.export(tmp_path / "st", truncate_dim=4)
    loaded = st.SentenceTransformer(str(path), device="cpu", trust_remote_code=True)
    assert loaded.encode(SENTENCES).shape == (len(SENTENCES), 4)
    np.testing.assert_allclose(loaded.encode(SENTENCES), source.encode(SENTENCES, truncate_dim=4), atol=1e-6)
    np.testing.assert_allclose(
        load(path).encode(SENTENCES), source.encode(SENTENCES, truncate_dim=4), atol=1e-6
    )
    loaded.save(str(tmp_path / "again"))
    again = st.SentenceTransformer(str(tmp_path / "again"), device="cpu", trust_remote_code=True)
    np.testing.assert_allclose(again.encode(SENTENCES), source.encode(SENTENCES, truncate_dim=4), atol=1e-6)


def test_the_shipped_default_exports_losslessly_to_sentence_transformers(tmp_path):
    st = pytest.importorskip("sentence_transformers")
    default = load()
    path = default.export(tmp_path / "st")
    texts = ["A man is playing a guitar.", "Someone plays the guitar!", "zzzq unknownish words", ""]
    theirs = st.SentenceTransformer(str(path), device="cpu", trust_remote_code=True).encode(texts)
    np.testing.assert_allclose(theirs, default.encode(texts), atol=1e-6)
    size = sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
    assert size < 40e6  # int8 as shipped, not a 200 MB float32 table


def test_model2vec_refuses_bigrams_and_words_only_names_the_loss(model, tmp_path, capsys):
    from parasent.cli import main
    from parasent.errors import ModelFormatError

    bigrams = bigram_model(model)
    with pytest.raises(ModelFormatError, match="--words-only"):
        bigrams.export(tmp_path / "m2v", format="model2vec")
    assert not list(tmp_path.iterdir())
    bigrams.save(tmp_path / "b")
    argv = ["export", str(tmp_path / "m2v"), "--model", str(tmp_path / "b"), "--format", "model2vec"]
    assert main(argv) == 2
    assert "--words-only" in capsys.readouterr().err
    assert main(argv + ["--words-only"]) == 0
    err = capsys.readouterr().err
    assert "dropped the model's 1 word bigrams" in err and "differ" in err
    card = (tmp_path / "m2v" / "README.md").read_text()
    assert "1 word bigrams, dropped here" in card and "STS12" not in card
    from parasent.core.inference import cosine_rows

    words = load(tmp_path / "m2v").encode(SENTENCES[:3])  # the word model's directions (its [UNK] is zero)
    assert np.all(cosine_rows(words, model.encode(SENTENCES[:3])) > 0.9999)


def test_an_export_card_carries_scores_measured_at_export_only(model, tmp_path):
    model.metadata["transfer"] = {"STS12": 0.9}
    plain = (model.export(tmp_path / "a") / "README.md").read_text()
    assert "STS12" not in plain and "No scores" in plain
    scored = (model.export(tmp_path / "b", transfer={"STS13": 0.5}) / "README.md").read_text()
    assert "STS13" in scored and "STS12" not in scored and "measured on the exported vectors" in scored


def test_export_evaluate_scores_the_exported_vectors(model, tmp_path, mini_data_dir, capsys):
    from parasent.cli import main

    bigram_model(model).save(tmp_path / "m")
    argv = ["export", str(tmp_path / "out"), "--model", str(tmp_path / "m"), "--format", "model2vec"]
    assert main(argv + ["--words-only", "--evaluate", "--data-dir", str(mini_data_dir)]) == 0
    out = capsys.readouterr().out
    mean = float(out.split("transfer mean Pearson x100 ")[1].split()[0])
    card = (tmp_path / "out" / "README.md").read_text()
    pearsons = [float(v) for v in re.findall(r"type: pearson, value: ([-0-9.]+)", card)]
    assert pearsons and all(-1 <= v <= 1 for v in pearsons)  # Pearson's r in the card, like a model's
    # the printed mean is x100 of the card's per-set figures (a random model: any sign)
    assert mean == pytest.approx(100 * sum(pearsons) / len(pearsons), abs=0.01)
    assert "model-index" in card and "STS12" not in card  # scored at export, not the source's


def test_export_command_formats_and_precision(model, tmp_path, capsys):
    from parasent.cli import main

    model.save(tmp_path / "m")
    argv = ["export", str(tmp_path / "out"), "--model", str(tmp_path / "m"), "--format", "model2vec"]
    assert main(argv + ["--dtype", "int8", "--truncate-dim", "5"]) == 0
    assert "x 5, int8" in capsys.readouterr().out
    assert json.loads((tmp_path / "out" / "config.json").read_text())["embedding_dtype"] == "int8"
    assert load(tmp_path / "out").dim == 5
    assert main(["export", str(tmp_path / "st"), "--model", str(tmp_path / "m"), "--dtype", "int8"]) == 0
    out = capsys.readouterr().out
    assert "parasent's module" in out and "int8" in out
    assert f'SentenceTransformer("{tmp_path / "st"}", trust_remote_code=True)' in out  # how to load it


def test_a_featurizer_that_tokenizes_beyond_its_tokenizer_json_gets_the_module(model, tmp_path, monkeypatch):
    """Whatever a featurizer's kind says, the exporter checks that a static-embedding reader would
    see the tokens parasent averages; one that adds its own (here: every word twice) gets the module."""
    from parasent.core.model_formats.export import needs_module
    from parasent.text.tokenized import Tokenized

    assert not needs_module(model, None)
    real = type(model.tokenizer).encode_batch

    def doubled(self, texts):
        once = real(self, texts)
        return Tokenized(np.repeat(once.ids, 2), once.offsets * 2)

    monkeypatch.setattr(type(model.tokenizer), "encode_batch", doubled)
    assert needs_module(model, None)
    path = model.export(tmp_path / "st")
    assert (path / "0_ParasentEmbedding").is_dir()


def test_model2vec_refuses_trigrams_and_words_only_drops_them(model, tmp_path):
    from parasent.core.compaction import words_only
    from parasent.errors import ModelFormatError
    from parasent.text.word_bigrams import WordBigramTokenizer

    tokenizer = WordBigramTokenizer.from_words(model.tokenizer, [("a", "man")], [("a", "man", "plays")])
    table = np.vstack([np.asarray(model.weights["embedding.weight"]), np.ones((2, 10), np.float32)])
    trigrams = SentenceModel(tokenizer, dict(model.encoder_config, vocab_size=tokenizer.vocab_size), {"embedding.weight": table})  # fmt: skip
    with pytest.raises(ModelFormatError, match="averages word bigrams and trigrams"):
        trigrams.export(tmp_path / "m2v", format="model2vec")
    path = words_only(trigrams).export(tmp_path / "m2v", format="model2vec")
    assert "1 word bigrams and 1 word trigrams, dropped here" in (path / "README.md").read_text()
    np.testing.assert_allclose(load(path).encode(SENTENCES[:3]), model.encode(SENTENCES[:3]), atol=1e-6)


def test_a_contextual_model_exports_to_sentence_transformers_as_parasents_module(tmp_path):
    """The contextual tier composes its rows with weights of its own: no static table holds it,
    the parasent module does (model2vec is refused, naming the format that works)."""
    st = pytest.importorskip("sentence_transformers")
    from parasent.errors import ModelFormatError
    from parasent.training.features_stage import compose_rows

    contextual = compose_rows(load("default"), "contextual", {"hidden": 4}, seed=0)
    rng = np.random.default_rng(0)
    for name, value in contextual.weights.items():  # a composition that moves the vectors
        if name != "embedding.weight":
            contextual.weights[name] = (0.3 * rng.standard_normal(np.shape(value))).astype(np.float32)
    source = load(contextual.save(tmp_path / "ctx"))
    texts = ["a man plays the guitar", "the guitar plays a man", "Ein Mann spielt Gitarre"]
    ours = source.encode(texts)
    assert not np.allclose(ours[0], ours[1], atol=1e-4)  # word order counts
    path = source.export(tmp_path / "st")
    theirs = st.SentenceTransformer(str(path), device="cpu", trust_remote_code=True).encode(texts)
    np.testing.assert_allclose(theirs, ours, atol=1e-6)
    np.testing.assert_allclose(load(path).encode(texts), ours, atol=1e-6)
    card = (path / "README.md").read_text()
    assert "static-embeddings" not in card and "each moved and weighted by its neighbours" in card
    with pytest.raises(ModelFormatError, match="--format sentence-transformers exports it"):
        source.export(tmp_path / "m2v", format="model2vec")
    assert not (tmp_path / "m2v").exists()
