from collections import Counter

import pytest
import torch

from parasent.encoders.batch import TokenBatch
from parasent.encoders.char_cnn import CharCNN
from parasent.encoders.charagram import Charagram
from parasent.text import Tokenized
from parasent.text.characters import CharNgramTokenizer


@pytest.mark.parametrize("activation", ["tanh", "linear"])
def test_charagram_is_counts_times_matrix_plus_bias(activation):
    texts = ["a cat", "the cat sat", "a hat"]
    tokenizer = CharNgramTokenizer.from_texts(texts)
    torch.manual_seed(0)
    encoder = Charagram(tokenizer.vocab_size, 5, activation=activation)
    with torch.no_grad():
        encoder.bias.normal_()
    out = encoder(TokenBatch.from_tokenized(tokenizer.encode_batch(["the cat", "a bat"]))).detach()
    f = torch.tanh if activation == "tanh" else (lambda x: x)
    for i, text in enumerate(["the cat", "a bat"]):
        counts = torch.zeros(tokenizer.vocab_size)
        for gram, k in Counter(tokenizer.grams(text)).items():
            index = tokenizer.token_to_id(gram)
            if index is not None:  # n-grams outside the vocabulary have no column
                counts[index] = k
        expected = f(encoder.embedding.weight.detach().T @ counts + encoder.bias.detach())
        torch.testing.assert_close(out[i], expected, rtol=1e-5, atol=1e-5)
    assert [p.shape for p in encoder.composition_parameters()] == [torch.Size([5])]


def test_char_cnn_is_convolution_max_pooling_and_a_dense_layer():
    torch.manual_seed(1)
    encoder = CharCNN(
        12, 4, widths=(2, 3), feature_maps=3, filter_activation="tanh", output_activation="linear"
    )
    encoder.eval()
    sentences = [[2, 3, 4, 5, 6], [7, 8], [9]]
    out = encoder(TokenBatch.from_tokenized(Tokenized.from_lists(sentences)))
    for i, sentence in enumerate(sentences):
        x = encoder.embedding.weight.detach()[sentence].T.unsqueeze(0)
        pooled = []
        for width, conv in zip(encoder.widths, encoder.convolutions, strict=True):
            padded = torch.nn.functional.pad(x, (0, max(0, width - x.shape[2])))
            pooled.append(torch.tanh(conv(padded)).amax(dim=2)[0])
        expected = encoder.output(torch.cat(pooled))
        torch.testing.assert_close(out[i], expected, rtol=1e-5, atol=1e-5)
    assert encoder.output_dim == 4
