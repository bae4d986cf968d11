import numpy as np
import pytest
import torch

from parasent.data.training_text.pools import TrainingPair
from parasent.text import WordTokenizer
from parasent.text.tokenized import Tokenized
from parasent.training.pairs import PairData
from parasent.training.sentences import MixedData, SentenceTargets


def sentences(n=25, dim=3):
    lists = [[2 + i % 7] * (1 + i % 3) for i in range(n)]
    targets = np.arange(n * dim, dtype=np.float32).reshape(n, dim)
    return SentenceTargets(Tokenized.from_lists(lists), targets)


def pairs(n=9):
    tokenizer = WordTokenizer.from_vocabulary([f"w{i}" for i in range(20)])
    return PairData.from_pairs([TrainingPair(f"w{i}", f"w{i + 1}", "t") for i in range(n)], tokenizer)


def test_sentence_batches_carry_their_targets():
    data = sentences()
    batch = data.batch(np.array([4, 0]))
    assert torch.equal(batch.targets, torch.tensor(data.targets[[4, 0]]))
    assert batch.tokens.lengths.tolist() == [2, 1] and len(batch) == 2
    with pytest.raises(ValueError):
        SentenceTargets(Tokenized.from_lists([[1]]), np.zeros((2, 3)))


def test_epoch_covers_the_larger_source_and_cycles_the_smaller():
    data = MixedData(pairs(9), sentences(25), sentence_batch_size=4)
    assert data.num_batches(4) == 7 and len(data) == 9  # ceil(25 / 4) steps; len = pairs
    batches = list(data.batches(0, 1, 4))
    seen = torch.cat([b.sentences.targets[:, 0] for b in batches]).numpy() / 3
    assert sorted(seen.astype(int).tolist()) == list(range(25))  # every sentence once per epoch
    first_cycle = torch.cat([b.pairs.left_ids for b in batches[:3]]).numpy()
    assert sorted(first_cycle.tolist()) == list(range(9))  # every pair in the first cycle
    assert all(b.pairs is not None and len(b.pairs) >= 1 for b in batches)


def test_batches_are_a_function_of_seed_epoch_and_index():
    data = MixedData(pairs(9), sentences(25), sentence_batch_size=4)
    full = list(data.batches(2, 5, 4))
    resumed = list(MixedData(pairs(9), sentences(25), 4).batches(2, 5, 4, start=4))
    for a, b in zip(full[4:], resumed, strict=True):
        assert torch.equal(a.sentences.targets, b.sentences.targets)
        assert torch.equal(a.pairs.left_ids, b.pairs.left_ids)
    other_epoch = list(data.batches(3, 5, 4))
    assert not all(
        torch.equal(a.sentences.targets, b.sentences.targets) for a, b in zip(full, other_epoch, strict=True)
    )


def test_one_source_alone_and_fingerprint():
    only_sentences = MixedData(None, sentences(10), 4)
    assert only_sentences.num_batches(100) == 3
    assert all(b.pairs is None for b in only_sentences.batches(0, 1, 100))
    only_pairs = MixedData(pairs(9), None, 4)
    assert only_pairs.num_batches(4) == 3
    assert (
        MixedData(pairs(9), sentences(10), 4).fingerprint()
        != MixedData(pairs(9), sentences(11), 4).fingerprint()
    )
    with pytest.raises(ValueError):
        MixedData(None, None, 4)


