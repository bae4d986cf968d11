"""The data side of the one training loop: a dataset cut into seeded, shuffled batches.

:class:`~parasent.training.trainer.Trainer` reads pairs (the margin objective), documents
(Siamese CBOW) and labelled examples (supervised heads) through this one interface, so that
an epoch's batches depend only on ``(seed, epoch)`` and a run resumes mid-epoch exactly.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np
import torch

from parasent.text.tokenized import Tokenized

# Tokens of a sentence that training reads (its first ones, as a transformer reads its
# max_seq_length; all-MiniLM-L6-v2 reads 256 pieces): a batch's memory and time stay bounded
# whatever one line's length (a one-epoch contextual run on 30 pairs of 6,000-word lines, no
# teacher: 12.0 s and 2.6 GB peak reading every token, 7.4 s and 0.74 GB reading 512). The
# papers' sentences are far shorter; encoding reads every token.
TRAINING_TOKENS = 512


def training_tokens(tokenized: Tokenized) -> Tokenized:
    """``tokenized`` with each sentence cut to its first :data:`TRAINING_TOKENS`."""
    return tokenized.head(TRAINING_TOKENS)


class BatchSource:
    """What the :class:`~parasent.training.trainer.Trainer` reads: ``__len__`` (examples),
    ``num_batches(batch_size)``, ``batches(epoch, seed, batch_size, start=, device=)`` and
    ``fingerprint()`` (which a resumed run must match).

    The implementations here serve sources of rows (pairs, documents, labelled examples,
    teacher sentences): a subclass holds ``sentences`` (token ids) and gives ``__len__``,
    ``batch(rows, device, rng)`` and ``fingerprint_parts()``; ``order`` may be overridden
    (length buckets, anchors). A source composed of others
    (:class:`~parasent.training.sentences.MixedData`) overrides the four members instead.
    """

    sentences: Tokenized

    def __len__(self) -> int:
        raise NotImplementedError

    def batch(
        self,
        rows: np.ndarray,
        device: torch.device | str | None = None,
        rng: np.random.Generator | None = None,
    ) -> Any:
        """The batch of ``rows``; ``rng`` (seeded per batch) serves sources that draw at random."""
        raise NotImplementedError

    def fingerprint_parts(self) -> Iterable[np.ndarray | str]:
        """What a resumed run must see unchanged."""
        raise NotImplementedError

    def num_batches(self, batch_size: int) -> int:
        return -(-len(self) // batch_size)

    def order(self, epoch: int, seed: int, batch_size: int | None = None) -> np.ndarray:
        """Rows of an epoch; consecutive ``batch_size`` slices are its batches."""
        return np.random.default_rng([seed, epoch]).permutation(len(self))

    def batches(
        self,
        epoch: int,
        seed: int,
        batch_size: int,
        *,
        start: int = 0,
        device: torch.device | str | None = None,
    ) -> Iterator[Any]:
        """The steps of an epoch from ``start``: the one loop of every source, wrappers included
        (rank slices, mega-batches, mixed data), which say only what step ``index`` is
        (:meth:`batch_at`), so a resumed run and an uninterrupted one cannot diverge by source."""
        self.__dict__.pop("_epoch_order", None)  # drawn afresh for each pass
        for index in range(start, self.num_batches(batch_size)):
            yield self.batch_at(epoch, seed, batch_size, index, device)

    def batch_at(
        self, epoch: int, seed: int, batch_size: int, index: int, device: torch.device | str | None = None
    ) -> Any:
        """The batch of step ``index`` of an epoch, with a generator seeded by the step alone."""
        rng = np.random.default_rng([seed, epoch, index, 17])
        return self.batch(self.rows_of_batch(epoch, seed, batch_size, index), device, rng)

    def rows_of_batch(self, epoch: int, seed: int, batch_size: int, index: int) -> np.ndarray:
        """The rows of step ``index``: a ``batch_size`` slice of the epoch's :meth:`order`, which
        is drawn once per epoch and kept while its steps are read."""
        key = (epoch, seed, batch_size)
        kept = self.__dict__.get("_epoch_order")
        if kept is None or kept[0] != key:
            kept = (key, self.order(epoch, seed, batch_size))
            self.__dict__["_epoch_order"] = kept
        return kept[1][index * batch_size : (index + 1) * batch_size]

    def fingerprint(self) -> str:
        """A short digest of :meth:`fingerprint_parts`."""
        digest = hashlib.sha256()
        for part in self.fingerprint_parts():
            digest.update(part.encode() if isinstance(part, str) else np.ascontiguousarray(part).tobytes())
        return digest.hexdigest()[:16]

    def vocabulary_rows(self) -> np.ndarray:
        """Token ids that occur in the training sentences."""
        return np.unique(self.sentences.ids)
