"""charLSTM, the character LSTM baseline of the CHARAGRAM supplement: the peephole LSTM of
:mod:`parasent.encoders.lstm` run over the characters of the sentence (with spaces and
boundary markers), last hidden state, with or without the output gate (tuned there)."""

from __future__ import annotations

import math

from parasent.encoders.lstm import LSTM


class CharLSTM(LSTM):
    """Character embeddings start random, N(0, 1/D) (the supplement: "randomly initialized
    character embeddings for all unique characters in the training data")."""

    def __init__(
        self, vocab_size: int, embedding_dim: int, output_gate: bool = True, hidden_dim: int | None = None
    ) -> None:
        super().__init__(vocab_size, embedding_dim, output_gate=output_gate, hidden_dim=hidden_dim)
        self.randomize_embeddings(1.0 / math.sqrt(embedding_dim))
