import pytest
import torch

from parasent.encoders.batch import TokenBatch
from parasent.encoders.char_lstm import CharLSTM
from parasent.encoders.lstm import LSTM
from parasent.text import Tokenized


def reference(encoder, sentence):
    """The equations of Wieting et al. (2016) Sec. 3 (Gers et al. peepholes), one token at a time."""
    size = encoder.hidden_dim
    wx, b = encoder.input.weight.detach(), encoder.input.bias.detach()
    wh, p = encoder.recurrent.weight.detach(), encoder.peephole.detach()
    h, c = torch.zeros(size), torch.zeros(size)
    for token in sentence:
        x = encoder.embedding.weight.detach()[token]
        z = wx @ x + wh @ h + b
        i = torch.sigmoid(z[:size] + p[0] * c)
        f = torch.sigmoid(z[size : 2 * size] + p[1] * c)
        c = f * c + i * torch.tanh(z[2 * size : 3 * size])
        if encoder.output_gate:
            o = torch.sigmoid(z[3 * size :] + p[2] * c)  # the output gate peeks at c_t, not c_{t-1}
            h = o * torch.tanh(c)
        else:
            h = torch.tanh(c)
    return h


@pytest.mark.parametrize("output_gate", [True, False])
def test_matches_the_paper_equations(output_gate):
    torch.manual_seed(0)
    encoder = LSTM(12, 4, output_gate=output_gate, hidden_dim=3).eval()
    encoder.set_embeddings(torch.randn(12, 4))
    with torch.no_grad():
        encoder.peephole.normal_()
        encoder.input.bias.normal_()
    assert encoder.peephole.shape == (3 if output_gate else 2, 3)
    sentences = [[2, 3, 4, 5], [6], [], [7, 8]]
    out = encoder(TokenBatch.from_tokenized(Tokenized.from_lists(sentences))).detach()
    assert out.shape == (4, 3)
    for i, sentence in enumerate(sentences):
        torch.testing.assert_close(out[i], reference(encoder, sentence), rtol=1e-5, atol=1e-6)


def test_peepholes_and_all_weights_get_gradients():
    torch.manual_seed(1)
    encoder = LSTM(12, 4)
    out = encoder(TokenBatch.from_tokenized(Tokenized.from_lists([[2, 3, 4], [5, 6]])))
    out.sum().backward()
    for name, parameter in encoder.named_parameters():
        assert parameter.grad is not None, name
    assert encoder.peephole.grad.abs().sum() > 0


def test_char_lstm_is_the_same_cell_over_characters():
    torch.manual_seed(2)
    char = CharLSTM(12, 4, output_gate=False).eval()
    word = LSTM(12, 4, output_gate=False).eval()
    word.load_state_dict(char.state_dict())
    batch = TokenBatch.from_tokenized(Tokenized.from_lists([[2, 3, 4], [5]]))
    torch.testing.assert_close(char(batch), word(batch))
    assert char.embedding.weight[1:].std() < 1.0  # random N(0, 1/D) start, not N(0, 1)
