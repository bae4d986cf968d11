"""The contextual tier's encoder: its torch forward (training) equals the numpy forward of the
core (inference) to 1e-5, it starts as the averaging model it extends, its window stops at the
sentence's ends, and it round-trips through save and load in every precision."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from parasent.core.composition import ContextualForward, parameter_shapes
from parasent.core.model import SentenceModel
from parasent.encoders.base import encode_batches
from parasent.encoders.batch import TokenBatch
from parasent.encoders.contextual import ContextualAveraging
from parasent.errors import ModelFormatError
from parasent.text import Tokenized, WordTokenizer
from parasent.training.features_stage import compose_rows

WORDS = [f"w{i}" for i in range(40)]
SENTENCES = [[2, 3, 4, 5, 6, 7], [8], [], [9, 10], [11, 12, 13], [3, 3, 3, 3], [14, 2]]


def trained_like(
    seed: int = 0,
    hidden: int = 7,
    width: int = 3,
    dim: int = 6,
    attention: int = 0,
    reach: int = 2,
    layers: int = 1,
) -> ContextualAveraging:
    """An encoder with every weight drawn (the zero-initialised ones too)."""
    torch.manual_seed(seed)
    encoder = ContextualAveraging(
        len(WORDS) + 2, dim, hidden=hidden, width=width, attention=attention, reach=reach, layers=layers
    ).eval()
    with torch.no_grad():
        for parameter in encoder.parameters():
            parameter.normal_(0.0, 0.5)
        encoder.embedding.weight[0].zero_()
    return encoder


def numpy_weights(encoder: ContextualAveraging) -> dict[str, np.ndarray]:
    return {name: t.detach().numpy().copy() for name, t in encoder.state_dict().items()}


@pytest.mark.parametrize(
    ("width", "attention", "reach", "layers"),
    [(1, 0, 2, 1), (3, 0, 2, 1), (5, 0, 2, 1), (3, 4, 2, 1), (1, 2, 2, 1), (3, 2, 0, 1), (3, 2, 9, 1)]
    + [(3, 0, 2, 2), (5, 0, 2, 3), (3, 4, 2, 2)],
)
def test_numpy_forward_equals_the_torch_forward(width, attention, reach, layers):
    encoder = trained_like(width=width, attention=attention, reach=reach, layers=layers)
    tokenized = Tokenized.from_lists(SENTENCES)
    expected = encoder(TokenBatch.from_tokenized(tokenized)).detach().numpy()
    got = ContextualForward(numpy_weights(encoder), encoder.config())(tokenized)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    assert np.all(got[2] == 0.0)  # an empty sentence is the zero vector


@pytest.mark.parametrize(("attention", "layers"), [(0, 1), (3, 1), (0, 2)])
def test_numpy_forward_in_blocks_equals_one_block(monkeypatch, attention, layers):
    encoder = trained_like(attention=attention, layers=layers)
    tokenized = Tokenized.from_lists(SENTENCES * 30)
    whole = ContextualForward(numpy_weights(encoder), encoder.config())(tokenized)
    monkeypatch.setattr("parasent.core.composition.BLOCK_TOKENS", 5)
    blocks = ContextualForward(numpy_weights(encoder), encoder.config())(tokenized)
    np.testing.assert_allclose(blocks, whole, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(("attention", "layers"), [(0, 1), (3, 1), (0, 3)])
def test_a_window_stops_at_the_sentence_end(attention, layers):
    """A sentence's vector is the same alone and between others (no window crosses a boundary)."""
    encoder = trained_like(attention=attention, layers=layers)
    alone = encoder(TokenBatch.from_tokenized(Tokenized.from_lists([[9, 10]]))).detach()
    among = encoder(TokenBatch.from_tokenized(Tokenized.from_lists([[2, 3], [9, 10], [4]]))).detach()
    torch.testing.assert_close(among[1], alone[0])


