import pytest
import torch

from parasent.encoders.batch import TokenBatch
from parasent.encoders.word_averaging import WordAveraging
from parasent.objectives.distillation import DistillationObjective, cosine_regression_loss
from parasent.objectives.margin import MarginLoss
from parasent.text.tokenized import Tokenized
from parasent.training.pairs import PairBatch
from parasent.training.sentences import MixedBatch, SentenceBatch


def test_cosine_regression_loss_values():
    a = torch.tensor([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]])
    b = torch.tensor([[3.0, 0.0], [1.0, 0.0], [1.0, 1.0]])
    assert cosine_regression_loss(a, b).item() == pytest.approx((0 + 1 + 1) / 3)


def sentence_batch(lists, targets):
    return SentenceBatch(TokenBatch.from_tokenized(Tokenized.from_lists(lists)), torch.tensor(targets))


def pair_batch():
    left = TokenBatch.from_tokenized(Tokenized.from_lists([[2, 3], [4], [5, 6]]))
    right = TokenBatch.from_tokenized(Tokenized.from_lists([[3], [4, 7], [6]]))
    return PairBatch(left, right, torch.tensor([0, 1, 2]), torch.tensor([3, 4, 5]))


def test_regression_moves_the_student_toward_the_teacher():
    torch.manual_seed(0)
    encoder = WordAveraging(10, 4)
    objective = DistillationObjective(encoder, margin=None, teacher_weight=1.0)
    batch = MixedBatch(None, sentence_batch([[2, 3], [4, 5, 6]], [[1.0, 0, 0, 0], [0, 1.0, 0, 0]]))
    optimizer = torch.optim.SGD(encoder.parameters(), lr=5.0)
    losses = []
    for step in range(1, 60):
        optimizer.zero_grad()
        loss, stats = objective(batch, step)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < 0.2 * losses[0]
    assert stats["teacher_cos"] > 0.9
    assert encoder.embedding.weight.grad is None or encoder.embedding.weight.grad.is_sparse


def test_mixed_loss_is_weighted_sum_and_pull_covers_both_batches():
    torch.manual_seed(0)
    encoder = WordAveraging(10, 4)
    initial = encoder.embedding.weight.detach().clone()
    margin = MarginLoss(encoder, delta=0.5)
    sentences = sentence_batch([[8, 9]], [[1.0, 0, 0, 0]])
    pairs = pair_batch()
    with torch.no_grad():
        encoder.embedding.weight[8] += 1.0  # rows 8, 9 only in the sentence batch, moved from initial
    objective = DistillationObjective(
        encoder, margin=margin, teacher_weight=2.0, lambda_w=0.1, initial_embeddings=initial
    )
    total, stats = objective(MixedBatch(pairs, sentences), step=1)
    margin_only, _ = MarginLoss(encoder, delta=0.5)(pairs, 1)
    regression = cosine_regression_loss(encoder(sentences.tokens), sentences.targets)
    pull = 0.1 * (encoder.embedding.weight[8] - initial[8]).pow(2).sum()
    assert total.item() == pytest.approx((margin_only + 2.0 * regression + pull).item(), rel=1e-5)
    assert stats["pull"] == pytest.approx(pull.item(), rel=1e-5)
    with pytest.raises(ValueError, match="lambda_w=0"):
        DistillationObjective(encoder, margin=MarginLoss(encoder, lambda_w=0.1))
    with pytest.raises(ValueError, match="needs pairs"):
        DistillationObjective(encoder, margin=None)(MixedBatch(pairs, None), 1)


def test_contrastive_loss_prefers_the_matching_teacher_row():
    from parasent.objectives.distillation import contrastive_loss

    target = torch.eye(3)
    matched = contrastive_loss(target.clone(), target, 0.1)
    shuffled = contrastive_loss(target[[1, 2, 0]], target, 0.1)
    assert matched < 0.01 < shuffled
    assert torch.isclose(contrastive_loss(torch.ones(3, 3), target, 1.0), torch.log(torch.tensor(3.0)))


def test_contrastive_term_adds_to_the_regression_and_separates_the_batch():
    torch.manual_seed(0)
    encoder = WordAveraging(10, 4)
    targets = [[1.0, 0, 0, 0], [0.9, 0.1, 0, 0]]
    batch = MixedBatch(None, sentence_batch([[2, 3], [4, 5, 6]], targets))
    plain = DistillationObjective(encoder, margin=None)
    with_nce = DistillationObjective(encoder, margin=None, contrastive=0.5, temperature=0.05)
    loss, _ = plain(batch, 1)
    total, stats = with_nce(batch, 1)
    assert torch.isclose(total, loss + 0.5 * stats["teacher_nce"], atol=1e-5)
    with pytest.raises(ValueError):
        DistillationObjective(encoder, margin=None, temperature=0.0)


