"""The ``features`` setting on an averaging model: each training text encoded once, by numpy.

With the encoder frozen (Wieting et al. 2016, Sec. 4.4.2: the representations as features), a
head run needs each text's vector, not the encoder: the texts' vectors are computed once by the
numpy model and become the rows of a frozen one-row-per-text table, each text a single token of
it, so the loop (:class:`~parasent.training.trainer.Trainer`) trains the head alone at the
cost of a lookup per example, and the model it validates and saves is the starting model
itself, unchanged (int8 stays int8).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from parasent.text.tokenized import Tokenized
from parasent.training.row_subset import continued_metadata

if TYPE_CHECKING:
    from parasent.core.model import SentenceModel
    from parasent.encoders.base import Encoder


class TextRows:
    """A featurizer whose tokens are whole texts: text ``k`` of ``texts`` is id ``k + 1`` (0 is
    the padding row). The checkpoint stores the model's own tokenizer."""

    def __init__(self, model: SentenceModel, texts: Sequence[str]) -> None:
        self.model = model
        self.index = {text: k + 1 for k, text in enumerate(dict.fromkeys(texts))}
        self.kind, self.unknown = model.tokenizer.kind, model.tokenizer.unknown

    @property
    def vocab_size(self) -> int:
        return len(self.index) + 1

    @property
    def tokenizer(self) -> Any:
        return self.model.tokenizer.tokenizer

    def encode_batch(self, texts: Any) -> Tokenized:
        try:
            ids = np.fromiter((self.index[t] for t in texts), dtype=np.int64)
        except KeyError:
            raise ValueError("a text outside the head run's texts: it has no row") from None
        return Tokenized(ids, np.arange(len(ids) + 1, dtype=np.int64))

    def config(self) -> dict[str, Any]:
        return self.model.tokenizer.config()

    def save(self, directory: str | Path) -> None:
        self.model.tokenizer.save(directory)

    def oov_counts(self, texts: Any) -> tuple[int, int]:
        return self.model.tokenizer.oov_counts(texts)

    @cached_property
    def vectors(self) -> np.ndarray:
        """Each distinct text's vector, in id order (row ``k`` is id ``k + 1``), encoded once."""
        return self.model.encode(list(self.index), batch_size=4096)

    def encoder(self) -> Encoder:
        """A frozen table: the padding row, then each text's vector."""
        from parasent.encoders import build_encoder

        vectors = self.vectors
        encoder = build_encoder(
            {"name": "word_averaging", "vocab_size": self.vocab_size, "embedding_dim": vectors.shape[1]}
        )
        table = np.zeros((self.vocab_size, vectors.shape[1]), dtype=np.float32)  # row 0: [PAD], zeros
        table[1:] = vectors
        encoder.set_embeddings(table)
        return encoder

    def unchanged(self, encoder: Encoder, metadata: dict[str, Any] | None = None) -> SentenceModel:
        """The model to validate and save: the starting model as it is (with ``metadata``)."""
        if metadata is None:
            return self.model
        model = self.model
        return type(model)(
            model.tokenizer, model.encoder_config, model.weights, metadata=continued_metadata(model, metadata)
        )
