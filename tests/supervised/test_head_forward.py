"""A saved head read and run with numpy: the torch head's probabilities to 1e-6, and every
broken or hostile head file refused in one line before anything is allocated from it."""

from __future__ import annotations

import json

import numpy as np
import pytest
from safetensors.numpy import load_file, save_file

from parasent.errors import ModelFormatError
from parasent.supervised.head_forward import read_head
from parasent.supervised.heads import build_head, run_head, save_head


def vectors(rows=9, dim=4, seed=0):
    return np.random.default_rng(seed).normal(size=(rows, dim)).astype(np.float32)


@pytest.mark.parametrize(("kind", "standardized"), [("pair", False), ("sentence", False), ("sentence", True)])
def test_numpy_head_equals_the_torch_head(tmp_path, kind, standardized):
    head = build_head(kind, 4, 6, 3, seed=2, standardized=standardized)
    if standardized:
        head.standardize(vectors(50) * 0.1 + 0.3)
    save_head(tmp_path, head, {"task": "x", "classes_from": "file", "labels": ["a", "b", "c"]})
    numpy_head, config = read_head(tmp_path, input_dim=4)
    sides = [vectors(seed=1)] + ([vectors(seed=2)] if kind == "pair" else [])
    torch_probs = np.exp(run_head(head, sides))
    numpy_probs = np.exp(numpy_head(*sides))
    np.testing.assert_allclose(numpy_probs, torch_probs, atol=1e-6)
    assert config["labels"] == ["a", "b", "c"] and np.allclose(numpy_probs.sum(axis=1), 1.0)


@pytest.fixture()
def saved(tmp_path):
    save_head(
        tmp_path,
        build_head("sentence", 4, 3, 2, seed=1),
        {"task": "x", "classes_from": "file", "labels": ["no", "yes"]},
    )
    return tmp_path


def rewrite_config(path, **changes):
    config = json.loads((path / "head.json").read_text())
    for key, value in changes.items():
        if key in ("hidden_dim", "input_dim", "classes"):
            config["head"][key] = value
        else:
            config[key] = value
    (path / "head.json").write_text(json.dumps(config))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"hidden_dim": 1_000_000_000_000}, "hidden_dim must be a whole number in 1..1000000"),
        ({"input_dim": "4"}, "input_dim must be a whole number"),
        ({"labels": [{"x": 1}, None]}, "is not a class name"),
        ({"labels": ["a", "b", "c"]}, "3 labels for a head of 2 classes"),
        ({"labels": ["a", "a"]}, "a label is named twice"),
        ({"labels": ["a", "b\x00"]}, "is not a class name"),
        ({"format": 99}, "format 99"),
    ],
)
def test_a_broken_config_is_one_line(saved, changes, message):
    rewrite_config(saved, **changes)
    with pytest.raises(ModelFormatError, match=message):
        read_head(saved)


def test_non_finite_weights_and_another_models_width_are_refused(saved):
    with pytest.raises(ModelFormatError, match="takes 4-dimensional vectors, the model beside it gives 50"):
        read_head(saved, input_dim=50)
    weights = load_file(str(saved / "head.safetensors"))
    weights["output.weight"][0, 0] = np.nan
    save_file(weights, str(saved / "head.safetensors"))
    with pytest.raises(ModelFormatError, match="output.weight holds NaN"):
        read_head(saved)
    (saved / "head.safetensors").write_bytes(b"not a safetensors file")
    with pytest.raises(ModelFormatError, match="not a safetensors file"):
        read_head(saved)


@pytest.mark.parametrize("text", ["1.5", "7", '"head"', "[]", "null"])
def test_a_head_config_that_is_no_object_is_one_line(saved, text):
    """Found by the fuzz run at 10,000 inputs: a head.json of `1.5` raised AttributeError."""
    (saved / "head.json").write_text(text)
    with pytest.raises(ModelFormatError, match="head.json: not a parasent head config"):
        read_head(saved, input_dim=4)