def test_relational_term_matches_in_batch_cosines_and_adds_to_the_regression():
    from parasent.objectives.distillation import relational_loss

    target = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    assert relational_loss(target * 3.0, target) < 1e-10  # only directions count
    collapsed = torch.ones(3, 2)  # every cosine 1: off by 1, 1, 1 - 0.707 twice each
    expected = (2 * 1.0 + 4 * (1 - 2**-0.5) ** 2) / 6
    assert torch.isclose(relational_loss(collapsed, target), torch.tensor(expected), atol=1e-6)
    assert relational_loss(torch.ones(1, 2), target[:1]) == 0
    torch.manual_seed(0)
    encoder = WordAveraging(10, 4)
    batch = MixedBatch(None, sentence_batch([[2, 3], [4, 5, 6], [7]], [[1.0, 0, 0, 0], [0, 1.0, 0, 0], [1.0, 1.0, 0, 0]]))  # fmt: skip
    loss, _ = DistillationObjective(encoder, margin=None)(batch, 1)
    total, stats = DistillationObjective(encoder, margin=None, relational=2.0)(batch, 1)
    assert stats["teacher_relational"] > 0
    assert torch.isclose(total, loss + 2.0 * stats["teacher_relational"], atol=1e-5)
    with pytest.raises(ValueError, match="relational"):
        DistillationObjective(encoder, margin=None, relational=-1.0)


def test_a_student_of_another_width_matches_the_teachers_cosines_alone():
    """A compacted model (256 dimensions) fine-tuned with its 384-dimensional teacher: no
    regression is possible, the relational term is the whole loss, and it moves the student."""
    torch.manual_seed(0)
    encoder = WordAveraging(10, 4)
    targets = [[1.0, 0, 0, 0, 0, 0], [0, 1.0, 0, 0, 0, 0], [1.0, 1.0, 0, 0, 0, 0]]  # 6 wide, the student 4
    batch = MixedBatch(None, sentence_batch([[2, 3], [4, 5, 6], [7]], targets))
    objective = DistillationObjective(encoder, margin=None, relational=3.0, regression=False)
    loss, stats = objective(batch, 1)
    assert "teacher_cos" not in stats and torch.isclose(loss, torch.tensor(3.0 * stats["teacher_relational"]))
    optimizer = torch.optim.SGD(encoder.parameters(), lr=0.5)
    for _ in range(30):
        optimizer.zero_grad()
        objective(batch, 1)[0].backward()
        optimizer.step()
    assert objective(batch, 1)[0] < loss
    with pytest.raises(ValueError, match="relational term alone"):
        DistillationObjective(encoder, margin=None, regression=False)


def test_the_per_token_term_needs_an_encoder_that_gives_its_tokens():
    from parasent.objectives.distillation import TeacherRegression

    with pytest.raises(ValueError, match="needs an encoder that composes rows token by token"):
        TeacherRegression(WordAveraging(10, 4), relational=1.0, regression=False, tokens=1.0)


def test_the_per_token_term_pulls_each_token_toward_its_target():
    from parasent.encoders.contextual import ContextualAveraging
    from parasent.objectives.distillation import TeacherRegression, token_loss

    targets = torch.tensor([[1.0, 0.0], [0.0, 2.0]])
    assert token_loss(targets, targets).item() == 0.0
    assert token_loss(torch.zeros(2, 2), targets).item() == pytest.approx(1.0)  # relative to |y|^2
    torch.manual_seed(0)
    encoder = ContextualAveraging(10, 4, hidden=3)
    batch = sentence_batch([[2, 3, 4], [5, 6]], torch.randn(2, 4).tolist())
    batch.token_rows = torch.tensor([0, 2, 3])
    batch.token_targets = torch.randn(3, 4)
    objective = TeacherRegression(encoder, relational=1.0, regression=False, tokens=1.0)
    loss, stats = objective(batch)
    assert stats["teacher_tokens"] > 0
    loss.backward()
    assert encoder.shift.weight.grad.abs().sum() > 0  # the correction learns from the tokens' targets
    plain = TeacherRegression(encoder, relational=1.0, regression=False)(batch)[1]
    assert "teacher_tokens" not in plain
