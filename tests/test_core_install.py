"""The core install: load, encode, similarity and evaluate with neither torch nor scipy, and
``parasent --help`` without importing any command module. Each case runs in a fresh
interpreter where ``import torch`` / ``import scipy`` fail, as on ``pip install parasent``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from parasent.core.model import SentenceModel
from parasent.text import WordTokenizer

pytestmark = pytest.mark.core

BLOCK = "import sys\nfor name in ('torch', 'scipy', 'sklearn', 'sentence_transformers'):\n    sys.modules[name] = None\n"


def run_python(code: str, cwd: Path) -> subprocess.CompletedProcess:
    """In ``cwd`` (not the checkout): on the core CI job the installed package answers."""
    return subprocess.run(
        [sys.executable, "-c", BLOCK + code], capture_output=True, text=True, timeout=300, cwd=cwd
    )


@pytest.fixture()
def model_dir(tmp_path, mini_data_dir):
    from parasent.text.word_vectors import read_word_vectors

    vectors = read_word_vectors(mini_data_dir / "wordvecs/mini16.txt.gz")
    tokenizer = WordTokenizer.from_vocabulary(vectors.words)
    table = np.zeros((tokenizer.vocab_size, vectors.dim), dtype=np.float32)
    table[2:] = vectors.matrix
    config = {"name": "word_averaging", "vocab_size": tokenizer.vocab_size, "embedding_dim": vectors.dim}
    return SentenceModel(tokenizer, config, {"embedding.weight": table}).save(tmp_path / "m", dtype="int8")


def test_encode_similarity_evaluate_without_torch_or_scipy(model_dir, mini_data_dir, tmp_path):
    out = tmp_path / "report.json"
    code = f"""
import parasent
from parasent.cli import main
model = parasent.load({str(model_dir)!r})
print(model.encode(["a big car", "the large automobile"] * 200).shape)
assert main(["similarity", "a big car", "a large car", "--model", {str(model_dir)!r}]) == 0
assert main(["evaluate", "--model", {str(model_dir)!r}, "--data-dir", {str(mini_data_dir)!r},
             "--json", {str(out)!r}]) == 0
print(sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "scipy") and sys.modules[m] is not None))
"""
    result = run_python(code, tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "(400, 16)" and lines[-1] == "[]"
    assert len(json.loads(out.read_text())["datasets"]) == 21


def test_device_cpu_needs_no_torch_and_another_device_names_the_extra(model_dir, tmp_path):
    code = f"""
import parasent
from parasent.errors import MissingDependencyError
model = parasent.load({str(model_dir)!r})
assert model.encode(["a big car"], device="cpu").tobytes() == model.encode(["a big car"]).tobytes()
assert model.encode("a big car", device="cpu").tobytes() == model.encode("a big car").tobytes()
assert model.to("cpu") is model and model.device == "cpu"
for call in (lambda: model.encode(["a big car"], device="cuda"), lambda: model.to("cuda")):
    try:
        call()
    except MissingDependencyError as exc:
        print(exc)
print(model.device)
"""
    result = run_python(code, tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 3 and lines[-1] == "cpu"
    assert all("device='cuda'" in line and "install parasent[train]" in line for line in lines[:2])


def test_a_command_needing_an_extra_says_which(tmp_path):
    result = run_python(
        f"from parasent.cli import main\nsys.exit(main(['train', '--out', {str(tmp_path / 'r')!r}]))",
        tmp_path,
    )
    assert result.returncode == 2
    assert (
        result.stderr.strip().endswith("install parasent[train]")
        and len(result.stderr.strip().splitlines()) == 1
    )


def test_help_and_version_import_no_command_module(tmp_path):
    code = """
from parasent.cli import main
for args in (["--version"], ["--help"]):
    try:
        main(args)
    except SystemExit:
        pass
