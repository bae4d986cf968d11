import math

import pytest
import torch
import torch.nn.functional as F

from parasent.encoders.word_averaging import WordAveraging
from parasent.objectives import EmbeddingPull, MarginLoss, margin_loss, select_negatives
from parasent.objectives.regularization import CompositionPenalty
from parasent.text import Tokenized
from parasent.training.pairs import PairData


def unit(*rows):
    return F.normalize(torch.tensor(rows, dtype=torch.float32), dim=1)


def test_max_takes_most_similar_outside_own_pair():
    anchors = unit([1, 0], [0, 1])
    candidates = unit([1, 0], [0, 1], [0.9, 0.1], [0.1, 0.9])
    forbidden = torch.tensor([[True, False, True, False], [False, True, False, True]])
    chosen, exists = select_negatives(anchors, candidates, forbidden, "max")
    assert chosen.tolist() == [3, 2] and exists.all()


def test_rand_and_mix_never_pick_forbidden():
    generator = torch.Generator().manual_seed(0)
    anchors = torch.randn(8, 4)
    rows = torch.arange(8)
    forbidden = torch.zeros(8, 16, dtype=torch.bool)
    forbidden[rows, rows] = True
    forbidden[rows, rows + 8] = True
    for strategy in ("rand", "mix"):
        for _ in range(20):
            chosen, _ = select_negatives(anchors, torch.randn(16, 4), forbidden, strategy, generator)
            assert not forbidden[torch.arange(8), chosen].any()


def test_margin_loss_matches_hand_computation():
    g1 = torch.tensor([[1.0, 0.0], [0.0, 2.0]])
    g2 = torch.tensor([[1.0, 1.0], [1.0, 2.0]])
    loss, _ = margin_loss(g1, g2, delta=0.4, negatives="max")

    def c(a, b):
        return float(
            F.cosine_similarity(
                torch.tensor([a], dtype=torch.float32), torch.tensor([b], dtype=torch.float32)
            )
        )

    # pair 0: candidates from pair 1 are (0,2) and (1,2); pair 1: (1,0) and (1,1)
    n1_0 = max(c([1, 0], [0, 2]), c([1, 0], [1, 2]))
    n2_0 = max(c([1, 1], [0, 2]), c([1, 1], [1, 2]))
    n1_1 = max(c([0, 2], [1, 0]), c([0, 2], [1, 1]))
    n2_1 = max(c([1, 2], [1, 0]), c([1, 2], [1, 1]))
    p0, p1 = c([1, 0], [1, 1]), c([0, 2], [1, 2])
    expected = (
        max(0, 0.4 - p0 + n1_0) + max(0, 0.4 - p0 + n2_0) + max(0, 0.4 - p1 + n1_1) + max(0, 0.4 - p1 + n2_1)
    ) / 2
    assert math.isclose(float(loss), expected, rel_tol=1e-5)


def test_same_sentence_elsewhere_is_not_a_negative():
    g = torch.tensor([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    ids = torch.tensor([0, 0, 5])  # pairs 0 and 1 share their left sentence
    other = torch.tensor([[0.5, 0.5], [0.2, 0.9], [0.9, 0.2]])
    loss_masked, stats = margin_loss(g, other, ids1=ids, ids2=torch.tensor([1, 2, 3]))
    loss_plain, _ = margin_loss(g, other)
    assert float(loss_masked) < float(loss_plain)


def test_zero_vectors_give_no_nan():
    loss, _ = margin_loss(torch.zeros(3, 4, requires_grad=True), torch.zeros(3, 4))
    assert torch.isfinite(loss)


def test_batch_of_one_has_no_negative():
    loss, _ = margin_loss(torch.randn(1, 3), torch.randn(1, 3))
    assert float(loss) == 0.0


def test_lazy_pull_equals_dense_penalty_for_rows_seen_every_step():
    initial = torch.randn(6, 3)
    table = torch.nn.Parameter(initial + 0.5)
    pull = EmbeddingPull(initial, 0.1)
    rows = torch.tensor([1, 4])
    value = pull(table, rows, step=1)
    dense = 0.1 * ((table.detach()[rows] - initial[rows]) ** 2).sum()
    assert math.isclose(float(value.detach()), float(dense), rel_tol=1e-6)
    # a row seen again after 3 steps receives the pull of those 3 steps
    value = pull(table, torch.tensor([1]), step=4)
    dense = 0.1 * ((table.detach()[1] - initial[1]) ** 2).sum()
    assert math.isclose(float(value.detach()), 3 * float(dense), rel_tol=1e-6)
    value.backward()
    assert table.grad.is_sparse and table.grad.coalesce().indices()[0].tolist() == [1]


def test_composition_penalty_toward_initial():
    p = torch.nn.Parameter(torch.ones(2, 2))
    assert float(CompositionPenalty([p], 0.5)().detach()) == 2.0
    toward = CompositionPenalty([p], 0.5, toward_initial=True)
    assert float(toward().detach()) == 0.0
    with torch.no_grad():
        p.add_(1.0)
    assert float(toward().detach()) == 2.0


@pytest.mark.parametrize("negatives", ["max", "mix", "rand"])
def test_margin_loss_module_trains(negatives):
    torch.manual_seed(0)
    encoder = WordAveraging(10, 4)
    sentences = Tokenized.from_lists([[2, 3], [3, 4], [5, 6], [6, 7], [8, 9], [9, 2]])

    import numpy as np

    data = PairData(sentences, np.array([[0, 1], [2, 3], [4, 5]]))
    objective = MarginLoss(encoder, negatives=negatives, lambda_w=1e-3)
    optimizer = torch.optim.Adagrad(encoder.parameters(), lr=0.1)
    generator = torch.Generator().manual_seed(0)
    first = None
    for step in range(1, 60):
        batch = data.batch(np.arange(3))
        loss, stats = objective(batch, step, generator)
        first = first if first is not None else float(loss.detach())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert float(loss.detach()) < first
    assert "pull" in stats
