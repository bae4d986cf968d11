"""The batch source of mega-batch training: groups of M mini-batches whose MAX negatives are
chosen among the whole group (:mod:`parasent.objectives.megabatch`).

The groups of an epoch are a function of the step count alone: a group starts at batch 0
of every epoch and holds ``M(step)`` mini-batches, where ``M`` is the ``--megabatch`` size,
or, with an annealing period ``N``, ``min(M, 1 + step // N)`` (the mega-batch grows by one
every N steps; Wieting et al.'s ParaNMT code anneals the same way). The negatives a group
chose are part of the training state: a run stopped inside a group is checkpointed with
them, and resumes with the very negatives the uninterrupted run used.
"""

from __future__ import annotations

import bisect
from typing import Any

import torch

from parasent.encoders.batch import TokenBatch
from parasent.objectives.megabatch import localize, select_in_megabatch
from parasent.training.batching import BatchSource


class MegabatchData(BatchSource):
    """Wraps a pair batch source (``PairData``, ``PreparedPairs``) for ``Trainer``; ``encoder`` is
    the model being trained (it encodes each group, without gradient, before the group's steps)."""

    def __init__(self, data: Any, encoder: torch.nn.Module, size: int, anneal: int = 0) -> None:
        if size < 1 or anneal < 0:
            raise ValueError(f"megabatch size must be >= 1 and anneal >= 0, got {size}, {anneal}")
        self.data = data
        self.encoder = encoder
        self.size = size
        self.anneal = anneal
        self._group: dict[str, Any] | None = None  # the negatives of the group in progress
        self._built: tuple[tuple[int, int, int, int], list] | None = None  # its batches
        self._groups: tuple[tuple[int, int], list[tuple[int, int]]] | None = None

    def __len__(self) -> int:
        return len(self.data)

    def __getattr__(self, name: str) -> Any:  # fingerprint, vocabulary_rows, ... of the pairs
        if name == "data":
            raise AttributeError(name)
        return getattr(self.data, name)

    def num_batches(self, batch_size: int) -> int:
        return self.data.num_batches(batch_size)

    def fingerprint(self) -> str:
        return self.data.fingerprint()

    def vocabulary_rows(self) -> Any:
        return self.data.vocabulary_rows()

    def size_at(self, step: int) -> int:
        """Mini-batches per group for a group starting at (0-based) optimizer step ``step``."""
        if not self.anneal:
            return self.size
        return min(self.size, 1 + step // self.anneal)

    def groups(self, epoch: int, batch_size: int) -> list[tuple[int, int]]:
        """``(first batch, number of batches)`` of every group of ``epoch``."""
        total = self.num_batches(batch_size)
        groups, start = [], 0
        while start < total:
            count = min(self.size_at(epoch * total + start), total - start)
            groups.append((start, count))
            start += count
        return groups

    def _select(self, batches: list) -> list[tuple[torch.Tensor, ...]]:
        sizes = [len(b) for b in batches]
        tokens = TokenBatch.concat([side for b in batches for side in (b.left, b.right)])
        ids = torch.cat([side for b in batches for side in (b.left_ids, b.right_ids)])
        was_training = self.encoder.training
        self.encoder.eval()
        try:
            with torch.no_grad():
                vectors = self.encoder(tokens)
        finally:
            self.encoder.train(was_training)
        return select_in_megabatch(vectors, sizes, ids)

    def _group_of(self, epoch: int, batch_size: int, index: int) -> tuple[int, int]:
        """``(first batch, number of batches)`` of the group holding batch ``index`` (the groups
        of an epoch are drawn once and kept while its steps are read)."""
        key = (epoch, batch_size)
        if self._groups is None or self._groups[0] != key:
            self._groups = (key, self.groups(epoch, batch_size))
        firsts = [first for first, _ in self._groups[1]]
        return self._groups[1][bisect.bisect_right(firsts, index) - 1]

    def batch_at(
        self, epoch: int, seed: int, batch_size: int, index: int, device: torch.device | str | None = None
    ) -> Any:
        """Batch ``index`` with the negatives its group chose. The group's batches are read and
        encoded at its first step read; a run resumed inside a group takes the negatives saved
        in the checkpoint, the very ones the uninterrupted run chose."""
        first, count = self._group_of(epoch, batch_size, index)
        key = (epoch, seed, batch_size, first)
        if self._built is None or self._built[0] != key:
            batches = [
                self.data.batch_at(epoch, seed, batch_size, b, device) for b in range(first, first + count)
            ]
            saved = self._group
            if index > first and saved is not None and (saved["epoch"], saved["first"]) == (epoch, first):
                chosen = [tuple(t.to(vectors_device(batches)) for t in c) for c in saved["chosen"]]
            else:
                chosen = self._select(batches)
            self._group = {"epoch": epoch, "first": first, "chosen": chosen}
            pool = TokenBatch.concat([side for b in batches for side in (b.left, b.right)])
            offset = 0
            for position, (batch, picked) in enumerate(zip(batches, chosen, strict=True)):
                if first + position >= index:
                    batch.negatives = localize(picked, offset, len(batch), pool)
                offset += 2 * len(batch)
            self._built = (key, batches)
        return self._built[1][index - first]

    # training state (the trainer stores it in the checkpoint) ---------------------------
    def state_dict(self) -> dict[str, Any]:
        if self._group is None:
            return {}
        return {
            "epoch": self._group["epoch"],
            "first": self._group["first"],
            "chosen": [list(c) for c in self._group["chosen"]],
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self._group = self._built = None
        if state:
            chosen = [tuple(c) for c in state["chosen"]]
            self._group = {"epoch": int(state["epoch"]), "first": int(state["first"]), "chosen": chosen}


def vectors_device(batches: list) -> torch.device:
    return batches[0].left.ids.device
