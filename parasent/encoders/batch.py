"""The batch the training loop and the encoders exchange: the token ids of a batch of
sentences as torch tensors, flat with offsets (:class:`TokenBatch`).

It is built from a :class:`~parasent.text.tokenized.Tokenized` (the numpy flat arrays of a
tokenizer) by the batch sources of ``training/`` and by :func:`parasent.encoders.base.encode_batches`,
combined by the objectives (``concat``: both sides of the pairs in one call), and read by every
encoder's ``forward``. It lives here, in its own module of ``encoders/``, because that is the
lowest layer allowed to import torch (docs/architecture.md): beside ``Tokenized`` in ``text/``
it would bring torch into what numpy inference imports, and in ``training/`` the encoders
(below it) could not read it. Encoders, objectives and the loop all import it downward.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from parasent.text.tokenized import Tokenized
from parasent.text.tokenizer import PAD_ID


@dataclass
class TokenBatch:
    """Token ids of a batch of sentences, flat with offsets (no padding in the storage).

    Encoders that read sequences call :meth:`padded`; averaging encoders read the flat
    ids directly, so their cost does not depend on the longest sentence.
    """

    ids: torch.Tensor  # (N,) long
    offsets: torch.Tensor  # (B,) long, start of each sentence
    lengths: torch.Tensor  # (B,) long

    @classmethod
    def from_tokenized(cls, tokenized: Tokenized, device: torch.device | str | None = None) -> TokenBatch:
        ids = torch.from_numpy(np.ascontiguousarray(tokenized.ids, dtype=np.int64))
        offsets = torch.from_numpy(np.ascontiguousarray(tokenized.offsets[:-1], dtype=np.int64))
        lengths = torch.from_numpy(np.ascontiguousarray(tokenized.lengths, dtype=np.int64))
        return cls(ids.to(device), offsets.to(device), lengths.to(device))

    def __len__(self) -> int:
        return int(self.offsets.shape[0])

    @classmethod
    def concat(cls, batches: Sequence[TokenBatch]) -> TokenBatch:
        """One batch holding the sentences of ``batches`` in order."""
        starts, total = [], 0
        for b in batches:
            starts.append(b.offsets + total)
            total += int(b.ids.shape[0])
        return cls(
            torch.cat([b.ids for b in batches]),
            torch.cat(starts),
            torch.cat([b.lengths for b in batches]),
        )

    def padded(self, pad_id: int = PAD_ID) -> tuple[torch.Tensor, torch.Tensor]:
        """``(ids, mask)`` of shape ``(B, T)``, right-padded with ``pad_id``; mask is True on tokens."""
        batch, longest = len(self), int(self.lengths.max()) if len(self) else 0
        positions = torch.arange(longest, device=self.ids.device)
        mask = positions.unsqueeze(0) < self.lengths.unsqueeze(1)
        ids = torch.full((batch, longest), pad_id, dtype=self.ids.dtype, device=self.ids.device)
        ids[mask] = self.ids
        return ids, mask

    def sentence_of_token(self) -> torch.Tensor:
        """``(N,)`` index of the sentence each flat token belongs to."""
        return torch.repeat_interleave(torch.arange(len(self), device=self.ids.device), self.lengths)
