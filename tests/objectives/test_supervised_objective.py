import numpy as np
import pytest
import torch

from parasent.encoders.word_averaging import WordAveraging
from parasent.objectives.supervised import SupervisedObjective, sparse_target
from parasent.supervised.heads import build_head
from parasent.text import WordTokenizer
from parasent.training.labelled import LabelledData
from parasent.training.optim import build_optimizer


def setup(targets, kind="pair", classes=5, **options):
    tokenizer = WordTokenizer.from_vocabulary(["a", "b", "c", "d", "e"])
    torch.manual_seed(0)
    encoder = WordAveraging(tokenizer.vocab_size, 4)
    encoder.set_embeddings(torch.randn(tokenizer.vocab_size, 4))
    sides = [["a b", "c", "d e", "a"], ["b", "c d", "e", "a e"]][: 2 if kind == "pair" else 1]
    data = LabelledData.from_sides(sides, np.asarray(targets), tokenizer)
    head = build_head(kind, 4, 3, classes, seed=0)
    loss = "kl" if np.asarray(targets).dtype.kind == "f" else "nll"
    objective = SupervisedObjective(encoder, head, loss=loss, **options)
    batch = next(data.batches(0, 0, 4))
    return objective, batch


def test_kl_loss_is_eq_2():
    objective, batch = setup([1.0, 2.5, 5.0, 3.2])
    loss, stats = objective(batch, step=1)
    loss = loss.detach()
    log_probs = objective.head(*[objective.encoder(side) for side in batch.sides]).detach()
    target = sparse_target(batch.targets, 5)
    manual = (target * (torch.log(target.clamp(min=1e-30)) - log_probs)).sum(1).mean()
    assert float(loss) == pytest.approx(float(manual), rel=1e-5) and stats["kl"] == pytest.approx(float(loss))


def test_nll_for_classes_and_single_sentences():
    objective, batch = setup(np.array([0, 1, 1, 0]), kind="sentence", classes=2)
    loss, stats = objective(batch, step=1)
    loss = loss.detach()
    log_probs = objective.head(objective.encoder(batch.sides[0])).detach()
    assert float(loss) == pytest.approx(float(-log_probs[torch.arange(4), batch.targets].mean()), rel=1e-5)
    assert "nll" in stats


def test_regularisers_add_their_terms():
    objective, batch = setup([1.0, 2.5, 5.0, 3.2], lambda_w=0.5, lambda_s=0.01)
    plain, _ = setup([1.0, 2.5, 5.0, 3.2])
    loss, stats = objective(batch, step=1)
    base, _ = plain(batch, step=1)
    head_l2 = sum(float(p.detach().pow(2).sum()) for p in objective.head.parameters())
    assert stats["pull"] == 0.0  # word vectors start at their initial values
    assert stats["head_l2"] == pytest.approx(0.01 * head_l2, rel=1e-5)
    assert float(loss.detach()) == pytest.approx(float(base.detach()) + stats["head_l2"], rel=1e-5)


def test_frozen_encoder_is_not_updated():
    objective, batch = setup([1.0, 2.5, 5.0, 3.2], freeze_encoder=True, lambda_w=1.0)
    before = objective.encoder.embedding.weight.detach().clone()
    head_before = objective.head.output.weight.detach().clone()
    optimizer = build_optimizer(objective.encoder, "adam", extra=list(objective.head.parameters()))
    objective.train()
    assert not objective.encoder.training
    for step in range(1, 4):
        optimizer.zero_grad()
        loss, stats = objective(batch, step)
        loss.backward()
        optimizer.step()
    assert torch.equal(objective.encoder.embedding.weight, before)
    assert not torch.equal(objective.head.output.weight, head_before)
    assert "pull" not in stats  # lambda_w does not apply to a frozen encoder


def test_unknown_loss_is_refused():
    tokenizer = WordTokenizer.from_vocabulary(["a"])
    with pytest.raises(ValueError, match="loss must be"):
        SupervisedObjective(WordAveraging(tokenizer.vocab_size, 2), build_head("pair", 2, 2, 2), loss="mse")


class Projected(WordAveraging):
    """A test encoder with composition parameters (W_c): averaging followed by a projection
    (registered as nothing of its own: its name is its registered base class's)."""

    def __init__(self, vocab_size, embedding_dim):
        super().__init__(vocab_size, embedding_dim)
        self.projection = torch.nn.Linear(embedding_dim, embedding_dim)

    def forward(self, batch):
        return self.projection(super().forward(batch))


def test_universal_setting_pulls_composition_to_its_initial_values():
    tokenizer = WordTokenizer.from_vocabulary(["a", "b", "c"])
    torch.manual_seed(0)
    encoder = Projected(tokenizer.vocab_size, 3)
    data = LabelledData.from_sides([["a b", "c"], ["b", "a c"]], np.array([2.0, 4.0]), tokenizer)
    batch = next(data.batches(0, 0, 2))
    universal = SupervisedObjective(
        encoder, build_head("pair", 3, 2, 5), loss="kl", lambda_c=0.1, composition_to_initial=True
    )
    _, stats = universal(batch, step=1)
    assert stats["composition_l2"] == 0.0  # at the universal parameters
    with torch.no_grad():
        encoder.projection.weight.add_(1.0)
    _, stats = universal(batch, step=2)
    assert stats["composition_l2"] == pytest.approx(0.1 * 9, rel=1e-5)
    scratch = SupervisedObjective(encoder, build_head("pair", 3, 2, 5), loss="kl", lambda_c=0.1)
    _, stats = scratch(batch, step=1)
    expected = 0.1 * sum(float(p.detach().pow(2).sum()) for p in encoder.composition_parameters())
    assert stats["composition_l2"] == pytest.approx(expected, rel=1e-5)
