"""Embedding tables of booleans, integers or float64 are no model's: each is refused in one line
(parasent, sentence-transformers and model2vec directories)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from safetensors.numpy import load_file, save_file

from parasent.cli import main
from parasent.core.model import SentenceModel, load
from parasent.errors import ModelFormatError
from parasent.text.word_vectors import WordVectors

DTYPES = {"BOOL": np.bool_, "I64": np.int64, "F64": np.float64}


@pytest.fixture()
def model():
    rng = np.random.default_rng(0)
    words = ["the", "cat", "sat"]
    return SentenceModel.from_vectors(WordVectors(words, rng.normal(size=(3, 4)).astype(np.float32)))


def _retype(path, key, dtype):
    tensors = load_file(str(path))
    tensors[key] = tensors[key].astype(dtype)
    save_file(tensors, str(path))


@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_a_parasent_table_of_another_type_is_refused(model, tmp_path, dtype, capsys):
    model.save(tmp_path / "m")
    _retype(tmp_path / "m" / "model.safetensors", "embedding.weight", DTYPES[dtype])
    with pytest.raises(ModelFormatError, match=f"embedding.weight is {np.dtype(DTYPES[dtype])}"):
        load(tmp_path / "m")
    assert main(["similarity", "the cat", "sat", "--model", str(tmp_path / "m")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize(
    ("format", "key"), [("sentence-transformers", "embedding.weight"), ("model2vec", "embeddings")]
)
def test_an_exported_table_of_another_type_is_refused(model, tmp_path, dtype, format, key):
    model.export(tmp_path / "e", format)
    _retype(tmp_path / "e" / "model.safetensors", key, DTYPES[dtype])
    with pytest.raises(ModelFormatError, match=f"tensor '{key}' is {np.dtype(DTYPES[dtype])}"):
        load(tmp_path / "e")


def test_the_tables_parasent_writes_still_load(model, tmp_path):
    for dtype in ("float32", "float16", "int8"):
        model.save(tmp_path / dtype, dtype=dtype)
        assert load(tmp_path / dtype).encode("the cat").shape == (4,)
    model.export(tmp_path / "m2v8", "model2vec", dtype="int8")
    assert json.loads((tmp_path / "m2v8" / "config.json").read_text())["embedding_dtype"] == "int8"
    assert load(tmp_path / "m2v8").encode("the cat").shape == (4,)
