"""The interface every encoder implements, and running one over a tokenized corpus."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from parasent.encoders.batch import TokenBatch
from parasent.encoders.class_names import encoder_name
from parasent.text.tokenized import Tokenized
from parasent.text.tokenizer import PAD_ID

if TYPE_CHECKING:
    from parasent.text.featurizers import Featurizer


class Encoder(nn.Module):
    """A sentence encoder: token ids in, one vector per sentence out.

    Every encoder owns a word (or character) embedding ``self.embedding`` whose rows are
    the parameters ``W_w`` of the papers; other trainable parameters are the composition
    parameters ``W_c`` (Eq. 1 regularises them with ``lambda_c``). ``config()`` returns the
    keyword arguments that rebuild the module, which is what ``config.json`` stores.
    """

    #: What ``lambda_c`` pulls the composition parameters towards: ``"zero"`` (plain L2, Eq. 1)
    #: or ``"initial"`` (their starting values, as the identity-RNN of Sec. 3 does).
    composition_prior: ClassVar[str] = "zero"

    def __init__(self, vocab_size: int, embedding_dim: int) -> None:
        super().__init__()
        if vocab_size < 2 or embedding_dim < 1:
            raise ValueError(
                f"vocab_size must be >= 2 and embedding_dim >= 1, got {vocab_size}, {embedding_dim}"
            )
        self.vocab_size = vocab_size
        self.embedding_dim = embedding_dim
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=PAD_ID, sparse=True)
        # Dropout on the embedding vectors while training (Jiao et al. 2018, Sec. 4.1, after
        # Srivastava et al. 2014). A training option, not part of the model: not in config().
        self.dropout = 0.0

    def embed_sum(self, batch: TokenBatch) -> torch.Tensor:
        """``(B, D)`` sum of each sentence's embedding vectors (zero for an empty sentence).

        Runs as an ``embedding_bag`` over the flat ids (sparse gradient, no padding); with
        dropout in training, the token vectors are gathered, dropped out and summed.
        """
        if self.dropout and self.training:
            vectors = self.embed(batch.ids)
            total = vectors.new_zeros(len(batch), vectors.shape[1])
            return total.index_add(0, batch.sentence_of_token(), vectors)
        return F.embedding_bag(batch.ids, self.embedding.weight, batch.offsets, mode="sum", sparse=True)

    def embed_padded(self, batch: TokenBatch) -> tuple[torch.Tensor, torch.Tensor]:
        """``(vectors (B, T, D), mask (B, T))`` right-padded with the zero ``[PAD]`` row."""
        ids, mask = batch.padded()
        return self.embed(ids), mask

    def embed(self, ids: torch.Tensor) -> torch.Tensor:
        """Embedding vectors of ``ids`` (any shape), with dropout while training."""
        vectors = self.embedding(ids)
        if self.dropout and self.training:
            vectors = F.dropout(vectors, self.dropout, training=True)
        return vectors

    @property
    def name(self) -> str:
        """The registry name (written into ``config.json``), from the entry naming this class."""
        return encoder_name(type(self))

    def forward(self, batch: TokenBatch) -> torch.Tensor:  # pragma: no cover - interface
        raise NotImplementedError

    @property
    def output_dim(self) -> int:
        return self.embedding_dim

    def hyperparameters(self) -> dict[str, Any]:
        """Encoder-specific keyword arguments beyond vocabulary size and dimension."""
        return {}

    def config(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "vocab_size": self.vocab_size,
            "embedding_dim": self.embedding_dim,
            **self.hyperparameters(),
        }

    def composition_parameters(self) -> list[nn.Parameter]:
        """``W_c``: every trainable parameter except the embedding."""
        return [p for name, p in self.named_parameters() if not name.startswith("embedding.")]

    def composition_weights(self) -> dict[str, np.ndarray]:
        """Every tensor of the state but the embedding, as float32 numpy copies: what a model
        composing an averaging model's rows stores beside its table."""
        return {
            name: tensor.detach().float().cpu().numpy().copy()
            for name, tensor in self.state_dict().items()
            if not name.startswith("embedding.")
        }

    def randomize_embeddings(self, std: float) -> None:
        """Draw every row from N(0, std^2) (padding row zero): for models without pretrained
        vectors, such as the character models of the CHARAGRAM supplement."""
        with torch.no_grad():
            self.embedding.weight.normal_(0.0, std)
            self.embedding.weight[PAD_ID].zero_()

    def set_embeddings(self, matrix: np.ndarray | torch.Tensor) -> None:
        matrix = torch.as_tensor(matrix, dtype=self.embedding.weight.dtype)
        if tuple(matrix.shape) != tuple(self.embedding.weight.shape):
            raise ValueError(
                f"embedding matrix has shape {tuple(matrix.shape)}, expected {tuple(self.embedding.weight.shape)}"
            )
        with torch.no_grad():
            self.embedding.weight.copy_(matrix)
            self.embedding.weight[PAD_ID].zero_()


def encode_batches(
    encoder: Encoder,
    tokenized: Tokenized,
    *,
    batch_size: int = 256,
    device: torch.device | str | None = None,
) -> np.ndarray:
    """Run ``encoder`` over a tokenized corpus in eval mode, batching by length to limit padding.

    The output row order is that of ``tokenized``; each encoder's output is independent of
    how a batch is padded, so sorting by length changes nothing but speed.
    """
    device = device or next(encoder.parameters()).device
    output = np.zeros((len(tokenized), encoder.output_dim), dtype=np.float32)
    order = np.argsort(tokenized.lengths, kind="stable")
    was_training = encoder.training
    encoder.eval()
    try:
        with torch.no_grad():
            for start in range(0, len(order), batch_size):
                index = order[start : start + batch_size]
                batch = TokenBatch.from_tokenized(tokenized.take(index), device)
                output[index] = encoder(batch).float().cpu().numpy()
    finally:
        encoder.train(was_training)
    return output


class TorchEncoderModel:
    """Adapter giving a torch encoder the ``encode`` method evaluators use (during training)."""

    def __init__(
        self, encoder: Encoder, tokenizer: Featurizer, device: torch.device | str | None = None
    ) -> None:
        self.encoder = encoder
        self.tokenizer = tokenizer
        self.device = device

    def encode(self, sentences: Sequence[str], batch_size: int = 256, **_: Any) -> np.ndarray:
        return encode_batches(
            self.encoder, self.tokenizer.encode_batch(sentences), batch_size=batch_size, device=self.device
        )

    def oov_rate(self, sentences: Sequence[str]) -> float:
        unknown, total = self.tokenizer.oov_counts(sentences)
        return unknown / total if total else 0.0
