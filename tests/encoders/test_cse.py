import pytest
import torch
import torch.nn.functional as F

from parasent.encoders.batch import TokenBatch
from parasent.encoders.cse import CSE, split_maps
from parasent.text import Tokenized


def batch(sentences):
    return TokenBatch.from_tokenized(Tokenized.from_lists(sentences))


def test_width_one_linear_is_a_projection_of_the_sum():
    torch.manual_seed(0)
    encoder = CSE(20, 6, widths=(1,), feature_maps=6, activation="linear").eval()
    encoder.set_embeddings(torch.randn(20, 6))
    sentences = [[2, 3, 4, 4], [5], [6, 7]]
    out = encoder(batch(sentences)).detach()
    table = encoder.embedding.weight.detach()
    weight = encoder.convolutions[0].weight.detach()[:, :, 0]  # (maps, D)
    bias = encoder.convolutions[0].bias.detach()
    for i, sentence in enumerate(sentences):
        expected = weight @ table[sentence].sum(0) + len(sentence) * bias  # W (sum_i x_i) + n b
        torch.testing.assert_close(out[i], expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("activation", ["linear", "tanh"])
def test_equals_a_library_convolution_with_sum_pooling(activation):
    torch.manual_seed(1)
    encoder = CSE(30, 5, widths=(1, 2, 3), feature_maps=[4, 3, 2], activation=activation).eval()
    encoder.set_embeddings(torch.randn(30, 5))
    sentences = [[2, 3, 4, 5, 6, 7], [8], [9, 10], [11, 12, 13]]
    out = encoder(batch(sentences)).detach()
    assert out.shape == (4, 9)
    f = torch.tanh if activation == "tanh" else (lambda x: x)
    for i, sentence in enumerate(sentences):
        x = encoder.embedding.weight.detach()[sentence].T.unsqueeze(0)  # (1, D, n)
        parts = []
        for width, conv in zip(encoder.widths, encoder.convolutions, strict=True):
            padded = F.pad(x, (0, max(0, width - x.shape[2])))  # shorter than the filter: zero-padded
            parts.append(f(conv(padded)).sum(dim=2)[0])
        torch.testing.assert_close(out[i], torch.cat(parts), rtol=1e-5, atol=1e-5)


def test_maps_follow_the_word_dimension_and_empty_sentence_is_zero():
    assert split_maps(300, 3) == [100, 100, 100]
    assert split_maps(50, 3) == [17, 17, 16]
    encoder = CSE(10, 50)
    assert encoder.output_dim == 50 and encoder.config()["feature_maps"] == [17, 17, 16]
    assert not encoder(batch([[]])).any()
    with pytest.raises(ValueError, match="activation"):
        CSE(10, 4, activation="relu")
    with pytest.raises(ValueError, match="feature_maps"):
        CSE(10, 4, feature_maps=[1, 2])