def test_word_order_changes_the_vector_an_average_cannot_see():
    encoder = trained_like()
    out = encoder(TokenBatch.from_tokenized(Tokenized.from_lists([[2, 3, 4], [4, 3, 2]]))).detach()
    assert not torch.allclose(out[0], out[1], atol=1e-4)
    zero = ContextualAveraging(len(WORDS) + 2, 6).eval()  # as built: the average, order-blind
    zero.set_embeddings(encoder.embedding.weight.detach())
    out = zero(TokenBatch.from_tokenized(Tokenized.from_lists([[2, 3, 4], [4, 3, 2]]))).detach()
    torch.testing.assert_close(out[0], encoder.embedding.weight.detach()[[2, 3, 4]].mean(0))
    torch.testing.assert_close(out[0], out[1])


def averaging_model(dim: int = 6) -> SentenceModel:
    tokenizer = WordTokenizer.from_vocabulary(WORDS)
    table = np.random.default_rng(0).standard_normal((tokenizer.vocab_size, dim)).astype(np.float32)
    table[0] = 0.0
    config = {"name": "word_averaging", "vocab_size": tokenizer.vocab_size, "embedding_dim": dim}
    return SentenceModel(tokenizer, config, {"embedding.weight": table})


TEXTS = ["w2 w3 w4", "w4 w3 w2", "w9", "", "w5 w6 w7 w8 w9 w10 w11"]


def test_composed_model_starts_as_its_averaging_model():
    base = averaging_model()
    composed = compose_rows(base, "contextual", {"hidden": 5}, seed=3)
    assert composed.encoder_config["name"] == "contextual" and composed.encoder_config["hidden"] == 5
    np.testing.assert_allclose(composed.encode(TEXTS), base.encode(TEXTS), atol=1e-6)
    again = compose_rows(base, "contextual", {"hidden": 5}, seed=3)  # seeded: the same draw
    np.testing.assert_array_equal(again.weights["context.weight"], composed.weights["context.weight"])


@pytest.mark.parametrize(("dtype", "attention"), [("float32", 0), ("float16", 0), ("int8", 0), ("int8", 3)])
def test_save_load_round_trip_and_the_core_matches_torch(tmp_path, dtype, attention):
    base = averaging_model()
    composed = compose_rows(base, "contextual", {"hidden": 5, "attention": attention}, seed=0)
    rng = np.random.default_rng(1)
    for name in ("shift.weight", "shift.bias", "gate.weight", "gate.bias"):
        composed.weights[name] = rng.normal(0, 0.3, composed.weights[name].shape).astype(np.float32)
    loaded = SentenceModel.load(composed.save(tmp_path / "m", dtype=dtype))
    assert loaded.encoder_config == composed.encoder_config
    vectors = loaded.encode(TEXTS)
    if dtype == "float32":
        np.testing.assert_array_equal(vectors, composed.encode(TEXTS))
    else:
        np.testing.assert_allclose(vectors, composed.encode(TEXTS), atol=0.05)
    torch_vectors = encode_batches(loaded.torch_encoder(), loaded.tokenizer.encode_batch(TEXTS))
    np.testing.assert_allclose(vectors, torch_vectors, rtol=1e-5, atol=1e-5)
    assert loaded.dim == 6 and loaded.encode("w2 w3").shape == (6,)
    for k, text in enumerate(TEXTS):  # one text (the one-text path) is its row of the batch
        np.testing.assert_allclose(loaded.encode(text), vectors[k], atol=1e-6)


def test_weights_unlike_the_declared_shapes_are_refused(tmp_path):
    composed = compose_rows(averaging_model(), "contextual", {"hidden": 5}, seed=0)
    path = composed.save(tmp_path / "m")
    text = (path / "config.json").read_text()
    (path / "config.json").write_text(text.replace('"hidden": 5', '"hidden": 6'))
    with pytest.raises(ModelFormatError, match="context.weight has shape"):
        SentenceModel.load(path)
    (path / "config.json").write_text(text.replace('"hidden": 5', '"hidden": 1000000000000'))
    with pytest.raises(ModelFormatError, match="hidden 1000000000000 is outside"):
        SentenceModel.load(path)