print(sorted(m for m in sys.modules if m.startswith("parasent.commands.")))
"""
    result = run_python(code, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"
    assert "compact" in result.stdout and "similarity" in result.stdout  # the overview lists commands


def test_overview_summaries_match_each_command():
    import argparse
    import importlib

    from parasent.cli import COMMANDS, SUMMARIES

    pytest.importorskip("torch")  # building train's parser reads its defaults
    for name in COMMANDS:
        parser = argparse.ArgumentParser()
        commands = parser.add_subparsers()
        importlib.import_module(f"parasent.commands.{name.replace('-', '_')}").register(commands)
        assert commands._choices_actions[0].help == SUMMARIES[name], name


def test_a_classifier_predicts_without_torch(model_dir, tmp_path):
    """``parasent.load(classifier)`` imported torch (1.4-1.8 s, ~300 MB) and failed in the core
    install: the head now predicts with numpy, as the model encodes (the head files written
    here with numpy; tests/supervised/test_head_forward.py holds numpy to the torch head)."""
    from safetensors.numpy import save_file

    from parasent.supervised.head_forward import head_shapes

    shape = {"kind": "sentence", "input_dim": 16, "hidden_dim": 5, "classes": 2}
    rng = np.random.default_rng(3)
    weights = {k: rng.normal(0, 0.5, dims).astype(np.float32) for k, dims in head_shapes(shape).items()}
    save_file(weights, str(model_dir / "head.safetensors"))
    info = {"format": 1, "head": shape, "task": "moods", "classes_from": "file", "labels": ["calm", "loud"]}
    (model_dir / "head.json").write_text(json.dumps(info))
    texts = ["a big car", "the large automobile", "a red house"]
    x = SentenceModel.load(model_dir).encode(texts).astype(np.float64)
    hidden = 1 / (1 + np.exp(-(x @ weights["hidden.weight"].T + weights["hidden.bias"])))
    logits = hidden @ weights["output.weight"].T + weights["output.bias"]
    expected = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    code = f"""
import json, parasent
model = parasent.load({str(model_dir)!r})
print(json.dumps(model.predict_proba({texts!r}).tolist()))
print(list(model.predict({texts!r})))
print(sorted(m for m in sys.modules if m.split(".")[0] == "torch" and sys.modules[m] is not None))
"""
    result = run_python(code, tmp_path)
    assert result.returncode == 0, result.stderr
    probabilities, labels, torch_modules = result.stdout.splitlines()
    np.testing.assert_allclose(np.array(json.loads(probabilities)), expected, atol=1e-6)
    assert set(eval(labels)) <= {"calm", "loud"} and torch_modules == "[]"


def test_a_contextual_model_encodes_without_torch(model_dir, tmp_path):
    """The contextual tier runs its numpy forward in the core install (the weights drawn here with
    numpy; where torch is installed, the torch module gives the same vectors)."""
    from parasent.core.composition import parameter_shapes

    base = SentenceModel.load(model_dir)
    config = {"name": "contextual", "vocab_size": base.encoder_config["vocab_size"], "embedding_dim": 16}
    config.update(hidden=8, width=3)
    rng = np.random.default_rng(2)
    weights = {k: rng.normal(0, 0.2, dims).astype(np.float32) for k, dims in parameter_shapes(config).items()}
    weights["embedding.weight"] = base.weights["embedding.weight"]  # the averaging model's int8 rows
    path = SentenceModel(base.tokenizer, config, weights).save(tmp_path / "contextual")
    texts = ["a big car", "the large automobile parked", ""]
    loaded = SentenceModel.load(path)
    expected = loaded.encode(texts)
    try:
        from parasent.encoders.base import encode_batches
    except ImportError:  # the core job: the torch comparison is the main job's
        pass
    else:
        torch_vectors = encode_batches(loaded.torch_encoder(), loaded.tokenizer.encode_batch(texts))
        np.testing.assert_allclose(expected, torch_vectors, atol=1e-5)
    code = f"""
import json, parasent
model = parasent.load({str(path)!r})
print(json.dumps(model.encode({texts!r}).tolist()))
print(sorted(m for m in sys.modules if m.split(".")[0] == "torch" and sys.modules[m] is not None))
"""
    result = run_python(code, tmp_path)
    assert result.returncode == 0, result.stderr
    vectors, torch_modules = result.stdout.splitlines()
    np.testing.assert_allclose(np.array(json.loads(vectors)), expected, atol=1e-6)
    assert torch_modules == "[]"
