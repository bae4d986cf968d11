"""Every registered encoder: output independent of batch padding, and trains, saves, reloads and
encodes identically on a tiny pair set the test writes. And a new encoder added as
docs/adding-an-encoder.md says, one module, one registry line and one record of the
experiments' settings, is tuned and compared."""

import importlib
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import parasent.encoders
from parasent import load
from parasent.cli import main
from parasent.core.model import SentenceModel
from parasent.encoders import (
    ENCODERS,
    EncoderEntry,
    build_encoder,
    encoder_class,
    encoder_entry,
)
from parasent.encoders.base import encode_batches
from parasent.encoders.batch import TokenBatch
from parasent.experiments.encoder_settings import SETTINGS, ComparisonVariant, EncoderSettings
from parasent.text import Tokenized
from parasent.training.config import TrainConfig
from parasent.training.run import assemble

NAMES = sorted(ENCODERS)
# Sentences of 0 to 9 tokens: shorter than CSE's and charCNN's widest filters, and longer.
SENTENCES = [[2, 3, 4, 5, 6, 7, 8, 9, 10], [11], [], [3, 3], [4, 12, 5], [6, 7, 8, 9, 10, 11, 12, 13]]


def small_encoder(name, vocab=16, dim=6, seed=0):
    torch.manual_seed(seed)
    encoder = build_encoder({"name": name, "vocab_size": vocab, "embedding_dim": dim})
    with torch.no_grad():  # non-trivial values everywhere (peepholes and biases start at zero)
        for parameter in encoder.parameters():
            parameter.add_(0.3 * torch.randn_like(parameter))
        encoder.embedding.weight[0].zero_()
    return encoder.eval()


def encode(encoder, sentences):
    with torch.no_grad():
        return encoder(TokenBatch.from_tokenized(Tokenized.from_lists(sentences)))


