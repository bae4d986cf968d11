import numpy as np

from parasent.text import WordTokenizer
from parasent.training.labelled import LabelledData


def make_data():
    tokenizer = WordTokenizer.from_vocabulary(["a", "b", "c", "d"])
    sides = [["a b", "c", "a b", "d"], ["c", "d d", "b", "a"]]
    return LabelledData.from_sides(sides, np.array([1.0, 2.5, 5.0, 3.0]), tokenizer), tokenizer


def test_sentences_are_shared_and_batches_follow_the_seeded_order():
    data, tokenizer = make_data()
    assert len(data) == 4 and len(data.sentences) == 6  # "a b" and "c" occur twice
    batches = list(data.batches(epoch=0, seed=3, batch_size=3))
    assert [len(b) for b in batches] == [3, 1]
    order = data.order(0, 3)
    assert batches[0].targets.tolist() == data.targets[order[:3]].tolist()
    first = batches[0].sides[0]
    ids = first.ids[first.offsets[0] : first.offsets[0] + first.lengths[0]].tolist()
    assert ids == tokenizer.encode_batch([["a b", "c", "a b", "d"][order[0]]]).ids.tolist()
    resumed = list(data.batches(epoch=0, seed=3, batch_size=3, start=1))
    assert resumed[0].targets.tolist() == batches[1].targets.tolist()
    assert not np.array_equal(data.order(1, 3), order) or len(data) < 3


def test_fingerprint_sees_targets():
    data, tokenizer = make_data()
    other = LabelledData.from_sides(
        [["a b", "c", "a b", "d"], ["c", "d d", "b", "a"]], np.array([1.0, 2.5, 5.0, 4.0]), tokenizer
    )
    assert data.fingerprint() != other.fingerprint()
    assert data.fingerprint() == make_data()[0].fingerprint()
