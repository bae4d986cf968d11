"""The packed gradient sync unpacks what it packs: the sparse rows of the step, the dense
gradients, the loss and the stop flag (one process: the all-reduce is the identity)."""

import pytest
import torch
import torch.distributed as dist

from parasent.training.distributed import PackedGradientSync, World


@pytest.fixture()
def group(tmp_path):
    dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'store'}", rank=0, world_size=1)
    yield
    dist.destroy_process_group()


class Objective:
    step_rows = None


def parameters():
    embedding = torch.nn.Embedding(20, 3, sparse=True)
    dense = torch.nn.Linear(3, 2)
    ids = torch.tensor([4, 7, 4, 11])
    loss = dense(embedding(ids)).pow(2).sum()
    loss.backward()
    return embedding.weight, dense, loss


@pytest.mark.parametrize("known_rows", [True, False])
def test_the_sync_gives_back_every_gradient_and_the_loss(group, known_rows):
    weight, dense, loss = parameters()
    expected_sparse = weight.grad.to_dense().clone()
    expected_dense = [p.grad.clone() for p in dense.parameters()]
    objective = Objective()
    if known_rows:  # the global batch's rows, one of them (2) without a gradient in this process
        objective.step_rows = torch.tensor([2, 4, 7, 11])
    sync = PackedGradientSync(weight, objective, World(0, 1))
    value, stop = sync([weight, *dense.parameters()], loss.detach(), True)
    assert value == pytest.approx(float(loss.detach()), rel=1e-6) and stop
    assert weight.grad.is_sparse
    torch.testing.assert_close(weight.grad.to_dense(), expected_sparse)
    for p, grad in zip(dense.parameters(), expected_dense, strict=True):
        torch.testing.assert_close(p.grad, grad)
    if known_rows:
        assert weight.grad.indices()[0].tolist() == [2, 4, 7, 11]
