"""Teacher embeddings through a disk cache: the teacher loads only when the cache lacks a text,
so a second run with the same words and sentences never imports sentence-transformers."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from parasent.distillation.cache import EmbeddingCache, default_cache_dir
from parasent.distillation.contextual import ContextualSums
from parasent.distillation.teacher import Teacher, resolve_teacher_path, teacher_fingerprint

# Teacher inputs are truncated to 128 word pieces: all-MiniLM-L6-v2 was trained at this length
# (it serves up to 256), and less than 1% of the running-text sentences are longer.
TEACHER_MAX_LENGTH = 128


class CachedTeacher:
    """Teacher embeddings through the disk cache; the model loads on the first cache miss."""

    def __init__(
        self,
        teacher: str,
        *,
        cache_dir: str | Path | None = None,
        device: str | None = None,
        batch_size: int = 64,
        max_length: int | None = TEACHER_MAX_LENGTH,
        progress: bool = True,
    ) -> None:
        self.path = resolve_teacher_path(teacher)
        self.max_length = max_length
        self.fingerprint = teacher_fingerprint(self.path, max_length)
        self.cache = EmbeddingCache(
            Path(cache_dir) if cache_dir else default_cache_dir() / "teacher", self.fingerprint
        )
        self.device = device
        self.batch_size = batch_size
        self.progress = progress
        self._teacher: Teacher | None = None

    def _compute(self, texts: list[str]) -> np.ndarray:
        if self._teacher is None:
            self._teacher = Teacher(self.path, device=self.device, max_length=self.max_length)
        return self._teacher.encode(texts, batch_size=self.batch_size)

    def encode(self, texts: Sequence[str], *, desc: str = "teacher") -> np.ndarray:
        return self.cache.get(texts, self._compute, progress=self.progress, desc=desc)

    def contextual(self, texts: Sequence[str], *, chunk: int = 4096) -> ContextualSums | None:
        """Contextual word sums over ``texts`` (see :mod:`parasent.distillation.contextual`),
        from the cache or from one teacher pass that also caches the texts' sentence
        embeddings; None when the teacher is not a mean-pooling transformer."""
        from safetensors.numpy import load_file, save_file

        unique = sorted(set(texts))
        digest = hashlib.sha256("\n".join(unique).encode("utf-8")).hexdigest()[:16]
        path = self.cache.directory / "contextual" / f"{digest}.safetensors"
        if path.is_file():
            from safetensors import safe_open

            with safe_open(str(path), framework="np") as handle:
                words = json.loads(handle.metadata()["words"])
            arrays = load_file(str(path))
            return ContextualSums(words, arrays["sums"], arrays["counts"])
        if self._teacher is None:
            self._teacher = Teacher(self.path, device=self.device, max_length=self.max_length)
        if not self._teacher.mean_pooling():
            return None
        from tqdm.auto import tqdm

        from parasent.inference import normalize_rows

        sums = ContextualSums.empty(self._teacher.dim)
        ordered = sorted(unique, key=len)
        with tqdm(
            total=len(ordered),
            desc="teacher (contextual)",
            unit="text",
            disable=not self.progress,
            mininterval=2.0,
        ) as bar:
            for start in range(0, len(ordered), chunk):
                part = ordered[start : start + chunk]
                encoded = self._teacher.encode_tokens(part, batch_size=self.batch_size)
                means = np.stack([tokens.mean(axis=0) for tokens, _ in encoded])
                self.cache.put(part, normalize_rows(means))
                for text, (tokens, offsets) in zip(part, encoded, strict=True):
                    sums.add(text, tokens, offsets)
                bar.update(len(part))
        sums = sums.trimmed()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        save_file(
            {"sums": sums.sums, "counts": sums.counts}, str(tmp), metadata={"words": json.dumps(sums.words)}
        )
        tmp.replace(path)
        return sums

    def describe(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "fingerprint": self.fingerprint,
            "max_length": self.max_length,
            "cache": str(self.cache.directory),
        }
