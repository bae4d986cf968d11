"""The core encodes a non-averaging model through the torch side the package root installs,
never by importing parasent.encoders itself."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from parasent.core import torch_side  # noqa: E402
from parasent.core.model import SentenceModel  # noqa: E402


def _char_model() -> SentenceModel:
    from parasent.encoders.charagram import Charagram
    from parasent.text.characters import CharNgramTokenizer

    tokenizer = CharNgramTokenizer.from_texts(["a man is running", "a guy is jogging"])
    torch.manual_seed(0)
    return SentenceModel.from_encoder(tokenizer, Charagram(tokenizer.vocab_size, 8))


def test_the_package_root_installs_the_encoders_side():
    from parasent.encoders import build_encoder

    built = torch_side.torch_side().build({"name": "charagram", "vocab_size": 5, "embedding_dim": 3})
    assert type(built) is type(build_encoder({"name": "charagram", "vocab_size": 5, "embedding_dim": 3}))


def test_a_torch_model_is_built_and_encoded_through_the_installed_side(monkeypatch):
    real = torch_side.torch_side()
    calls = []

    def build(config):
        calls.append(("build", config["name"]))
        return real.build(config)

    def encode(module, tokenized, device):
        calls.append(("encode", len(tokenized)))
        return real.encode(module, tokenized, device)

    monkeypatch.setattr(torch_side, "_installed", [torch_side.TorchSide(build, encode)])
    model = _char_model()
    model._torch_encoder = None  # built again, from the weights, through the side
    vectors = model.encode(["a man is running", "zebra"])
    assert vectors.shape == (2, 8) and np.isfinite(vectors).all()
    assert calls == [("build", "charagram"), ("encode", 2)]


def test_without_a_side_the_core_says_so(monkeypatch):
    monkeypatch.setattr(torch_side, "_installed", [])
    with pytest.raises(RuntimeError, match="torch side is not installed"):
        torch_side.torch_side()
