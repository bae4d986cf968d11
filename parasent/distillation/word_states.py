"""The teacher's contextual state of every word of a text, on disk, addressed by text.

A mean-pooling teacher's sentence embedding is the mean of its token states; parasent's word
of a text is given the mean of the teacher tokens that start inside it
(:func:`parasent.distillation.contextual.word_means`), the state the contextual student's
per-token term matches (:mod:`parasent.distillation.token_targets`). The store mirrors the
sentence cache (:class:`parasent.distillation.cache.EmbeddingCache`): safetensors shards in a
folder of the teacher's, each with ``keys`` (the texts' 16-byte digests), ``offsets`` (where
each text's words start in ``states``) and ``states`` (float16 ``(words, dim)``), written
atomically every chunk while the teacher runs, so a killed pass keeps all but the chunk in
progress and each text is passed once, ever. A word the teacher's length limit cut has a row
of NaN, which the targets leave out.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from parasent.distillation.contextual import word_spans
from parasent.distillation.text_keys import DIGEST_BYTES, text_key
from parasent.errors import ModelFormatError, WeightsFormatError
from parasent.support.mmap_weights import map_safetensors
from parasent.support.path_names import native_path
from parasent.support.regular_files import regular_size
from parasent.support.staging import staged_file

FOLDER = "word-states"
CHUNK = 2048  # texts passed and saved at a time


class WordStateCache:
    """Per-word teacher states of texts, in ``directory`` (a teacher's cache folder)."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory) / FOLDER
        self._keys: dict[bytes, tuple[int, int]] = {}
        self._shards: list[tuple[np.ndarray, np.ndarray]] = []  # (offsets, states)
        self.dim: int | None = None
        if self.directory.is_dir():
            for path in sorted(self.directory.glob("*.safetensors")):
                self._add(*self._read(path))

    def _read(self, path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A shard's keys and offsets, and its states mapped from the file (read as used: the
        cache holds every run's texts, a run asks for its own)."""
        regular_size(path)  # a FIFO or a device is refused, never opened
        try:
            shard = map_safetensors(path)
            keys, offsets, states = shard["keys"], np.array(shard["offsets"]), shard["states"]
        except (WeightsFormatError, KeyError, OSError, ValueError) as exc:  # KeyError: a foreign file
            raise ModelFormatError(f"{path}: not a word-state cache shard ({exc}); delete it") from exc
        consistent = (
            states.dtype == np.float16
            and offsets.dtype == np.int64
            and keys.dtype == np.uint8
            and keys.ndim == 2
            and keys.shape[1] == DIGEST_BYTES
            and offsets.shape == (len(keys) + 1,)
            and states.ndim == 2
            and offsets[0] == 0
            and offsets[-1] == len(states)
            and bool(np.all(np.diff(offsets) >= 0))
            and (self.dim is None or states.shape[1] == self.dim)
        )
        if not consistent:
            raise ModelFormatError(f"{path}: inconsistent word-state cache shard; delete it")
        return keys, offsets, states

    def _add(self, keys: np.ndarray, offsets: np.ndarray, states: np.ndarray) -> None:
        index = len(self._shards)
        self._shards.append((offsets, states))
        for row, key in enumerate(keys):
            self._keys[bytes(key)] = (index, row)  # a later shard (a text passed again) wins
        self.dim = int(states.shape[1])

    def __len__(self) -> int:
        return len(self._keys)

    def _write(self, keys: list[bytes], states: list[np.ndarray]) -> None:
        from safetensors.numpy import save_file

        self.directory.mkdir(parents=True, exist_ok=True)
        offsets = np.zeros(len(states) + 1, dtype=np.int64)
        np.cumsum([len(s) for s in states], out=offsets[1:])
        key_array = np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(len(keys), DIGEST_BYTES)
        flat = np.concatenate(states).astype(np.float16)
        name = f"{time.time_ns():020d}-{os.getpid()}"
        with staged_file(self.directory / f"{name}.safetensors", overwrite=False) as tmp:
            save_file({"keys": key_array, "offsets": offsets, "states": flat}, native_path(tmp))
        self._add(key_array, offsets, flat)

    def get(
        self,
        texts: Sequence[str],
        compute: Callable[[list[str]], list[np.ndarray]],
        *,
        progress: bool = False,
        desc: str = "teacher (word states)",
    ) -> list[np.ndarray]:
        """Each text's ``(words, dim)`` float16 states, calling ``compute`` (texts -> their
        arrays) only on texts not stored yet, shortest first, a chunk at a time."""
        keys = [text_key(t) for t in texts]
        missing = {key: text for key, text in zip(keys, texts, strict=True) if self._lacks(key, text)}
        if missing:
            from tqdm.auto import tqdm

            todo = sorted(missing.items(), key=lambda item: len(item[1]))
            with tqdm(total=len(todo), desc=desc, unit="text", disable=None if progress else True) as bar:
                for start in range(0, len(todo), CHUNK):
                    part = todo[start : start + CHUNK]
                    states = compute([text for _, text in part])
                    if len(states) != len(part):
                        raise ValueError(f"compute returned {len(states)} arrays for {len(part)} texts")
                    self._write([key for key, _ in part], states)
                    bar.update(len(part))
        return [self._states(key) for key in keys]

    def missing(self, texts: Sequence[str]) -> list[str]:
        """The distinct ``texts`` a :meth:`get` would pass the teacher over."""
        return [text for text in dict.fromkeys(texts) if self._lacks(text_key(text), text)]

    def _lacks(self, key: bytes, text: str) -> bool:
        """Whether the text is not stored with one state per word of it as parasent splits it
        now (a split that changed since makes the stored rows another text's: passed again)."""
        return key not in self._keys or len(self._states(key)) != len(word_spans(text))

    def _states(self, key: bytes) -> np.ndarray:
        index, row = self._keys[key]
        offsets, states = self._shards[index]
        return states[offsets[row] : offsets[row + 1]]
