"""Sentences with teacher targets, and a batch source mixing them with paraphrase pairs.

Both are batch sources (:class:`~parasent.training.batching.BatchSource`) for the
:class:`~parasent.training.trainer.Trainer`: batches are
gathered with vectorised numpy (no per-example Python work) and their order is a function of
``(seed, epoch, batch)`` alone, so a resumed run sees exactly the batches of an
uninterrupted one.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import torch

from parasent.distillation.token_targets import TokenTargets
from parasent.encoders.batch import TokenBatch
from parasent.text.tokenized import Tokenized
from parasent.training.batching import BatchSource, training_tokens
from parasent.training.pairs import PairBatch, PairData


@dataclass
class SentenceBatch:
    tokens: TokenBatch
    targets: torch.Tensor  # (B, teacher_dim) float32
    token_rows: torch.Tensor | None = None  # (M,) positions in ``tokens.ids`` that have a target
    token_targets: torch.Tensor | None = None  # (M, dim) float32: theirs (distillation/token_targets.py)

    def __len__(self) -> int:
        return len(self.tokens)


class SentenceTargets(BatchSource):
    """Tokenized sentences (CSR, each read to its first
    :data:`~parasent.training.batching.TRAINING_TOKENS`) and a
    ``(n, dim)`` float32 matrix of teacher embeddings; with ``token_targets``
    (:class:`~parasent.distillation.token_targets.TokenTargets` of ``sentences``' positions),
    each batch also carries its tokens' targets."""

    def __init__(
        self,
        sentences: Tokenized,
        targets: np.ndarray,
        *,
        neighbours: bool = False,
        token_targets: TokenTargets | None = None,
    ) -> None:
        if len(sentences) != len(targets):
            raise ValueError(f"{len(sentences)} sentences but {len(targets)} targets")
        self.sentences = training_tokens(sentences)
        self.targets = np.ascontiguousarray(targets, dtype=np.float32)
        self.neighbours = neighbours
        if token_targets is not None and len(token_targets.row_of) != len(sentences.ids):
            raise ValueError(f"{len(sentences.ids)} tokens but {len(token_targets.row_of)} token targets")
        if token_targets is not None and self.sentences is not sentences:  # cut as the sentences were
            token_targets = token_targets.cut(kept_positions(sentences, self.sentences))
        self.token_targets = token_targets

    def __len__(self) -> int:
        return len(self.sentences)

    def order(self, epoch: int, seed: int, batch_size: int | None = None, *, cycle: int = 0) -> np.ndarray:
        """Sentences of an epoch; ``cycle`` numbers the restarts when mixed with pairs. With
        ``neighbours`` (and a batch size), each batch holds sentences the teacher places near
        each other (:func:`neighbour_order`)."""
        rng = np.random.default_rng([seed, epoch, cycle, 1])
        if self.neighbours and batch_size:
            return neighbour_order(self.targets, batch_size, rng)
        return rng.permutation(len(self))

    def batch(
        self,
        indices: np.ndarray,
        device: torch.device | str | None = None,
        rng: np.random.Generator | None = None,
    ) -> SentenceBatch:
        batch = SentenceBatch(
            TokenBatch.from_tokenized(self.sentences.take(indices), device),
            torch.from_numpy(self.targets[indices]).to(device),
        )
        if self.token_targets is not None:
            rows = self.token_targets.row_of[self.sentences.positions(indices)]
            has = np.flatnonzero(rows >= 0)
            batch.token_rows = torch.from_numpy(has).to(device)
            values = self.token_targets.values[rows[has]].astype(np.float32)
            batch.token_targets = torch.from_numpy(values).to(device)
        return batch

    def fingerprint_parts(self) -> list:
        """Token ids and a sample of the targets (rounded: a re-computed cache still matches)."""
        sample = np.round(self.targets[:: max(1, len(self) // 1000)], 4)
        parts = [self.sentences.ids, self.sentences.offsets, sample]
        if self.token_targets is not None:  # which tokens have one (exact; their values are recomputed)
            parts.append(self.token_targets.row_of)
        return parts + (["neighbours"] if self.neighbours else [])


def kept_positions(whole: Tokenized, cut: Tokenized) -> np.ndarray:
    """The positions in ``whole`` of ``cut``'s tokens, ``cut`` holding each sentence's first tokens."""
    return np.repeat(whole.offsets[:-1] - cut.offsets[:-1], cut.lengths) + np.arange(cut.offsets[-1])


def neighbour_order(targets: np.ndarray, batch_size: int, rng: np.random.Generator) -> np.ndarray:
    """A permutation whose consecutive ``batch_size`` slices are neighbourhoods of ``targets``.

    Random-hyperplane hashing (Charikar 2002): the signs of ``bits`` random projections, read
    as a binary number with the first plane highest, put two vectors at angle theta in the same
    code with probability ``(1 - theta / pi) ** bits``; sorting by code (ties at random) puts
    shared leading planes next to each other, so a slice holds about ``batch_size`` sentences of
    one cell of ``log2(n / batch_size)`` planes. The full slices are then shuffled (a short one
    stays last: batches are cut at multiples of ``batch_size``). An in-batch term
    over cosines (the relational term) then compares near sentences, where a student and its
    teacher disagree most (the near misses a duplicate detector must tell apart), instead of
    unrelated ones whose cosines are low for both. Fresh planes each epoch."""
    n = len(targets)
    bits = int(min(30, max(1, np.ceil(np.log2(max(n / batch_size, 2))) + 2)))
    planes = rng.standard_normal((targets.shape[1], bits)).astype(np.float32)
    signs = (targets @ planes > 0).astype(np.int64)
    codes = signs @ (1 << np.arange(bits - 1, -1, -1, dtype=np.int64))
    return shuffled_slices(np.lexsort((rng.random(n), codes)), batch_size, rng)


def shuffled_slices(ranked: np.ndarray, batch_size: int, rng: np.random.Generator) -> np.ndarray:
    """``ranked`` cut into slices of ``batch_size``, the full ones in a random order and the short
    one last, so that batches cut at multiples of ``batch_size`` are each one slice."""
    whole = len(ranked) - len(ranked) % batch_size
    slices = ranked[:whole].reshape(-1, batch_size)
    return np.concatenate([slices[rng.permutation(len(slices))].reshape(-1), ranked[whole:]])


@dataclass
class MixedBatch:
    """A batch of paraphrase pairs and a batch of teacher sentences (either may be None)."""

    pairs: PairBatch | None
    sentences: SentenceBatch | None

    def __len__(self) -> int:
        return len(self.pairs) if self.pairs is not None else len(self.sentences or ())


class MixedData(BatchSource):
    """A batch source whose steps each take ``batch_size`` pairs and ``sentence_batch_size``
    teacher sentences.

    An epoch is one pass over the larger of the two sources; the smaller one restarts (a new
    permutation per cycle) as often as needed, so every step carries both kinds of batch.
    ``len()`` is the number of pairs (or sentences, without pairs).
    """

    def __init__(
        self, pairs: PairData | None, sentences: SentenceTargets | None, sentence_batch_size: int
    ) -> None:
        if pairs is None and sentences is None:
            raise ValueError("mixed data needs pairs or sentences")
        if sentences is not None and sentence_batch_size < 1:
            raise ValueError(f"sentence_batch_size must be >= 1, got {sentence_batch_size}")
        self.pairs = pairs if pairs is not None and len(pairs) else None
        self.sentences = sentences if sentences is not None and len(sentences) else None
        self.sentence_batch_size = sentence_batch_size
        self._orders: dict[tuple, np.ndarray] = {}
        if self.pairs is None and self.sentences is None:
            raise ValueError("mixed data needs at least one pair or one sentence")

    def __len__(self) -> int:
        return len(self.pairs) if self.pairs is not None else len(self.sentences)

    def num_batches(self, batch_size: int) -> int:
        counts = []
        if self.pairs is not None:
            counts.append(self.pairs.num_batches(batch_size))
        if self.sentences is not None:
            counts.append(self.sentences.num_batches(self.sentence_batch_size))
        return max(counts)

    def _order(self, source: str, epoch: int, seed: int, cycle: int) -> np.ndarray:
        """Permutation of a source for one cycle of an epoch (cycle 0 of the pairs is the order
        plain pair training uses); the last few are kept, as every batch asks for one."""
        key = (source, epoch, seed, cycle)
        if key not in self._orders:
            if source == "sentences":
                order = self.sentences.order(epoch, seed, self.sentence_batch_size, cycle=cycle)
            elif cycle == 0:
                order = self.pairs.order(epoch, seed)
            else:
                order = np.random.default_rng([seed, epoch, cycle, 0]).permutation(len(self.pairs))
            if len(self._orders) >= 8:
                self._orders.pop(next(iter(self._orders)))
            self._orders[key] = order
        return self._orders[key]

    @staticmethod
    def _indices(order_of, total: int, size: int, batch: int) -> np.ndarray:
        """Indices of batch ``batch`` of an epoch when the source restarts every ``total`` items."""
        per_cycle = -(-total // size)
        cycle, within = divmod(batch, per_cycle)
        return order_of(cycle)[within * size : (within + 1) * size]

    def batch_at(
        self, epoch: int, seed: int, batch_size: int, index: int, device: torch.device | str | None = None
    ) -> MixedBatch:
        """The batch of step ``index`` of an epoch: pairs and teacher sentences."""
        pairs = sentences = None
        if self.pairs is not None:
            chosen = self._indices(
                lambda c: self._order("pairs", epoch, seed, c),
                len(self.pairs),
                batch_size,
                index,
            )
            pairs = self.pairs.batch(chosen, device)
        if self.sentences is not None:
            chosen = self._indices(
                lambda c: self._order("sentences", epoch, seed, c),
                len(self.sentences),
                self.sentence_batch_size,
                index,
            )
            sentences = self.sentences.batch(chosen, device)
        return MixedBatch(pairs, sentences)

    def fingerprint(self) -> str:
        """The digest of the two sources' fingerprints and the sentence batch size."""
        parts = [
            self.pairs.fingerprint() if self.pairs is not None else "-",
            self.sentences.fingerprint() if self.sentences is not None else "-",
            str(self.sentence_batch_size),
        ]
        return hashlib.sha256(":".join(parts).encode()).hexdigest()[:16]
