import pytest
import torch

from parasent.encoders.word_averaging import WordAveraging
from parasent.training.adadelta import SparseAdadelta
from parasent.training.optim import build_optimizer, linear_decay


def test_sparse_adadelta_equals_dense_adadelta():
    torch.manual_seed(0)
    start = torch.randn(30, 4)
    sparse_param = torch.nn.Parameter(start.clone())
    dense_param = torch.nn.Parameter(start.clone())
    sparse_opt = SparseAdadelta([sparse_param], lr=1.0, rho=0.9)
    dense_opt = torch.optim.Adadelta([dense_param], lr=1.0, rho=0.9)
    for _ in range(40):
        rows = torch.randint(0, 30, (8,))  # duplicates included, rows idle for many steps
        values = torch.randn(8, 4)
        grad = torch.sparse_coo_tensor(rows.unsqueeze(0), values, (30, 4))
        sparse_param.grad, dense_param.grad = grad, grad.to_dense()
        sparse_opt.step()
        dense_opt.step()
    assert torch.allclose(sparse_param, dense_param, atol=1e-6)
    assert not torch.allclose(sparse_param, start)


def test_adadelta_state_survives_a_state_dict_round_trip():
    torch.manual_seed(0)
    a = torch.nn.Parameter(torch.randn(6, 2))
    opt = SparseAdadelta([a])
    a.grad = torch.randn(6, 2)
    opt.step()
    clone = SparseAdadelta([torch.nn.Parameter(a.detach().clone())])
    clone.load_state_dict(opt.state_dict())
    state = clone.state[clone.param_groups[0]["params"][0]]
    assert state["step"] == 1 and torch.equal(state["last_step"], torch.ones(6, dtype=torch.long))


def test_linear_schedule_decreases_with_the_batches_and_resumes():
    decay = linear_decay(10)
    assert decay(0) == 1.0 and decay(5) == 0.5 and decay(10) == 1e-4
    encoder = WordAveraging(5, 2)
    optimizer = build_optimizer(encoder, "sgd", 0.5, schedule="linear", total_steps=4)
    rates = []
    for _ in range(3):
        encoder.embedding.weight.grad = torch.zeros(5, 2).to_sparse()
        optimizer.step()
        rates.append(optimizer.optimizers[0].param_groups[0]["lr"])
    assert rates == [0.5, 0.375, 0.25]
    state = optimizer.state_dict()
    again = build_optimizer(encoder, "sgd", 0.5, schedule="linear", total_steps=4)
    again.load_state_dict(state)
    encoder.embedding.weight.grad = torch.zeros(5, 2).to_sparse()
    again.step()
    assert again.optimizers[0].param_groups[0]["lr"] == 0.125
    with pytest.raises(ValueError, match="total number of steps"):
        build_optimizer(encoder, "sgd", schedule="linear")


def test_adadelta_optimizer_set_accepts_the_sparse_embedding():
    encoder = WordAveraging(5, 2)
    optimizer = build_optimizer(encoder, "adadelta")
    assert isinstance(optimizer.optimizers[0], SparseAdadelta)
    before = encoder.embedding.weight.detach().clone()
    total = torch.nn.functional.embedding_bag(
        torch.tensor([2, 3]), encoder.embedding.weight, torch.tensor([0]), sparse=True
    ).sum()
    total.backward()
    assert encoder.embedding.weight.grad.is_sparse
    optimizer.step()
    changed = (encoder.embedding.weight.detach() != before).any(dim=1).tolist()
    assert changed == [False, False, True, True, False]
