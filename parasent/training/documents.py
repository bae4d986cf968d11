"""Documents tokenized once, batched as Siamese CBOW examples (Kenter et al. 2016, Sec. 2.1).

An example is a sentence s_i of a document with its two neighbours s_{i-1} and s_{i+1} in
the same document (the positives S+: "the sentences preceding and following the input
sentence", Sec. 2.1, a network with two positive inputs, Fig. 1) and ``n`` sentences drawn
at random from the whole corpus that are neither s_i nor a neighbour of it (the negatives
S-). A sentence that lacks a neighbour (the first and last of a document) is not an anchor;
it is still a positive of its neighbour and a possible negative of others.

Sentences without any in-vocabulary word (after the tokenizer's unknown-word policy) have no
vector and are removed, but adjacency is that of the original text: the sentences on either
side of a removed one are not neighbours (each lacks one, and is no anchor). ``dropped``
counts the sentences that are not anchors, by reason. All randomness (epoch order,
negatives) is a function of ``(seed, epoch, batch)``, so a resumed run sees exactly the
batches of an uninterrupted one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from parasent.data.training_text.corpus import Document
from parasent.encoders.batch import TokenBatch
from parasent.text.tokenized import Tokenized
from parasent.training.batching import BatchSource, training_tokens

NO_NEIGHBOUR = -1


@dataclass
class ContextBatch:
    """The unique sentences of a batch, and each example's rows among them.

    ``anchors`` (B,), ``positives`` (B, 2: previous, next) and ``negatives`` (B, n) index
    rows of ``sentences``.
    """

    sentences: TokenBatch
    anchors: torch.Tensor
    positives: torch.Tensor
    negatives: torch.Tensor

    def __len__(self) -> int:
        return int(self.anchors.shape[0])


class DocumentData(BatchSource):
    """Sentences of all documents in one CSR array, with each sentence's neighbours.

    ``positions`` are the sentences' indices in their documents' original text (before empty
    sentences were removed; default: consecutive), so that only sentences adjacent in the
    text are neighbours. ``empty`` is the number of sentences removed before (reported).
    """

    def __init__(
        self,
        sentences: Tokenized,
        document_ids: np.ndarray,
        num_negatives: int = 2,
        *,
        positions: np.ndarray | None = None,
        empty: int = 0,
    ) -> None:
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
        if positions is None:
            positions = np.arange(n)
        positions = np.asarray(positions, dtype=np.int64)
        adjacent = (self.document_ids[1:] == self.document_ids[:-1]) & (positions[1:] == positions[:-1] + 1)
        self.previous = np.full(n, NO_NEIGHBOUR, dtype=np.int64)
        self.next = np.full(n, NO_NEIGHBOUR, dtype=np.int64)
        index = np.arange(n, dtype=np.int64)
        self.previous[1:][adjacent] = index[:-1][adjacent]
        self.next[:-1][adjacent] = index[1:][adjacent]
        neighbours = (self.previous != NO_NEIGHBOUR).astype(int) + (self.next != NO_NEIGHBOUR)
        self.anchors = index[neighbours == 2]
        self.dropped = {
            "one neighbour": int((neighbours == 1).sum()),
            "no neighbour": int((neighbours == 0).sum()),
            "empty": int(empty),
        }
        if len(self.anchors) == 0:
            raise ValueError(
                "no document has three adjacent non-empty sentences: no sentence has both neighbours"
            )

    @classmethod
    def from_documents(cls, documents: Sequence[Document], tokenizer, num_negatives: int = 2) -> DocumentData:
        texts = [s for document in documents for s in document.sentences]
        sizes = [len(d) for d in documents]
        owners = np.repeat(np.arange(len(documents)), sizes)
        positions = np.concatenate([np.arange(size) for size in sizes]) if texts else np.zeros(0, np.int64)
        tokenized = training_tokens(tokenizer.encode_batch(texts))
        keep = np.flatnonzero(tokenized.lengths > 0)
        return cls(
            tokenized.take(keep),
            owners[keep],
            num_negatives,
            positions=positions[keep],
            empty=len(texts) - len(keep),
        )

    def summary(self) -> str:
        """How many sentences are anchors, and why the others are not."""
        total = self.num_sentences + self.dropped["empty"]
        return (
            f"siamese-cbow: {len(self)} of {total} sentences are anchors (both neighbours present); "
            f"not anchors: {self.dropped['one neighbour']} with one neighbour (document edges, or next "
            f"to an empty sentence), {self.dropped['no neighbour']} with none, {self.dropped['empty']} "
            "empty (no known word)"
        )

    def __len__(self) -> int:
        return len(self.anchors)

    @property
    def num_sentences(self) -> int:
        return len(self.sentences)

    def order(self, epoch: int, seed: int, batch_size: int | None = None) -> np.ndarray:
        """The anchors (the sentences with both neighbours), shuffled."""
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
