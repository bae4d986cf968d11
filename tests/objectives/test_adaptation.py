"""The fine-tuning objective: the ranking term orders cosines as the scores within a file, the
keep term is zero at the start and grows as the batch's geometry moves."""

from __future__ import annotations

import torch

from parasent.objectives.adaptation import keep_loss, rank_loss


def test_the_ranking_term_prefers_cosines_in_the_order_of_the_scores():
    g1 = torch.tensor([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]])
    right = torch.tensor([[1.0, 0.1], [1.0, 1.0], [0.0, 1.0]])  # cosines fall as the scores do
    wrong = right.flip(0)
    scores = torch.tensor([5.0, 3.0, 0.0])
    assert rank_loss(g1, right, scores) < 0.01 < rank_loss(g1, wrong, scores)
    assert rank_loss(g1, right, torch.tensor([1.0, 1.0, 1.0])) == 0  # no order to learn


def test_scores_of_different_files_are_never_compared():
    g1 = torch.tensor([[1.0, 0.0], [1.0, 0.0]])
    g2 = torch.tensor([[0.0, 1.0], [1.0, 0.0]])  # the pair scored 4 (STS) has the lower cosine
    scores = torch.tensor([4.0, 1.0])  # ... than the label-1 pair of another file
    assert rank_loss(g1, g2, scores) > 1.0
    assert rank_loss(g1, g2, scores, torch.tensor([0, 1])) == 0


def test_keeping_the_start_costs_nothing_at_the_start_and_grows_with_change():
    start = torch.randn(6, 4, generator=torch.Generator().manual_seed(0))
    assert keep_loss(start * 2.0, start) < 1e-10  # only cosines count
    moved = start.clone()
    moved[0] = -moved[0]
    assert keep_loss(moved, start) > 0.01
