import pytest
import torch

from parasent.encoders.batch import TokenBatch
from parasent.encoders.identity_rnn import IdentityRNN
from parasent.encoders.rnn import RNN
from parasent.encoders.word_averaging import WordAveraging
from parasent.objectives.margin import MarginLoss
from parasent.text import Tokenized


def batch(sentences):
    return TokenBatch.from_tokenized(Tokenized.from_lists(sentences))


@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_rnn_last_hidden_state(activation):
    torch.manual_seed(0)
    encoder = RNN(10, 4, activation=activation, hidden_dim=5).eval()
    encoder.set_embeddings(torch.randn(10, 4))
    f = torch.tanh if activation == "tanh" else torch.relu
    sentences = [[2, 3, 4], [5], []]
    out = encoder(batch(sentences)).detach()
    assert out.shape == (3, 5) and encoder.output_dim == 5
    for i, sentence in enumerate(sentences):
        h = torch.zeros(5)
        for token in sentence:
            x = encoder.embedding.weight.detach()[token]
            h = f(
                encoder.input.weight.detach() @ x
                + encoder.recurrent.weight.detach() @ h
                + encoder.input.bias.detach()
            )
        torch.testing.assert_close(out[i], h, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="activation"):
        RNN(10, 4, activation="linear")


def test_identity_rnn_starts_as_word_averaging_and_is_pulled_back():
    torch.manual_seed(1)
    table = torch.randn(10, 4)
    irnn, average = IdentityRNN(10, 4), WordAveraging(10, 4)
    irnn.set_embeddings(table)
    average.set_embeddings(table)
    sentences = batch([[2, 3, 4], [5], [6, 6, 7, 8, 9], []])
    torch.testing.assert_close(irnn(sentences), average(sentences))
    assert irnn.config() == {"name": "identity_rnn", "vocab_size": 10, "embedding_dim": 4}

    objective = MarginLoss(irnn, lambda_c=10.0, composition_to_initial=True)
    assert float(objective.composition().detach()) == 0.0  # at I, I and 0 there is nothing to pull back
    with torch.no_grad():
        irnn.recurrent.weight.add_(0.1)
    penalty = objective.composition()
    assert abs(float(penalty.detach()) - 10.0 * 16 * 0.01) < 1e-4  # lambda_c ||W_h - I||^2
    penalty.backward()
    assert (irnn.recurrent.weight.grad > 0).all()  # the gradient points back towards I
    assert IdentityRNN.composition_prior == "initial" and RNN.composition_prior == "zero"
