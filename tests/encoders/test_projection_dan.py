import pytest
import torch

from parasent.encoders.batch import TokenBatch
from parasent.encoders.dan import DAN
from parasent.encoders.projection import Projection
from parasent.encoders.word_averaging import WordAveraging
from parasent.text import Tokenized

SENTENCES = [[2, 3, 4], [5], []]


def batch():
    return TokenBatch.from_tokenized(Tokenized.from_lists(SENTENCES))


def means(table):
    return torch.stack([table[s].mean(0) if s else torch.zeros(table.shape[1]) for s in SENTENCES])


def test_projection_of_the_mean():
    torch.manual_seed(0)
    encoder = Projection(8, 3)
    table = torch.randn(8, 3)
    encoder.set_embeddings(table)
    table[0] = 0
    expected = means(table) @ encoder.projection.weight.detach().T + encoder.projection.bias.detach()
    torch.testing.assert_close(encoder(batch()).detach(), expected)
    identity = Projection(8, 3, init="identity")
    identity.set_embeddings(table)
    average = WordAveraging(8, 3)
    average.set_embeddings(table)
    torch.testing.assert_close(identity(batch()), average(batch()))


@pytest.mark.parametrize("layers, activation", [(1, "tanh"), (2, "relu")])
def test_dan_layers(layers, activation):
    torch.manual_seed(1)
    encoder = DAN(8, 3, layers=layers, activation=activation)
    table = torch.randn(8, 3)
    encoder.set_embeddings(table)
    table[0] = 0
    h = means(table)
    f = torch.tanh if activation == "tanh" else torch.relu
    for layer in encoder.hidden:
        h = f(h @ layer.weight.detach().T + layer.bias.detach())
    torch.testing.assert_close(encoder(batch()).detach(), h)
    assert len(encoder.composition_parameters()) == 2 * layers
    with pytest.raises(ValueError):
        DAN(8, 3, layers=0)


def test_projection_to_a_higher_dimension_and_back_from_its_config():
    from parasent.encoders import build_encoder

    torch.manual_seed(0)
    wide = Projection(8, 3, output_dim=12)
    assert wide.output_dim == 12 and wide.projection.weight.shape == (12, 3)
    assert wide(batch()).shape == (3, 12)
    rebuilt = build_encoder(wide.config())
    assert rebuilt.output_dim == 12 and wide.config()["output_dim"] == 12
    assert "output_dim" not in Projection(8, 3).config()  # square: the config as it always was
    assert Projection(8, 3, init="identity", output_dim=3).output_dim == 3
    with pytest.raises(ValueError, match="square"):
        Projection(8, 3, init="identity", output_dim=5)  # zero rows would never get a gradient
    with pytest.raises(ValueError, match="output_dim"):
        Projection(8, 3, output_dim=0)