@pytest.mark.parametrize(("attention", "layers"), [(0, 1), (2, 1), (2, 3)])
def test_declared_shapes_name_every_parameter(attention, layers):
    encoder = ContextualAveraging(12, 4, hidden=3, width=5, attention=attention, layers=layers)
    assert parameter_shapes(encoder.config()) == {k: tuple(v.shape) for k, v in encoder.state_dict().items()}


def test_which_model_quotes_the_compositions_sizes():
    """docs/which-model.md's parameter counts are the encoder's, at the default's 256 dimensions."""
    from pathlib import Path

    def composition(encoder: ContextualAveraging) -> int:
        return sum(p.numel() for name, p in encoder.named_parameters() if not name.startswith("embedding"))

    plain = composition(ContextualAveraging(4, 256))
    attending = composition(ContextualAveraging(4, 256, attention=32))
    page = (Path(__file__).resolve().parents[2] / "docs" / "which-model.md").read_text(encoding="utf-8")
    page = page.replace("\n", " ")
    assert f"({plain:,} parameters at 128 hidden maps)" in page
    assert f"; {attending - plain:,} more parameters)" in page


def test_a_reach_beyond_the_cap_is_refused_by_both_forwards(tmp_path):
    """Attention's memory per token grows with its window: a model file declaring a huge reach
    is refused at load, and the torch module refuses to build it."""
    composed = compose_rows(averaging_model(), "contextual", {"hidden": 5, "attention": 3}, seed=0)
    path = composed.save(tmp_path / "m")
    text = (path / "config.json").read_text()
    (path / "config.json").write_text(text.replace('"reach": 8', '"reach": 100000'))
    with pytest.raises(ModelFormatError, match="reach 100000 is outside 0..64"):
        SentenceModel.load(path)
    with pytest.raises(ValueError, match="reach must be in 0..64, got 65"):
        ContextualAveraging(4, 6, attention=2, reach=65)


def test_a_stack_beyond_the_cap_is_refused_by_both_forwards(tmp_path):
    composed = compose_rows(averaging_model(), "contextual", {"hidden": 5, "layers": 2}, seed=0)
    path = composed.save(tmp_path / "m")
    text = (path / "config.json").read_text()
    assert '"layers": 2' in text
    (path / "config.json").write_text(text.replace('"layers": 2', '"layers": 20'))
    with pytest.raises(ModelFormatError, match="layers 20 is outside 1..8"):
        SentenceModel.load(path)
    with pytest.raises(ValueError, match="^layers must be in 1..8, got 9$"):
        ContextualAveraging(4, 6, layers=9)


def test_a_deeper_stack_starts_as_the_average_and_saves_and_loads(tmp_path):
    start = averaging_model()
    composed = compose_rows(start, "contextual", {"hidden": 5, "layers": 3}, seed=0)
    loaded = SentenceModel.load(composed.save(tmp_path / "m"))
    np.testing.assert_allclose(loaded.encode(TEXTS), start.encode(TEXTS), atol=1e-6)


def test_no_line_between_compositions_of_different_weights():
    from parasent.core.composition import interpolated

    plain = compose_rows(averaging_model(), "contextual", {"hidden": 5}, seed=0).weights
    attending = compose_rows(averaging_model(), "contextual", {"hidden": 5, "attention": 3}, seed=0).weights
    with pytest.raises(ValueError, match="different composition weights"):
        interpolated(plain, attending, 0.5)
    assert "attend.weight" in interpolated(None, attending, 0.5)  # from an averaging start: kept


@pytest.mark.parametrize("value", ['"2"', "2.7", "true"])
def test_a_size_that_is_no_integer_is_refused_at_load(tmp_path, value):
    """ "layers": "2" loaded and encoded in numpy, then failed in torch; 2.7 loaded as 2."""
    composed = compose_rows(averaging_model(), "contextual", {"hidden": 5, "layers": 2}, seed=0)
    path = composed.save(tmp_path / "m")
    text = (path / "config.json").read_text()
    (path / "config.json").write_text(text.replace('"layers": 2', f'"layers": {value}'))
    with pytest.raises(ModelFormatError, match="layers must be an integer"):
        SentenceModel.load(path)
