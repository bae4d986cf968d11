"""Eq. 1's lambda_w pull: exact (dense) and lazy, the SGD guard, and the rows it applies to."""

import math

import pytest
import torch

from parasent.objectives.regularization import EmbeddingPull


def sgd_steps(pull: EmbeddingPull, table: torch.nn.Parameter, schedule: list[list[int]], lr: float) -> None:
    """Plain SGD on the pull alone; ``schedule[s]`` are the batch rows of step s + 1."""
    for step, rows in enumerate(schedule, 1):
        table.grad = None
        pull(table, torch.tensor(rows, dtype=torch.long), step).backward()
        with torch.no_grad():
            grad = table.grad.to_dense() if table.grad.is_sparse else table.grad
            table -= lr * grad


def test_exact_pull_is_the_dense_penalty_and_reaches_rows_outside_the_batch():
    initial = torch.randn(6, 3)
    table = torch.nn.Parameter(initial + 0.5)
    pull = EmbeddingPull(initial, 0.1, mode="exact")
    value = pull(table, torch.tensor([1]), step=7)
    dense = 0.1 * ((table.detach() - initial) ** 2).sum()
    assert math.isclose(float(value.detach()), float(dense), rel_tol=1e-6)
    value.backward()
    assert table.grad.coalesce().indices()[0].tolist() == list(range(6))  # every row, not just row 1


def test_exact_pull_under_sgd_decays_every_row_by_one_minus_two_lr_lambda_per_step():
    initial = torch.zeros(4, 2)
    table = torch.nn.Parameter(torch.ones(4, 2))
    pull = EmbeddingPull(initial, 0.2, mode="exact")
    sgd_steps(pull, table, [[0]] * 5, lr=0.5)
    assert torch.allclose(table.detach(), torch.full((4, 2), (1 - 2 * 0.5 * 0.2) ** 5))


@pytest.mark.parametrize("lr, weight", [(0.5, 0.2), (0.1, 1.0), (0.05, 0.3)])
def test_sgd_guard_gives_a_row_seen_after_k_steps_the_pull_of_k_dense_steps(lr, weight):
    k = 6  # 2 lr lambda k > 1 for the first two settings: unguarded, the row would overshoot
    initial = torch.zeros(3, 2)
    schedule = [[0]] * (k - 1) + [[0, 2]]  # row 2 first appears at step k
    exact = torch.nn.Parameter(torch.ones(3, 2))
    sgd_steps(EmbeddingPull(initial, weight, mode="exact"), exact, schedule, lr)
    guarded = torch.nn.Parameter(torch.ones(3, 2))
    lazy = EmbeddingPull(initial, weight)
    lazy.guard_sgd(lambda: lr)
    sgd_steps(lazy, guarded, schedule, lr)
    assert torch.allclose(guarded.detach()[2], exact.detach()[2], atol=1e-6)
    assert torch.allclose(guarded.detach()[0], exact.detach()[0], atol=1e-6)
    assert (guarded.detach()[2] >= 0).all()  # never past the initial value
    unguarded = torch.nn.Parameter(torch.ones(3, 2))
    sgd_steps(EmbeddingPull(initial, weight), unguarded, schedule, lr)
    if 2 * lr * weight * k > 1:
        assert (unguarded.detach()[2] < 0).all()  # what the guard prevents


def test_rows_without_an_initial_value_are_not_pulled():
    initial = torch.randn(5, 3)
    table = torch.nn.Parameter(initial + 1.0)
    pulled = torch.tensor([False, True, True, False, False])
    for mode in ("lazy", "exact"):
        pull = EmbeddingPull(initial, 0.1, mode=mode, pulled=pulled)
        table.grad = None
        value = pull(table, torch.tensor([1, 3, 4]), step=1)
        expected_rows = [1] if mode == "lazy" else [1, 2]
        assert math.isclose(float(value.detach()), 0.1 * 3 * len(expected_rows), rel_tol=1e-5)
        value.backward()
        assert sorted(set(table.grad.coalesce().indices()[0].tolist())) == expected_rows


def test_a_checkpoint_without_the_pulled_rows_loads_as_pulling_every_row():
    pull = EmbeddingPull(torch.zeros(4, 2), 0.1, pulled=torch.tensor([True, False, False, True]))
    state = {"initial": torch.ones(4, 2), "last_step": torch.zeros(4, dtype=torch.long)}
    pull.load_state_dict(state)
    assert pull.pulled.all()
    with pytest.raises(ValueError, match="pull mode"):
        EmbeddingPull(torch.zeros(2, 2), 0.1, mode="sometimes")
