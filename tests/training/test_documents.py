import numpy as np
import pytest

from parasent.data.training_text.corpus import Document
from parasent.text.tokenizer import WordTokenizer
from parasent.training.documents import NO_NEIGHBOUR, DocumentData


def data(num_negatives=2):
    documents = [
        Document("a", ("w0 w1", "w2", "zzz", "w3 w4", "w5")),  # "zzz" is unknown: removed
        Document("b", ("w5",)),  # one sentence: no neighbour, never an anchor
        Document("c", ("w6", "w7", "w8", "w0", "w1")),
    ]
    tokenizer = WordTokenizer.from_vocabulary([f"w{i}" for i in range(9)], unknown="skip")
    return DocumentData.from_documents(documents, tokenizer, num_negatives)


def test_anchors_have_both_neighbours_of_the_original_text():
    d = data()
    assert d.num_sentences == 10  # "zzz" removed
    # "w2" and "w3 w4" were not adjacent in the text: removing "zzz" does not make them neighbours
    assert d.previous.tolist() == [NO_NEIGHBOUR, 0, NO_NEIGHBOUR, 2, NO_NEIGHBOUR, NO_NEIGHBOUR, 5, 6, 7, 8]
    assert d.next.tolist() == [1, NO_NEIGHBOUR, 3, NO_NEIGHBOUR, NO_NEIGHBOUR, 6, 7, 8, 9, NO_NEIGHBOUR]
    # S+ is the preceding and the following sentence (Kenter et al. Sec. 2.1): edges are no anchors
    assert d.anchors.tolist() == [6, 7, 8]
    assert d.dropped == {"one neighbour": 6, "no neighbour": 1, "empty": 1}
    assert "3 of 11 sentences are anchors" in d.summary()
    assert len(d) == 3 and d.num_batches(2) == 2
    batch = next(iter(d.batches(epoch=0, seed=1, batch_size=3)))
    assert (batch.positives != NO_NEIGHBOUR).all()  # every example has its two positives


def test_negatives_are_never_the_sentence_or_its_neighbours():
    d = data(num_negatives=3)
    rng = np.random.default_rng(0)
    anchors = np.repeat(d.anchors, 200)
    negatives = d.draw_negatives(anchors, rng)
    assert negatives.shape == (len(anchors), 3)
    for forbidden in (anchors, d.previous[anchors], d.next[anchors]):
        assert not (negatives == forbidden[:, None]).any()
    # every sentence is possible except 7, the anchor or a neighbour of all three anchors
    assert set(np.unique(negatives)) == set(range(d.num_sentences)) - {7}


def test_batches_gather_the_right_sentences_and_are_reproducible():
    d = data()
    first = list(d.batches(epoch=0, seed=5, batch_size=2))
    again = list(d.batches(epoch=0, seed=5, batch_size=2))
    resumed = list(d.batches(epoch=0, seed=5, batch_size=2, start=1))
    assert [len(b) for b in first] == [2, 1]
    for a, b in zip(first, again, strict=True):
        assert a.negatives.tolist() == b.negatives.tolist() and a.anchors.tolist() == b.anchors.tolist()
    assert resumed[0].negatives.tolist() == first[1].negatives.tolist()
    batch = first[0]
    ids, offsets = batch.sentences.ids.numpy(), batch.sentences.offsets.numpy()
    rows = [ids[offsets[i] : offsets[i] + batch.sentences.lengths[i]].tolist() for i in range(len(offsets))]

    def sentence_of(position):
        return d.sentences.sentence(int(position)).tolist()

    for k, anchor_row in enumerate(batch.anchors.tolist()):
        anchor = next(i for i in range(d.num_sentences) if sentence_of(i) == rows[anchor_row])
        for column, neighbour in enumerate((d.previous[anchor], d.next[anchor])):
            row = int(batch.positives[k, column])
            if neighbour == NO_NEIGHBOUR:
                assert row == NO_NEIGHBOUR
            else:
                assert rows[row] == sentence_of(neighbour)
    assert (
        list(d.batches(epoch=1, seed=5, batch_size=2))[0].anchors.tolist() != []
        and d.fingerprint() == data().fingerprint()
    )
    assert d.fingerprint() != data(num_negatives=1).fingerprint()


def test_too_little_text_is_an_error():
    tokenizer = WordTokenizer.from_vocabulary(["a", "b"], unknown="skip")
    with pytest.raises(ValueError, match="at least 4"):
        DocumentData.from_documents([Document("x", ("a", "b", "a"))], tokenizer)
    with pytest.raises(ValueError, match="no document has three adjacent"):
        DocumentData.from_documents([Document(str(i), ("a", "b")) for i in range(3)], tokenizer)
