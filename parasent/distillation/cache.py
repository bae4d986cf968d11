"""A disk cache of teacher embeddings, addressed by text: each text is encoded once, ever.

A cache directory holds one folder per teacher (its fingerprint); each folder holds shards,
safetensors files with ``keys`` (a 16-byte BLAKE2b digest of each text, uint8 ``(n, 16)``)
and ``vectors`` (float32 ``(n, dim)``). Shards are written atomically every ``chunk`` texts
while the teacher runs, so a killed run keeps all but the chunk in progress, and a run over
a different set of texts (another pool, more corpus) computes only what is new. No pickle.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from parasent.errors import ModelFormatError
from parasent.support.path_names import native_path
from parasent.support.paths import CACHE_ENV_VAR as ENV_VAR
from parasent.support.paths import default_cache_dir
from parasent.support.regular_files import regular_size
from parasent.support.staging import staged_file

__all__ = ["ENV_VAR", "DIGEST_BYTES", "EmbeddingCache", "default_cache_dir", "text_key"]
DIGEST_BYTES = 16


def text_key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=DIGEST_BYTES).digest()


class EmbeddingCache:
    """Embeddings of texts under one namespace (a teacher fingerprint) in ``directory``."""

    def __init__(self, directory: str | Path, namespace: str) -> None:
        self.directory = Path(directory) / namespace
        self.namespace = namespace
        self._keys: dict[bytes, tuple[int, int]] = {}
        self._shards: list[np.ndarray] = []
        self.dim: int | None = None
        self._load()

    def _load(self) -> None:
        from safetensors.numpy import load_file

        if not self.directory.is_dir():
            return
        for path in sorted(self.directory.glob("*.safetensors")):
            regular_size(path)  # a FIFO or a device is refused, never opened
            try:
                shard = load_file(native_path(path))
                keys, vectors = shard["keys"], shard["vectors"]
            except Exception as exc:  # safetensors raises its own types; KeyError for a foreign file
                raise ModelFormatError(f"{path}: not an embedding cache shard ({exc}); delete it") from exc
            self._check_shard(path, keys, vectors)
            self.dim = int(vectors.shape[1])
            index = len(self._shards)
            self._shards.append(vectors)
            for row, key in enumerate(keys):
                self._keys.setdefault(key.tobytes(), (index, row))

    def _check_shard(self, path: Path, keys: np.ndarray, vectors: np.ndarray) -> None:
        """A shard read back must be what :meth:`_write_shard` writes: the cache outlives runs and
        code versions, and a bad value would flow silently into every distilled vector."""
        if vectors.ndim != 2 or keys.shape != (len(vectors), DIGEST_BYTES) or keys.dtype != np.uint8:
            raise ModelFormatError(f"{path}: inconsistent cache shard shapes; delete it")
        if vectors.dtype.kind != "f":
            raise ModelFormatError(f"{path}: cache vectors are {vectors.dtype}, not floats; delete it")
        if self.dim is not None and vectors.shape[1] != self.dim:
            raise ModelFormatError(
                f"{path}: dimension {vectors.shape[1]}, other shards have {self.dim}; delete it"
            )
        if not np.isfinite(vectors).all():
            raise ModelFormatError(f"{path}: cache shard has non-finite values (NaN or inf); delete it")

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, text: str) -> bool:
        return text_key(text) in self._keys

    def _write_shard(self, keys: list[bytes], vectors: np.ndarray) -> None:
        from safetensors.numpy import save_file

        self.directory.mkdir(parents=True, exist_ok=True)
        name = f"{time.time_ns():020d}-{os.getpid()}"
        key_array = np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(len(keys), DIGEST_BYTES)
        arrays = {"keys": key_array, "vectors": np.ascontiguousarray(vectors, dtype=np.float32)}
        with staged_file(self.directory / f"{name}.safetensors", overwrite=False) as tmp:
            save_file(arrays, native_path(tmp))
        index = len(self._shards)
        self._shards.append(np.asarray(vectors, dtype=np.float32))
        for row, key in enumerate(keys):
            self._keys.setdefault(key, (index, row))
        self.dim = int(vectors.shape[1])

    def put(self, texts: Sequence[str], vectors: np.ndarray) -> int:
        """Store the vectors of texts not cached yet (one shard); returns how many were new."""
        keys, rows = [], []
        for row, text in enumerate(texts):
            key = text_key(text)
            if key not in self._keys and key not in keys:
                keys.append(key)
                rows.append(row)
        if keys:
            self._write_shard(keys, np.asarray(vectors, dtype=np.float32)[rows])
        return len(keys)

    def get(
        self,
        texts: Sequence[str],
        compute: Callable[[list[str]], np.ndarray],
        *,
        chunk: int = 4096,
        progress: bool = False,
        desc: str = "teacher",
    ) -> np.ndarray:
        """``(len(texts), dim)`` embeddings, calling ``compute`` only on texts not cached yet.

        Missing texts are computed shortest first (less padding in the teacher's batches), in
        chunks that are each saved as a shard before the next starts.
        """
        keys = [text_key(t) for t in texts]
        missing: dict[bytes, str] = {}
        for key, text in zip(keys, texts, strict=True):
            if key not in self._keys:
                missing.setdefault(key, text)
        if missing:
            todo = sorted(missing.items(), key=lambda item: len(item[1]))
            from tqdm.auto import tqdm

            with tqdm(total=len(todo), desc=desc, unit="text", disable=not progress, mininterval=2.0) as bar:
                for start in range(0, len(todo), chunk):
                    part = todo[start : start + chunk]
                    vectors = np.asarray(compute([text for _, text in part]), dtype=np.float32)
                    if vectors.shape[0] != len(part):
                        raise ValueError(f"compute returned {vectors.shape[0]} vectors for {len(part)} texts")
                    if self.dim is not None and vectors.shape[1] != self.dim:
                        raise ModelFormatError(
                            f"{self.directory}: cached vectors have dimension {self.dim}, the teacher gives "
                            f"{vectors.shape[1]}"
                        )
                    if not np.isfinite(vectors).all():
                        raise ValueError("the teacher returned non-finite embeddings (NaN or inf)")
                    self._write_shard([key for key, _ in part], vectors)
                    bar.update(len(part))
        if not keys:
            return np.zeros((0, self.dim or 0), dtype=np.float32)
        out = np.empty((len(keys), self.dim), dtype=np.float32)
        locations = np.array([self._keys[key] for key in keys], dtype=np.int64)
        for index in np.unique(locations[:, 0]):
            rows = np.flatnonzero(locations[:, 0] == index)
            out[rows] = self._shards[index][locations[rows, 1]]
        return out
