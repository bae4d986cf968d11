import numpy as np
import pytest
import torch

from parasent.encoders import ENCODERS, build_encoder, encoder_entry
from parasent.encoders.base import encode_batches
from parasent.encoders.batch import TokenBatch
from parasent.encoders.word_averaging import WordAveraging
from parasent.text import Tokenized


def make_encoder(vocab=12, dim=5, seed=0):
    torch.manual_seed(seed)
    encoder = WordAveraging(vocab, dim)
    encoder.set_embeddings(torch.randn(vocab, dim))
    return encoder


def test_mean_of_word_vectors_and_empty_is_zero():
    encoder = make_encoder()
    table = encoder.embedding.weight.detach().numpy()
    corpus = Tokenized.from_lists([[2, 3, 3], [], [7]])
    out = encoder(TokenBatch.from_tokenized(corpus)).detach().numpy()
    np.testing.assert_allclose(out[0], table[[2, 3, 3]].mean(0), rtol=1e-6)
    np.testing.assert_array_equal(out[1], 0)
    np.testing.assert_allclose(out[2], table[7], rtol=1e-6)


def test_output_independent_of_batch_composition():
    encoder = make_encoder()
    sentences = [[2, 3], [4, 5, 6, 7, 8, 9, 10], [11]]
    alone = [encoder(TokenBatch.from_tokenized(Tokenized.from_lists([s]))).detach() for s in sentences]
    together = encoder(TokenBatch.from_tokenized(Tokenized.from_lists(sentences))).detach()
    for i, vector in enumerate(alone):
        torch.testing.assert_close(together[i], vector[0])
    via_sorting = encode_batches(encoder, Tokenized.from_lists(sentences), batch_size=2)
    np.testing.assert_allclose(via_sorting, together.numpy(), rtol=1e-6)


def test_gradient_is_sparse_and_touches_only_batch_rows():
    encoder = make_encoder()
    out = encoder(TokenBatch.from_tokenized(Tokenized.from_lists([[2, 3], [5]])))
    out.sum().backward()
    grad = encoder.embedding.weight.grad
    assert grad.is_sparse
    assert sorted(set(grad.coalesce().indices()[0].tolist())) == [2, 3, 5]


def test_registry_round_trip():
    entry = encoder_entry("word_averaging")
    assert entry.static and "word_averaging" in ENCODERS
    encoder = build_encoder(make_encoder().config())
    assert isinstance(encoder, WordAveraging) and encoder.vocab_size == 12
    with pytest.raises(KeyError, match="unknown encoder"):
        encoder_entry("nope")
