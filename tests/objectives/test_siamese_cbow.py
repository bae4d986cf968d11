import numpy as np
import torch

from parasent.encoders.batch import TokenBatch
from parasent.encoders.word_averaging import WordAveraging
from parasent.objectives.siamese_cbow import SiameseCBOWLoss, siamese_cbow_loss
from parasent.training.documents import ContextBatch


def reference_loss(anchor, candidates, positive, present):
    """Eq. 1 and the cross-entropy of Sec. 2.1, one example at a time, in numpy."""
    total = 0.0
    for a, cands, pos, pres in zip(anchor, candidates, positive, present, strict=True):
        cos = np.array([c @ a / (np.linalg.norm(c) * np.linalg.norm(a)) for c in cands])
        exp = np.exp(cos) * pres
        p_theta = exp / exp.sum()
        target = (pos & pres) / (pos & pres).sum()
        total += -sum(t * np.log(p) for t, p, ok in zip(target, p_theta, pres, strict=True) if ok and t > 0)
    return total / len(anchor)


def test_loss_is_the_cross_entropy_of_eq_1():
    rng = np.random.default_rng(0)
    anchor = rng.normal(size=(3, 5))
    candidates = rng.normal(size=(3, 4, 5))
    positive = np.array([[True, True, False, False]] * 3)
    present = np.array([[True, True, True, True], [False, True, True, True], [True, True, True, True]])
    loss, stats = siamese_cbow_loss(
        torch.tensor(anchor), torch.tensor(candidates), torch.tensor(positive), torch.tensor(present)
    )
    assert abs(float(loss) - reference_loss(anchor, candidates, positive, present)) < 1e-9
    assert 0 < stats["positive_probability"] < 1


def test_uniform_cosines_give_log_of_the_candidate_count_and_separation_lowers_it():
    anchor = torch.tensor([[1.0, 0.0]])
    same = torch.tensor([[[0.0, 1.0]] * 4])  # all cosines 0: p = 1/4 on each
    positive = torch.tensor([[True, True, False, False]])
    present = torch.ones(1, 4, dtype=torch.bool)
    loss, _ = siamese_cbow_loss(anchor, same, positive, present)
    assert abs(float(loss) - np.log(4)) < 1e-6
    separated = torch.tensor([[[1.0, 0.0], [1.0, 0.0], [-1.0, 0.0], [-1.0, 0.0]]])
    best, stats = siamese_cbow_loss(anchor, separated, positive, present)
    expected = -np.log(np.e / (2 * np.e + 2 / np.e))  # the lowest loss Eq. 1 allows with 2 + 2 candidates
    assert abs(float(best) - expected) < 1e-6 and stats["positive_cos"] == 1.0


def test_module_gradients_reach_only_the_words_of_the_batch():
    torch.manual_seed(0)
    encoder = WordAveraging(10, 4)
    objective = SiameseCBOWLoss(encoder)
    # sentences (ids): [2, 3], [4], [5, 6], [7]; word 8 and 9 unused
    sentences = TokenBatch(
        torch.tensor([2, 3, 4, 5, 6, 7]), torch.tensor([0, 2, 3, 5]), torch.tensor([2, 1, 2, 1])
    )
    batch = ContextBatch(sentences, torch.tensor([1]), torch.tensor([[0, 2]]), torch.tensor([[3]]))
    loss, _ = objective(batch, 1)
    loss.backward()
    grad = encoder.embedding.weight.grad.coalesce()
    assert set(grad.indices()[0].tolist()) <= {2, 3, 4, 5, 6, 7}
    assert float(grad.values().abs().sum()) > 0
