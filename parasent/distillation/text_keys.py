"""The key a teacher's caches store a text under: a 16-byte BLAKE2b digest of its UTF-8 bytes
(the sentence embeddings, :mod:`parasent.distillation.cache`; the word states,
:mod:`parasent.distillation.word_states`)."""

from __future__ import annotations

import hashlib

DIGEST_BYTES = 16


def text_key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=DIGEST_BYTES).digest()