@pytest.mark.parametrize("name", NAMES)
def test_output_does_not_depend_on_batch_padding(name):
    encoder = small_encoder(name)
    together = encode(encoder, SENTENCES)
    assert together.shape == (len(SENTENCES), encoder.output_dim)
    assert torch.isfinite(together).all()
    for i, sentence in enumerate(SENTENCES):
        alone = encode(encoder, [sentence])[0]
        torch.testing.assert_close(together[i], alone, rtol=1e-5, atol=1e-6)
        with_long_neighbour = encode(encoder, [sentence, list(range(2, 16)) * 3])[0]
        torch.testing.assert_close(with_long_neighbour, alone, rtol=1e-5, atol=1e-6)
    reordered = encode_batches(encoder, Tokenized.from_lists(SENTENCES), batch_size=2)
    np.testing.assert_allclose(reordered, together.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", NAMES)
def test_gradient_does_not_reach_padding(name):
    encoder = small_encoder(name).train()
    out = encoder(TokenBatch.from_tokenized(Tokenized.from_lists(SENTENCES)))
    out.pow(2).sum().backward()
    grad = encoder.embedding.weight.grad
    assert grad.is_sparse
    rows = set(grad.coalesce().indices()[0].tolist())
    used = {i for s in SENTENCES for i in s}
    assert rows <= used | {0} and rows & used
    assert not grad.coalesce().to_dense()[0].any()  # the [PAD] row never moves


def write_tiny_pairs(path):
    pairs = [
        ("a big car", "a large automobile"),
        ("the quick dog", "the fast puppy"),
        ("a happy man", "a glad guy"),
        ("buy a house", "purchase a home"),
        ("the small child", "the little kid"),
        ("start to talk", "begin to speak"),
        ("a huge vehicle", "a big car"),
        ("eat on the street", "consume on the road"),
        ("the tiny hound", "the small dog"),
        ("a cheerful lady", "a happy woman"),
    ]
    path.write_text("".join(f"{a}\t{b}\n" for a, b in pairs))
    return path


@pytest.mark.parametrize("name", NAMES)
def test_trains_saves_reloads_and_encodes_identically(name, mini_data_dir, tmp_path):
    pairs = write_tiny_pairs(tmp_path / "pairs.tsv")
    config = TrainConfig.from_flat(
        encoder=name,
        vectors="wordvecs/mini16.txt.gz",
        pool=None,
        pair_files=[[str(pairs), "tsv"]],
        epochs=2,
        batch_size=4,
        validation=None,
        seed=5,
    )
    trainer = assemble(
        config, tmp_path / "run", data_dir=mini_data_dir, progress=False, say=lambda _: None
    ).trainer
    before = {k: v.clone() for k, v in trainer.encoder.state_dict().items()}
    trainer.fit()
    after = trainer.encoder.state_dict()
    assert any(not torch.equal(before[k], after[k]) for k in before), "training changed nothing"

    sentences = ["a big car", "The Large automobile!", "", "zzz unknown words", "a cheerful lady on the road"]
    expected = SentenceModel.from_encoder(trainer.tokenizer, trainer.encoder).encode(sentences)
    model = load(tmp_path / "run")
    assert model.encoder_config["name"] == name
    assert model.tokenizer.kind == ("words" if encoder_entry(name).featurizer == "words" else "char_ngrams")
    assert np.array_equal(model.encode(sentences), expected)
    model.save(tmp_path / "copy")
    again = load(tmp_path / "copy")
    assert np.array_equal(again.encode(sentences), expected)
    assert again.dim == expected.shape[1]
    assert np.isfinite(again.similarity_pairwise(sentences[0], sentences[2]))


RECIPE = Path(__file__).resolve().parents[2] / "docs" / "adding-an-encoder.md"


@pytest.fixture
def documented_encoder(tmp_path, monkeypatch):
    """The recipe's three code blocks, as a user adds them: the module, as
    ``parasent/encoders/my_encoder.py`` (written to a folder on the package's path), the entry,
    in ``ENCODERS``, and its settings, in ``SETTINGS``; all gone after the test."""
    module, line, settings = re.findall(r"```python\n(.*?)```", RECIPE.read_text(), re.DOTALL)[:3]
    folder = tmp_path / "encoders"
    folder.mkdir()
    (folder / "my_encoder.py").write_text(module)
    monkeypatch.setattr(parasent.encoders, "__path__", [*parasent.encoders.__path__, str(folder)])
    importlib.invalidate_caches()
    entry = eval(line, {"EncoderEntry": EncoderEntry})
    monkeypatch.setitem(ENCODERS, entry.name, entry)
    record = eval(settings, {"EncoderSettings": EncoderSettings, "ComparisonVariant": ComparisonVariant})
    monkeypatch.setitem(SETTINGS, record.encoder, record)
    yield entry
    sys.modules.pop("parasent.encoders.my_encoder", None)
    if hasattr(parasent.encoders, "my_encoder"):
        delattr(parasent.encoders, "my_encoder")


def test_an_encoder_is_one_module_one_registry_line_and_its_settings(
    documented_encoder, mini_data_dir, tmp_path, capsys
):
    assert encoder_class("my_encoder").__module__ == "parasent.encoders.my_encoder"
    assert (
        build_encoder({"name": "my_encoder", "vocab_size": 5, "embedding_dim": 3, "depth": 2}).name
        == "my_encoder"
    )
    common = [
        "--data-dir",
        str(mini_data_dir),
        "--vectors",
        "wordvecs/mini16.txt.gz",
        "--epochs",
        "1",
        "--quiet",
    ]

    tune = tmp_path / "tune"
    assert main(["tune", "--encoder", "my_encoder", "--trials", "2", "--out", str(tune), *common]) == 0
    trials = [json.loads(line) for line in (tune / "trials.jsonl").read_text().splitlines()]
    assert len(trials) == 2  # a sample of the paper's grid with the entry's additions
    for trial in trials:
        assert trial["result"]["values"]["encoder_options.depth"] in (1, 2)
        assert trial["config"]["encoder"]["name"] == "my_encoder"

    compare = tmp_path / "compare"
    assert main(["compare", "--variants", "mine", "--seeds", "1", "--out", str(compare), *common]) == 0
    assert "| dataset | avg. mini16.txt.gz | Mine |" in capsys.readouterr().out
    model = load(compare / "mine" / "seed-1")
    assert model.encoder_config == {**model.encoder_config, "name": "my_encoder", "depth": 2}
    assert model.encode(["a big car"]).shape == (1, model.dim)


@pytest.mark.parametrize(
    ("name", "options", "refused"),
    [
        ("contextual", {"hidden": "abc"}, "hidden=abc: expected an integer"),
        ("lstm", {"output_gate": 1}, "output_gate=1: expected true or false"),
        ("cse", {"feature_maps": [3, "a"]}, 'feature_maps=\\[3, "a"\\]: expected an integer'),
        ("dan", {"activation": 3}, "activation=3: expected a word"),
        ("cse", {"widths": 3}, "widths=3: expected a list"),
        ("lstm", {"hidden_dim": None}, None),  # null: the default, as before
        ("cse", {"feature_maps": [3, 4, 5]}, None),
        ("contextual", {"hidden": 16.0}, None),  # a whole float is an integer
        ("projection", {"output_dim": 1200}, None),
    ],
)
def test_encoder_options_of_the_wrong_kind_are_refused_in_one_line(name, options, refused):
    from parasent.encoders import check_encoder_options
    from parasent.errors import OptionError

    if refused is None:
        check_encoder_options(name, options)
        return
    with pytest.raises(OptionError, match=refused):
        check_encoder_options(name, options)
