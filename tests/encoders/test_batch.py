from parasent.encoders.batch import TokenBatch
from parasent.text import Tokenized


def test_padded_view():
    batch = TokenBatch.from_tokenized(Tokenized.from_lists([[2, 3], [], [4]]))
    ids, mask = batch.padded()
    assert ids.tolist() == [[2, 3], [0, 0], [4, 0]]
    assert mask.tolist() == [[True, True], [False, False], [True, False]]


def test_flat_ids_offsets_and_concatenation():
    left = TokenBatch.from_tokenized(Tokenized.from_lists([[2, 3], [], [4]]))
    right = TokenBatch.from_tokenized(Tokenized.from_lists([[5, 6, 7]]))
    assert (left.ids.tolist(), left.offsets.tolist(), left.lengths.tolist()) == (
        [2, 3, 4],
        [0, 2, 2],
        [2, 0, 1],
    )
    both = TokenBatch.concat([left, right])
    assert len(both) == 4 and both.ids.tolist() == [2, 3, 4, 5, 6, 7]
    assert both.offsets.tolist() == [0, 2, 2, 3] and both.lengths.tolist() == [2, 0, 1, 3]
    assert both.sentence_of_token().tolist() == [0, 0, 2, 3, 3, 3]
