"""Training pairs read from a prepared directory (``parasent prepare``), shard by shard.

The epoch order is drawn from the seed alone, in two levels, so that memory follows the
shard size and a resumed run sees the batches of an uninterrupted one:

- the order of the shards: a permutation drawn from ``(seed, epoch)``;
- the order of the pairs inside each shard: a permutation drawn from ``(seed, epoch, shard)``.

Position ``p`` of an epoch is found by walking the shards in their epoch order, so a batch
(consecutive positions) may straddle two shards. At most two shards are open (memory
mapped) at a time; a closed shard's pages go back to the operating system.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import torch

from parasent.data.training_text.shards import TOKENIZER, PreparedCorpus, Shard, tokenizer_hash
from parasent.encoders.batch import TokenBatch
from parasent.errors import DataFormatError
from parasent.text.tokenized import Tokenized
from parasent.training.batching import BatchSource, training_tokens
from parasent.training.pairs import PairBatch

if TYPE_CHECKING:
    from parasent.text.featurizers import Featurizer

OPEN_SHARDS = 2


class PreparedPairs(BatchSource):
    """A batch source (see :class:`~parasent.training.trainer.Trainer`) over prepared shards.

    Rows are global pair numbers (shard ``k`` holds rows ``starts[k]:starts[k + 1]``), the
    same currency as :class:`~parasent.training.pairs.PairData`'s, so both serve the
    distributed and mega-batch wrappers alike.
    """

    def __init__(self, corpus: PreparedCorpus) -> None:
        self.corpus = corpus
        self.starts = np.concatenate([[0], np.cumsum(corpus.shard_pairs)])
        self._open: OrderedDict[int, Shard] = OrderedDict()
        self._permutations: OrderedDict[tuple[int, int, int], np.ndarray] = OrderedDict()

    @classmethod
    def open(cls, directory: str | Path) -> PreparedPairs:
        return cls(PreparedCorpus.open(directory))

    def tokenizer(self) -> Featurizer:
        """The prepared directory's tokenizer, checked against the hash in its manifest."""
        from parasent.text.featurizers import tokenizer_from_string

        path = self.corpus.directory / TOKENIZER
        text = path.read_text(encoding="utf-8")
        if tokenizer_hash(text) != self.corpus.manifest["tokenizer_sha256"]:
            raise DataFormatError(path, 1, "does not match the tokenizer hash of manifest.json")
        return tokenizer_from_string(text, self.corpus.manifest["tokenizer_config"])

    def __len__(self) -> int:
        return self.corpus.num_pairs

    # epoch order -----------------------------------------------------------------------
    def shard_order(self, epoch: int, seed: int) -> np.ndarray:
        return np.random.default_rng([seed, epoch, 0]).permutation(self.corpus.num_shards)

    def _permutation(self, epoch: int, seed: int, shard: int) -> np.ndarray:
        key = (seed, epoch, shard)
        if key not in self._permutations:
            size = int(self.corpus.shard_pairs[shard])
            self._permutations[key] = np.random.default_rng([seed, epoch, 1, shard]).permutation(size)
            while len(self._permutations) > OPEN_SHARDS:
                self._permutations.popitem(last=False)
        return self._permutations[key]

    def positions(self, epoch: int, seed: int, start: int, stop: int) -> np.ndarray:
        """Global rows at positions ``start:stop`` of the epoch's order."""
        order = self.shard_order(epoch, seed)
        sizes = self.corpus.shard_pairs[order]
        bounds = np.concatenate([[0], np.cumsum(sizes)])
        positions = np.arange(start, min(stop, len(self)), dtype=np.int64)
        slots = np.searchsorted(bounds, positions, side="right") - 1
        rows = np.empty(len(positions), dtype=np.int64)
        for slot in np.unique(slots):
            shard = int(order[slot])
            here = slots == slot
            rows[here] = (
                self._permutation(epoch, seed, shard)[positions[here] - bounds[slot]] + self.starts[shard]
            )
        return rows

    def rows_of_batch(self, epoch: int, seed: int, batch_size: int, index: int) -> np.ndarray:
        return self.positions(epoch, seed, index * batch_size, (index + 1) * batch_size)

    # batches ---------------------------------------------------------------------------
    def _shard(self, index: int) -> Shard:
        if index in self._open:
            self._open.move_to_end(index)
        else:
            self._open[index] = self.corpus.shard(index)
            while len(self._open) > OPEN_SHARDS:
                self._open.popitem(last=False)  # unmapped once no batch refers to it
        return self._open[index]

    def batch(
        self,
        rows: np.ndarray,
        device: torch.device | str | None = None,
        rng: np.random.Generator | None = None,
    ) -> PairBatch:
        """The pairs of global ``rows`` (in that order), gathered from their shards."""
        rows = np.asarray(rows, dtype=np.int64)
        shards = np.searchsorted(self.starts, rows, side="right") - 1
        parts = []
        for shard in dict.fromkeys(shards.tolist()):  # in order of first appearance
            here = np.flatnonzero(shards == shard)
            parts.append((here, self._shard(shard).take(rows[here] - self.starts[shard])))
        order = np.argsort(np.concatenate([here for here, _ in parts]), kind="stable")
        left = training_tokens(Tokenized.concatenate([p[1][0] for p in parts]).take(order))
        right = training_tokens(Tokenized.concatenate([p[1][1] for p in parts]).take(order))
        left_ids = np.concatenate([p[1][2] for p in parts])[order]
        right_ids = np.concatenate([p[1][3] for p in parts])[order]
        return PairBatch(
            TokenBatch.from_tokenized(left, device),
            TokenBatch.from_tokenized(right, device),
            torch.from_numpy(left_ids).to(device),
            torch.from_numpy(right_ids).to(device),
        )

    def fingerprint(self) -> str:
        return self.corpus.fingerprint()

    def vocabulary_rows(self) -> np.ndarray:
        """Token ids that occur in the prepared sentences (from the manifest's counts)."""
        return np.flatnonzero(self.corpus.token_counts())