def clustered(clusters=12, per=16, dim=24, seed=0):
    """Sentences whose teacher vectors fall in ``clusters`` tight, far-apart groups."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, dim))
    labels = np.repeat(np.arange(clusters), per)
    targets = centres[labels] + 0.05 * rng.standard_normal((clusters * per, dim))
    lists = [[2 + i % 7] for i in range(len(labels))]
    return SentenceTargets(Tokenized.from_lists(lists), targets, neighbours=True), labels


def test_neighbour_batches_hold_sentences_the_teacher_places_together():
    data, labels = clustered()
    order = data.order(0, 1, 16)
    assert sorted(order.tolist()) == list(range(len(labels)))  # a permutation: each sentence once
    batches = [order[i : i + 16] for i in range(0, len(order) - 15, 16)]  # the full batches
    same = np.mean([np.mean(labels[b][:, None] == labels[b][None, :]) for b in batches])
    shuffled = np.random.default_rng(1).permutation(len(labels))[: 16 * len(batches)].reshape(-1, 16)
    at_random = np.mean([np.mean(labels[b][:, None] == labels[b][None, :]) for b in shuffled])
    assert same > 0.5 > 3 * at_random  # random batches share a cluster by chance (1/12)
    assert not np.array_equal(order, data.order(1, 1, 16))  # fresh planes each epoch
    assert np.array_equal(order, data.order(0, 1, 16))  # and a function of (seed, epoch)


def test_neighbour_batches_reach_the_mixed_source_and_its_fingerprint():
    data, labels = clustered()
    mixed = MixedData(pairs(9), data, sentence_batch_size=16)
    first = next(iter(mixed.batches(0, 1, 4))).sentences.targets.numpy()
    found = [int(np.argmin(np.abs(data.targets - row).sum(axis=1))) for row in first]
    assert np.mean(labels[found] == np.bincount(labels[found]).argmax()) > 0.5
    plain = SentenceTargets(data.sentences, data.targets)
    assert plain.fingerprint() != data.fingerprint()  # a resume cannot switch the batching


def test_slices_stay_whole_batches_with_the_short_one_last():
    from parasent.training.sentences import shuffled_slices

    order = shuffled_slices(np.arange(195), 16, np.random.default_rng(3))
    assert sorted(order.tolist()) == list(range(195))
    batches = [order[i : i + 16] for i in range(0, 192, 16)]
    assert all(b[0] % 16 == 0 and np.array_equal(b, np.arange(b[0], b[0] + 16)) for b in batches)
    assert order[192:].tolist() == [192, 193, 194]  # a short slice in the middle would shift the rest
    assert [b[0] for b in batches] != list(range(0, 192, 16))  # shuffled


def test_neighbour_batches_need_a_teacher():
    from parasent.training.config import TrainConfig

    with pytest.raises(
        ValueError, match="neighbours batches the teacher's sentences: it needs --teacher-weight"
    ):
        TrainConfig.from_flat(teacher_batches="neighbours")
    with pytest.raises(ValueError, match="its own --piece-view/--typo-view copy"):
        TrainConfig.from_flat(teacher="auto", teacher_weight=1.0, teacher_batches="neighbours", typo_view=0.1)
    config = TrainConfig.from_flat(teacher="auto", teacher_weight=1.0, teacher_batches="neighbours")
    assert config.teacher.teacher_batches == "neighbours"


def test_sentence_batches_carry_their_tokens_targets_cut_as_their_tokens():
    from parasent.distillation.token_targets import TokenTargets
    from parasent.training.batching import TRAINING_TOKENS

    lists = [[2, 3, 4], [5] * (TRAINING_TOKENS + 2), [6, 7]]
    tokenized = Tokenized.from_lists(lists)
    row_of = np.full(len(tokenized.ids), -1)
    row_of[[0, 2, 3, TRAINING_TOKENS + 3, TRAINING_TOKENS + 5]] = [0, 1, 2, 3, 4]  # the 4th: cut away
    values = np.arange(10, dtype=np.float16).reshape(5, 2)
    data = SentenceTargets(tokenized, np.zeros((3, 2)), token_targets=TokenTargets(row_of, values))
    batch = data.batch(np.array([2, 0]))
    assert batch.tokens.ids.tolist() == [6, 7, 2, 3, 4]
    assert batch.token_rows.tolist() == [0, 2, 4]  # sentence 2's 6, sentence 0's 2 and 4
    assert batch.token_targets.tolist() == [[8.0, 9.0], [0.0, 1.0], [2.0, 3.0]]
    assert data.batch(np.array([1])).token_rows.tolist() == [0]  # its first token; the cut one is gone
    assert data.fingerprint() != SentenceTargets(tokenized, np.zeros((3, 2))).fingerprint()
