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
        order = self.order(epoch, seed, batch_size)
        for b in range(start, self.num_batches(batch_size)):
            rng = np.random.default_rng([seed, epoch, b, 17])
            yield self.batch(order[b * batch_size : (b + 1) * batch_size], device, rng)

    def fingerprint(self) -> str:
        """A short digest of :meth:`fingerprint_parts`."""
        digest = hashlib.sha256()
        for part in self.fingerprint_parts():
            digest.update(part.encode() if isinstance(part, str) else np.ascontiguousarray(part).tobytes())
        return digest.hexdigest()[:16]

    def vocabulary_rows(self) -> np.ndarray:
        """Token ids that occur in the training sentences."""
        return np.unique(self.sentences.ids)
