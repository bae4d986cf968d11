"""model.save(dtype=...) and the models shipped inside the package, on the core install."""

import json
from pathlib import Path

import numpy as np
import pytest

from parasent import load
from parasent.core.inference import cosine_rows
from parasent.core.model import SHIPPED_DIR, SentenceModel, resolve_model_path
from parasent.core.stored_weights import QuantizedTable
from parasent.errors import ModelFormatError
from parasent.text import WordTokenizer

pytestmark = pytest.mark.core

SENTENCES = ["A man is running.", "a guy is jogging", "", "unknown words only", "cat", "the cat is a man"]


@pytest.fixture()
def model():
    words = ["a", "man", "is", "running", "guy", "jogging", "cat", "the", "."]
    tokenizer = WordTokenizer.from_vocabulary(words)
    table = np.random.default_rng(0).normal(size=(tokenizer.vocab_size, 32)).astype(np.float32)
    table[0] = 0.0
    config = {"name": "word_averaging", "vocab_size": tokenizer.vocab_size, "embedding_dim": 32}
    return SentenceModel(tokenizer, config, {"embedding.weight": table}, metadata={"note": "x"})


@pytest.mark.parametrize(("dtype", "cosine"), [("float32", 1 - 1e-7), ("float16", 0.9999), ("int8", 0.999)])
def test_saved_dtypes_load_and_encode_alike(model, tmp_path, dtype, cosine):
    before = model.encode(SENTENCES)
    model.save(tmp_path / dtype, dtype=dtype)
    again = load(tmp_path / dtype)
    after = again.encode(SENTENCES)
    assert after.dtype == np.float32 and after.shape == before.shape
    nonzero = np.linalg.norm(before, axis=1) > 0
    assert np.all(cosine_rows(before, after)[nonzero] >= cosine)
    assert np.array_equal(np.linalg.norm(after, axis=1) > 0, nonzero)  # empty stays exactly zero
    config = json.loads((tmp_path / dtype / "config.json").read_text())
    assert config.get("weights_dtype", "float32") == dtype
    assert config["format"] == (2 if dtype == "int8" else 1)
    assert again.metadata == {"note": "x"}


def test_storage_sizes_shrink(model, tmp_path):
    sizes = {}
    for dtype in ("float32", "float16", "int8"):
        model.save(tmp_path / dtype, dtype=dtype)
        sizes[dtype] = (tmp_path / dtype / "model.safetensors").stat().st_size
    assert sizes["int8"] < sizes["float16"] < sizes["float32"]


def test_int8_table_stays_int8_and_resaves(model, tmp_path):
    model.save(tmp_path / "q", dtype="int8")
    again = load(tmp_path / "q")
    assert isinstance(again.weights["embedding.weight"], QuantizedTable)
    again.save(tmp_path / "q32", dtype="float32")  # a quantized model written back as float32
    np.testing.assert_allclose(load(tmp_path / "q32").encode(SENTENCES), again.encode(SENTENCES), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int8"])
def test_a_model_saves_in_the_precision_it_holds_and_encodes_the_same_bits(model, tmp_path, dtype):
    model.save(tmp_path / "held", dtype=dtype)
    held = load(tmp_path / "held")
    held.save(tmp_path / "again")
    again = load(tmp_path / "again")
    assert (
        json.loads((tmp_path / "again" / "config.json").read_text()).get("weights_dtype", "float32") == dtype
    )
    assert again.encode(SENTENCES).tobytes() == held.encode(SENTENCES).tobytes()
    size = (tmp_path / "held" / "model.safetensors").stat().st_size
    assert (tmp_path / "again" / "model.safetensors").stat().st_size <= 1.1 * size


def test_the_shipped_default_saves_as_it_is_without_parsing_its_vocabulary(tmp_path):
    shipped = load()
    shipped.save(tmp_path / "copy")
    assert shipped.tokenizer._pipeline is None  # tokenizer.json copied, never parsed
    tokenizer = (tmp_path / "copy" / "tokenizer.json").read_bytes()
    assert tokenizer == (SHIPPED_DIR / "default" / "tokenizer.json").read_bytes()
    size = sum(p.stat().st_size for p in (SHIPPED_DIR / "default").iterdir())
    assert sum(p.stat().st_size for p in (tmp_path / "copy").iterdir()) <= 1.1 * size
    copy = load(tmp_path / "copy")
    assert isinstance(copy.weights["embedding.weight"], QuantizedTable)
    texts = SENTENCES + ["naïve café", "guitr plaing"]
    assert copy.encode(texts).tobytes() == shipped.encode(texts).tobytes()
    assert copy.encode(texts[0]).tobytes() == shipped.encode(texts[0]).tobytes()


def test_a_vocabulary_changed_since_loading_is_not_saved_as_the_model(tmp_path):
    load().save(tmp_path / "m")
    model = load(tmp_path / "m")
    (tmp_path / "m" / "tokenizer.json").write_text('{"changed": true}')
    with pytest.raises(ModelFormatError, match="tokenizer.json: changed since the model was loaded"):
        model.save(tmp_path / "copy")
    assert not (tmp_path / "copy").exists()


def test_unknown_weights_dtype_is_a_format_error(model, tmp_path):
    model.save(tmp_path / "m")
    path = tmp_path / "m" / "config.json"
    config = json.loads(path.read_text())
    config["weights_dtype"] = "int3"
    path.write_text(json.dumps(config))
    with pytest.raises(ModelFormatError, match="int3"):
        load(tmp_path / "m")


def test_shipped_default_loads_without_argument():
    if not (SHIPPED_DIR / "default" / "config.json").is_file():
        pytest.skip("the default model is not in this checkout")
    assert resolve_model_path(None) == SHIPPED_DIR / "default"
    model = load()
    assert load("default").dim == model.dim
    close = model.similarity("A man plays a guitar.", "Someone plays the guitar.")
    far = model.similarity("A man plays a guitar.", "The stock market fell sharply today.")
    assert -1 <= far < close <= 1 and close - far > 0.3


def test_commands_use_the_shipped_default_without_model(tmp_path, monkeypatch, capsys):
    if not (SHIPPED_DIR / "default" / "config.json").is_file():
        pytest.skip("the default model is not in this checkout")
    from parasent.cli import main

    monkeypatch.delenv("PARASENT_MODEL", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(["similarity", "A man plays a guitar.", "Someone plays the guitar."]) == 0
    assert 0 < float(capsys.readouterr().out) <= 1
    (tmp_path / "in.txt").write_text("a man\nthe guitar\n")
    assert main(["encode", "in.txt", "-o", "out.npy"]) == 0
    assert np.load(tmp_path / "out.npy").shape == (2, load().dim)


def test_a_directory_named_like_a_shipped_model_wins(model, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    model.save(tmp_path / "default")
    assert resolve_model_path("default") == Path("default")
    assert load("default").tokenizer.vocab_size == model.tokenizer.vocab_size


def test_the_shipped_default_fits_the_package_budget():
    """The one binary the repository carries: the default model, at most 32 MB on disk with its
    stored vocabulary (scripts/build_default.sh's BUDGET)."""
    from parasent.core.model import SHIPPED_DIR

    folder = SHIPPED_DIR / "default"
    if not (folder / "config.json").is_file():
        pytest.skip("the default model is not installed")
    assert sum(p.stat().st_size for p in folder.iterdir() if p.is_file()) <= 32_000_000
