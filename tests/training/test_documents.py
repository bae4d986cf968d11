import numpy as np
import pytest

from parasent.data.corpus import Document
from parasent.text.tokenizer import WordTokenizer
from parasent.training.documents import NO_NEIGHBOUR, DocumentData


def data(num_negatives=2):
    documents = [
        Document(
            "a", ("w0 w1", "w2", "zzz", "w3 w4")
        ),  # "zzz" is unknown: skipped, w2 and w3 become adjacent
        Document("b", ("w5",)),  # one sentence: no neighbour, never an anchor
        Document("c", ("w6", "w7", "w8")),
    ]
    tokenizer = WordTokenizer.from_vocabulary([f"w{i}" for i in range(9)], unknown="skip")
    return DocumentData.from_documents(documents, tokenizer, num_negatives)


def test_neighbours_stay_inside_documents_and_skip_empty_sentences():
    d = data()
    assert d.num_sentences == 7  # "zzz" removed
    assert d.previous.tolist() == [NO_NEIGHBOUR, 0, 1, NO_NEIGHBOUR, NO_NEIGHBOUR, 4, 5]
    assert d.next.tolist() == [1, 2, NO_NEIGHBOUR, NO_NEIGHBOUR, 5, 6, NO_NEIGHBOUR]
    assert d.anchors.tolist() == [0, 1, 2, 4, 5, 6]
    assert len(d) == 6 and d.num_batches(4) == 2


def test_negatives_are_never_the_sentence_or_its_neighbours():
    d = data(num_negatives=3)
    rng = np.random.default_rng(0)
    anchors = np.repeat(d.anchors, 200)
    negatives = d.draw_negatives(anchors, rng)
    assert negatives.shape == (len(anchors), 3)
    for forbidden in (anchors, d.previous[anchors], d.next[anchors]):
        assert not (negatives == forbidden[:, None]).any()
    assert set(np.unique(negatives)) == set(range(d.num_sentences))  # every other sentence is possible


def test_batches_gather_the_right_sentences_and_are_reproducible():
    d = data()
    first = list(d.batches(epoch=0, seed=5, batch_size=4))
    again = list(d.batches(epoch=0, seed=5, batch_size=4))
    resumed = list(d.batches(epoch=0, seed=5, batch_size=4, start=1))
    assert [len(b) for b in first] == [4, 2]
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
        list(d.batches(epoch=1, seed=5, batch_size=4))[0].anchors.tolist() != []
        and d.fingerprint() == data().fingerprint()
    )
    assert d.fingerprint() != data(num_negatives=1).fingerprint()


def test_too_little_text_is_an_error():
    tokenizer = WordTokenizer.from_vocabulary(["a", "b"], unknown="skip")
    with pytest.raises(ValueError, match="at least 4"):
        DocumentData.from_documents([Document("x", ("a", "b", "a"))], tokenizer)
    with pytest.raises(ValueError, match="no document has two"):
        DocumentData.from_documents([Document(str(i), ("a",)) for i in range(5)], tokenizer)
