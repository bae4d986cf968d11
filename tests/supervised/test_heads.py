import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from parasent.errors import ModelFormatError
from parasent.objectives.supervised import sparse_target
from parasent.supervised.heads import (
    PairClassifier,
    SentenceClassifier,
    build_head,
    expected_score,
    load_head,
    run_head,
    save_head,
)


@settings(max_examples=60, deadline=None)
@given(st.floats(min_value=1.0, max_value=5.0, allow_nan=False), st.integers(min_value=2, max_value=7))
def test_sparse_target_is_a_distribution_whose_mean_is_the_score(y, classes):
    y = min(y, float(classes))
    p = sparse_target(torch.tensor([y], dtype=torch.float64), classes)[0]
    assert torch.all(p >= 0) and float(p.sum()) == pytest.approx(1.0, abs=1e-6)
    assert float(p @ torch.arange(1, classes + 1, dtype=torch.float32)) == pytest.approx(y, abs=1e-5)
    nonzero = torch.nonzero(p).flatten().tolist()
    assert len(nonzero) <= 2 and (len(nonzero) < 2 or nonzero[1] == nonzero[0] + 1)


def test_sparse_target_matches_the_papers_definition():
    p = sparse_target(torch.tensor([3.4, 5.0, 1.0, 2.0]), 5)
    assert p[0].tolist() == pytest.approx([0, 0, 0.6, 0.4, 0])  # p_3 = floor(y) - y + 1, p_4 = y - floor(y)
    assert p[1].tolist() == [0, 0, 0, 0, 1]
    assert p[2].tolist() == [1, 0, 0, 0, 0]
    assert p[3].tolist() == [0, 1, 0, 0, 0]
    with pytest.raises(ValueError, match=r"\[1, 5\]"):
        sparse_target(torch.tensor([0.5]), 5)


def test_pair_head_computes_tai_et_al_features():
    head = build_head("pair", 4, 3, 5, seed=0)
    left, right = torch.randn(6, 4), torch.randn(6, 4)
    log_probs = head(left, right)
    assert log_probs.shape == (6, 5)
    assert torch.allclose(log_probs.exp().sum(1), torch.ones(6))
    hidden = torch.sigmoid(
        left * right @ head.product.weight.T
        + (left - right).abs() @ head.difference.weight.T
        + head.difference.bias
    )
    manual = torch.log_softmax(hidden @ head.output.weight.T + head.output.bias, dim=1)
    assert torch.allclose(log_probs, manual, atol=1e-6)
    assert torch.allclose(head(left, right), head(right, left), atol=1e-6)  # symmetric in the pair
    scores = expected_score(log_probs)
    assert torch.all((scores >= 1) & (scores <= 5))


def test_build_head_is_seeded_and_checks_shapes():
    a, b = build_head("sentence", 4, 3, 2, seed=5), build_head("sentence", 4, 3, 2, seed=5)
    assert isinstance(a, SentenceClassifier) and torch.equal(a.hidden.weight, b.hidden.weight)
    assert isinstance(build_head("pair", 4, 3, 3), PairClassifier)
    with pytest.raises(ValueError, match="head kind"):
        build_head("triple", 4, 3, 2)
    with pytest.raises(ValueError, match="bad head shape"):
        build_head("pair", 4, 3, 1)


def test_head_saves_as_safetensors_and_json(tmp_path):
    head = build_head("pair", 4, 3, 5, seed=1)
    save_head(tmp_path, head, {"task": "sick-relatedness"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["head.json", "head.safetensors"]
    loaded, info = load_head(tmp_path)
    assert info["task"] == "sick-relatedness" and info["head"]["classes"] == 5
    vectors = [np.random.default_rng(0).normal(size=(7, 4)).astype(np.float32) for _ in range(2)]
    assert np.array_equal(run_head(head, vectors), run_head(loaded, vectors))


def test_broken_head_files_are_reported(tmp_path):
    with pytest.raises(ModelFormatError, match="no supervised head"):
        load_head(tmp_path)
    save_head(tmp_path, build_head("pair", 4, 3, 5), {"task": "x"})
    (tmp_path / "head.json").write_text(
        '{"head": {"kind": "pair", "input_dim": 8, "hidden_dim": 3, "classes": 5}}'
    )
    with pytest.raises(
        ModelFormatError, match=r"product.weight has shape \(3, 4\), the config declares \(3, 8\)"
    ):
        load_head(tmp_path)


def test_a_standardized_head_reads_its_input_on_the_training_scale_and_round_trips(tmp_path):
    rng = np.random.default_rng(0)
    train = (rng.normal(size=(50, 4)) * [0.01, 0.02, 0.05, 0.0] + [0.1, 0.0, -0.2, 0.3]).astype(np.float32)
    head = build_head("sentence", 4, 3, 2, seed=1, standardized=True)
    head.standardize(train)
    same = build_head("sentence", 4, 3, 2, seed=1)  # the same weights, reading standardized input
    spread = np.where(train.std(axis=0) > 1e-6, train.std(axis=0), 1.0)
    expected = run_head(same, [((train - train.mean(axis=0)) / spread).astype(np.float32)])
    assert np.allclose(run_head(head, [train]), expected, atol=1e-4)  # the constant dimension: scale 1
    assert np.all(np.isfinite(run_head(head, [np.zeros((1, 4), dtype=np.float32)])))
    save_head(tmp_path, head, {"task": "x"})
    loaded, config = load_head(tmp_path)
    assert config["head"]["standardized"] is True
    assert np.allclose(run_head(loaded, [train]), expected, atol=1e-4)
    (tmp_path / "raw").mkdir()
    save_head(tmp_path / "raw", same, {})
    assert (
        "standardized" not in load_head(tmp_path / "raw")[1]["head"]
    )  # heads saved before read as they were
    with pytest.raises(ValueError, match="sentence head"):
        build_head("pair", 4, 3, 2, standardized=True)
