"""Documents tokenized once, batched as Siamese CBOW examples (Kenter et al. 2016, Sec. 2.1).

An example is a sentence s_i of a document with its neighbours s_{i-1} and s_{i+1} in the
same document (the positives S+; one at a document edge) and ``n`` sentences drawn at random
from the whole corpus that are neither s_i nor a neighbour of it (the negatives S-).

Sentences without any in-vocabulary word (after the tokenizer's unknown-word policy) are
removed before neighbours are formed, so that every sentence of an example has a vector; a
document needs two sentences left to give an example. All randomness (epoch order,
negatives) is a function of ``(seed, epoch, batch)``, so a resumed run sees exactly the
batches of an uninterrupted one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from parasent.data.corpus import Document
from parasent.encoders.base import TokenBatch
from parasent.text.tokenized import Tokenized
from parasent.training.batching import BatchSource

NO_NEIGHBOUR = -1


@dataclass
class ContextBatch:
    """The unique sentences of a batch, and each example's rows among them.

    ``anchors`` (B,), ``positives`` (B, 2: previous, next; -1 where the document ends) and
    ``negatives`` (B, n) index rows of ``sentences``.
    """

    sentences: TokenBatch
    anchors: torch.Tensor
    positives: torch.Tensor
    negatives: torch.Tensor

    def __len__(self) -> int:
        return int(self.anchors.shape[0])


class DocumentData(BatchSource):
    """Sentences of all documents in one CSR array, with each sentence's neighbours."""

    def __init__(self, sentences: Tokenized, document_ids: np.ndarray, num_negatives: int = 2) -> None:
        if len(sentences) != len(document_ids):
            raise ValueError("one document id per sentence is required")
        if num_negatives < 1:
            raise ValueError(f"num_negatives must be at least 1, got {num_negatives}")
        self.sentences = sentences
        self.document_ids = np.asarray(document_ids, dtype=np.int64)
        self.num_negatives = num_negatives
        n = len(sentences)
        if n < 4:
            raise ValueError(f"Siamese CBOW needs at least 4 non-empty sentences, got {n}")
        same_as_next = self.document_ids[1:] == self.document_ids[:-1]
        self.previous = np.full(n, NO_NEIGHBOUR, dtype=np.int64)
        self.next = np.full(n, NO_NEIGHBOUR, dtype=np.int64)
        index = np.arange(n, dtype=np.int64)
        self.previous[1:][same_as_next] = index[:-1][same_as_next]
        self.next[:-1][same_as_next] = index[1:][same_as_next]
        self.anchors = index[(self.previous != NO_NEIGHBOUR) | (self.next != NO_NEIGHBOUR)]
        if len(self.anchors) == 0:
            raise ValueError("no document has two non-empty sentences: there is no neighbour to predict")

    @classmethod
    def from_documents(cls, documents: Sequence[Document], tokenizer, num_negatives: int = 2) -> DocumentData:
        texts = [s for document in documents for s in document.sentences]
        owners = np.repeat(np.arange(len(documents)), [len(d) for d in documents])
        tokenized = tokenizer.encode_batch(texts)
        keep = np.flatnonzero(tokenized.lengths > 0)
        return cls(tokenized.take(keep), owners[keep], num_negatives)

    def __len__(self) -> int:
        return len(self.anchors)

    @property
    def num_sentences(self) -> int:
        return len(self.sentences)

    def order(self, epoch: int, seed: int, batch_size: int | None = None) -> np.ndarray:
        """The sentences with two neighbours (the examples), shuffled."""
        return self.anchors[np.random.default_rng([seed, epoch]).permutation(len(self))]

    def draw_negatives(self, anchors: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """``(B, n)`` sentences drawn uniformly from the corpus, none of them s_i or its neighbours."""
        shape = (len(anchors), self.num_negatives)
        negatives = rng.integers(0, self.num_sentences, size=shape)
        while True:
            near = (
                (negatives == anchors[:, None])
                | (negatives == self.previous[anchors][:, None])
                | (negatives == self.next[anchors][:, None])
            )
            if not near.any():
                return negatives
            negatives[near] = rng.integers(0, self.num_sentences, size=int(near.sum()))

    def batch(
        self,
        anchors: np.ndarray,
        device: torch.device | str | None = None,
        rng: np.random.Generator | None = None,
    ) -> ContextBatch:
        positives = np.stack([self.previous[anchors], self.next[anchors]], axis=1)
        negatives = self.draw_negatives(anchors, rng if rng is not None else np.random.default_rng(0))
        rows = np.concatenate([anchors, positives.ravel(), negatives.ravel()])
        unique, inverse = np.unique(rows[rows != NO_NEIGHBOUR], return_inverse=True)
        position = np.full(rows.shape, NO_NEIGHBOUR, dtype=np.int64)
        position[rows != NO_NEIGHBOUR] = inverse
        b, n = len(anchors), self.num_negatives
        return ContextBatch(
            TokenBatch.from_tokenized(self.sentences.take(unique), device),
            torch.from_numpy(position[:b].copy()).to(device),
            torch.from_numpy(position[b : 3 * b].reshape(b, 2).copy()).to(device),
            torch.from_numpy(position[3 * b :].reshape(b, n).copy()).to(device),
        )

    def fingerprint_parts(self) -> list:
        """The sentences' token ids, their documents and n: a resumed run must match."""
        return [self.sentences.ids, self.sentences.offsets, self.document_ids, str(self.num_negatives)]
