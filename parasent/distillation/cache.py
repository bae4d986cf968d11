"""A teacher's cache: its embeddings on disk, addressed by text, and the teacher behind it.

The store (:class:`EmbeddingCache`): a cache directory holds one folder per teacher (its
fingerprint); each folder holds shards, safetensors files with ``keys`` (a 16-byte BLAKE2b
digest of each text, uint8 ``(n, 16)``) and ``vectors`` (float32 ``(n, dim)``). Shards are
written atomically every ``chunk`` texts while the teacher runs, so a killed run keeps all but
the chunk in progress, and a run over a different set of texts (another pool, more corpus)
computes only what is new: each text is encoded once, ever. No pickle.

The teacher through it (:class:`CachedTeacher`): the teacher loads only when the cache lacks a
text, so a second run with the same words and sentences never imports sentence-transformers;
its contextual sums are saved beside the shards and resumed, by one process or shared by
several (:func:`rank_share`).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from parasent.distillation.contextual import ContextualSums
from parasent.distillation.teacher import Teacher, resolve_teacher_path, teacher_fingerprint
from parasent.distillation.text_keys import DIGEST_BYTES, text_key
from parasent.errors import ModelFormatError
from parasent.support.path_names import native_path
from parasent.support.paths import default_cache_dir
from parasent.support.regular_files import exists, regular_size
from parasent.support.staging import staged_file


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

            with tqdm(
                total=len(todo), desc=desc, unit="text", disable=None if progress else True, mininterval=2.0
            ) as bar:
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


# Teacher inputs are truncated to 128 word pieces: all-MiniLM-L6-v2 was trained at this length
# (it serves up to 256), and less than 1% of the running-text sentences are longer.
TEACHER_MAX_LENGTH = 128
# A contextual pass saves its sums so far at most this often (a save writes the whole table).
CHECKPOINT_SECONDS = 120.0
# Stored contextual sums: words and subword pieces (``[p]`` tokens). The sums of an older
# parasent ("contextual/") hold words alone and are not read: pieces would silently start
# from the teacher's encoding of the piece alone.
CONTEXTUAL_FOLDER = "contextual-pieces"
# Texts a contextual pass encodes, caches and counts at a time; processes sharing a pass take
# whole chunks (:func:`rank_share`), so smaller chunks also balance them better.
CONTEXTUAL_CHUNK = 1024
# A teacher's tokenizer.json (mpnet: 0.7 MB, XLM-R: 17 MB); parsing costs memory in proportion.
MAX_TEACHER_TOKENIZER_BYTES = 256 << 20


@dataclass(frozen=True)
class Ranks:
    """One process of ``size`` sharing a teacher pass (``torchrun``, :mod:`parasent.distillation.corpus_pass`):
    its ``rank`` and a ``barrier`` that returns when every process has reached it."""

    rank: int
    size: int
    barrier: Callable[[], None]


def rank_share(texts: Sequence[str], rank: int, size: int, chunk: int = CONTEXTUAL_CHUNK) -> list[str]:
    """The texts of process ``rank`` of ``size`` in a shared contextual pass: the pass's order
    (distinct texts by length, then text) cut into the chunks one process passes, dealt to the
    processes in a snake (0, 1, ..., N-1, N-1, ..., 0, ...: each process gets short and long
    chunks alike). A process passes whole chunks of the single pass, so each teacher batch is
    one the single process runs, and every sentence target is identical to its."""
    ordered = sorted(sorted(set(texts)), key=len)
    mine = []
    for index, start in enumerate(range(0, len(ordered), chunk)):
        turn, place = divmod(index, size)
        if (place if turn % 2 == 0 else size - 1 - place) == rank:
            mine += ordered[start : start + chunk]
    return mine


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
        cache_root = Path(cache_dir) if cache_dir else default_cache_dir()
        self.path = resolve_teacher_path(teacher, cache_root / "teachers")
        self.max_length = max_length
        self.fingerprint = teacher_fingerprint(self.path, max_length)
        self.cache = EmbeddingCache(
            Path(cache_dir) if cache_dir else default_cache_dir() / "teacher", self.fingerprint
        )
        self.device = device
        self.batch_size = batch_size
        self.progress = progress
        self._teacher: Teacher | None = None
        self._word_states: Any = None  # the word-state store, opened when first asked for

    def _compute(self, texts: list[str]) -> np.ndarray:
        if self._teacher is None:
            self._teacher = Teacher(self.path, device=self.device, max_length=self.max_length)
        return self._teacher.encode(texts, batch_size=self.batch_size)

    def encode(self, texts: Sequence[str], *, desc: str = "teacher") -> np.ndarray:
        return self.cache.get(texts, self._compute, progress=self.progress, desc=desc)

    def word_states(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Each text's ``(words, dim)`` contextual word states (float16,
        :mod:`parasent.distillation.word_states`), from the cache or one teacher pass over the
        texts it lacks (resumable); needs a mean-pooling transformer teacher."""
        from parasent.distillation.contextual import word_means

        def compute(part: list[str]) -> list[np.ndarray]:
            if self._teacher is None:
                self._teacher = Teacher(self.path, device=self.device, max_length=self.max_length)
            encoded = self._teacher.encode_tokens(part, batch_size=self.batch_size)
            return [
                word_means(text, tok.vectors, tok.offsets)[1] for text, tok in zip(part, encoded, strict=True)
            ]

        return self._word_state_cache().get(texts, compute, progress=self.progress)

    def check_word_states(self) -> None:
        """Refuse, before any pass, a teacher whose token states do not average to its sentence
        embedding: the per-token term's targets are those states."""
        from parasent.distillation.teacher import mean_pooling_files
        from parasent.errors import OptionError

        if not mean_pooling_files(self.path):
            raise OptionError(
                f"--teacher-tokens matches the teacher's word states: teacher {self.path} is not a "
                "transformer with mean pooling (all-MiniLM-L6-v2 and all-mpnet-base-v2 are)"
            )

    def _word_state_cache(self) -> Any:
        """The word-state store, its shards' keys read once for the estimate and the pass."""
        if self._word_states is None:
            from parasent.distillation.word_states import WordStateCache

            self._word_states = WordStateCache(self.cache.directory)
        return self._word_states

    def contextual(
        self, texts: Sequence[str], *, chunk: int = CONTEXTUAL_CHUNK, ranks: Ranks | None = None
    ) -> ContextualSums | None:
        """Contextual word sums over ``texts`` (see :mod:`parasent.distillation.contextual`),
        from the cache or from one teacher pass that also caches the texts' sentence
        embeddings; None when the teacher is not a mean-pooling transformer.

        Sums add up over disjoint sets of texts, so each stored file records which texts it
        covers (their keys) and a request takes every stored file that covers only texts it
        asks for, then passes the teacher over the rest alone: adding 100,000 sentences to a
        teacher text costs a pass over those, not over the whole. The pass goes through its
        texts in a fixed order (by length) and saves its sums so far beside its file at most
        every ``CHECKPOINT_SECONDS``, so a killed pass resumes where its last save left it.

        With ``ranks`` (one process of several), this process passes only its share of the
        texts (:func:`rank_share`) into a file of its own, resumable like any other; process 0
        then adds the shares into the file one process writes for ``texts``, the others read it."""
        unique = sorted(set(texts))
        folder = self.cache.directory / CONTEXTUAL_FOLDER
        path = folder / f"{_digest(unique)}.safetensors"
        if exists(path):  # exactly these texts (a file of an older parasent has no keys: add them)
            sums, _, keys = _read_sums(path)
            if keys is None:
                _write_sums(path, sums, len(unique), _keys(unique))
            return sums
        if ranks is not None and ranks.size > 1:
            return self._contextual_on_ranks(folder, unique, chunk, ranks)
        total, rest, _ = _stored_sums(folder, unique)
        if rest:
            if self._teacher is None:
                self._teacher = Teacher(self.path, device=self.device, max_length=self.max_length)
            if not self._teacher.mean_pooling():
                return None
            total.merge(self._sums_of(folder, rest, chunk))
        return total.in_word_order()  # as stored: the same rows whichever files it came from

    def _contextual_on_ranks(
        self, folder: Path, unique: list[str], chunk: int, ranks: Ranks
    ) -> ContextualSums | None:
        """This process's share of the pass, then the shares added up by process 0 into the
        file of ``unique`` (each share's file then removed: the whole file covers its texts)."""
        path = folder / f"{_digest(unique)}.safetensors"
        rest = _stored_sums(folder, rank_share(unique, ranks.rank, ranks.size, chunk), read=False)[1]
        if rest:
            if self._teacher is None:
                self._teacher = Teacher(self.path, device=self.device, max_length=self.max_length)
            if self._teacher.mean_pooling():
                self._sums_of(folder, rest, chunk)
        ranks.barrier()
        if ranks.rank == 0:
            total, rest, used = _stored_sums(folder, unique)
            if not rest:  # every share passed (a teacher without token embeddings passes none)
                _write_sums(path, total.trimmed(), len(unique), _keys(unique))
                for part in used:
                    part.unlink(missing_ok=True)
        ranks.barrier()
        self.cache = EmbeddingCache(self.cache.directory.parent, self.fingerprint)  # every share's targets
        return _read_sums(path)[0] if exists(path) else None

    def _sums_of(self, folder: Path, texts: list[str], chunk: int) -> ContextualSums:
        """One resumable teacher pass over ``texts`` (sorted, distinct), stored with their keys."""
        digest = _digest(texts)
        path, partial = folder / f"{digest}.safetensors", folder / f"{digest}.partial.safetensors"
        if exists(partial):
            sums, done, _ = _read_sums(partial)
        else:
            sums, done = ContextualSums.empty(self._teacher.dim), 0
        sums = self._contextual_pass(sorted(texts, key=len), sums, done, partial, chunk)
        _write_sums(path, sums, len(texts), _keys(texts))
        partial.unlink(missing_ok=True)
        return sums

    def _contextual_pass(
        self, ordered: list[str], sums: ContextualSums, done: int, partial: Path, chunk: int
    ) -> ContextualSums:
        """Add the texts of ``ordered`` from index ``done`` on to ``sums``, saving to ``partial``."""
        from tqdm.auto import tqdm

        from parasent.core.inference import normalize_rows

        saved = time.monotonic()
        with tqdm(
            total=len(ordered),
            initial=done,
            desc="teacher (contextual)",
            unit="text",
            disable=None if self.progress else True,  # on a terminal only: a log or a pipe gets no bar lines
            mininterval=2.0,
        ) as bar:
            for start in range(done, len(ordered), chunk):
                part = ordered[start : start + chunk]
                encoded = self._teacher.encode_tokens(part, batch_size=self.batch_size)
                means = np.stack([tokens.vectors.mean(axis=0) for tokens in encoded])
                self.cache.put(part, normalize_rows(means))
                for text, tokens in zip(part, encoded, strict=True):
                    sums.add(text, tokens.vectors, tokens.offsets, tokens.pieces)
                bar.update(len(part))
                if time.monotonic() - saved > CHECKPOINT_SECONDS and start + chunk < len(ordered):
                    _write_sums(partial, sums.trimmed(), start + len(part))
                    saved = time.monotonic()
        return sums.trimmed()

    def estimate(self, texts: Sequence[str], *, sample: int = 256, seed: int = 0) -> tuple[int, float]:
        """``(texts not cached, seconds)``: how long a teacher pass over ``texts`` will take on
        this machine, from the time of the token pass on a seeded sample of the missing ones
        (loads the teacher; nothing is cached). ``(0, 0.0)`` when every text is cached."""
        return self._timed([t for t in dict.fromkeys(texts) if t not in self.cache], sample, seed)

    def word_states_estimate(
        self, texts: Sequence[str], *, sample: int = 256, seed: int = 0
    ) -> tuple[int, float]:
        """:meth:`estimate` for the pass of :meth:`word_states` (the same token pass)."""
        return self._timed(self._word_state_cache().missing(texts), sample, seed)

    def _timed(self, missing: list[str], sample: int, seed: int) -> tuple[int, float]:
        if not missing:
            return 0, 0.0
        if self._teacher is None:
            self._teacher = Teacher(self.path, device=self.device, max_length=self.max_length)
        rng = np.random.default_rng(seed)
        chosen = [missing[i] for i in rng.choice(len(missing), size=min(sample, len(missing)), replace=False)]
        run = self._teacher.encode_tokens if self._teacher.mean_pooling() else self._teacher.encode
        started = time.perf_counter()
        run(chosen, batch_size=self.batch_size)
        return len(missing), (time.perf_counter() - started) * len(missing) / len(chosen)

    def pieces(self) -> list[str]:
        """The teacher's subword vocabulary by id, read from its ``tokenizer.json`` (no model
        load): the pieces a word model falls back on (:mod:`parasent.text.word_pieces`)."""
        from tokenizers import Tokenizer

        path = self.path / "tokenizer.json"
        if not exists(path):
            raise ModelFormatError(f"{path}: missing (subword pieces need the teacher's tokenizer file)")
        regular_size(path, max_bytes=MAX_TEACHER_TOKENIZER_BYTES)
        try:
            vocab = Tokenizer.from_file(native_path(path)).get_vocab()
        except Exception as exc:  # the tokenizers library raises plain Exceptions
            raise ModelFormatError(f"{path}: not a valid tokenizer file ({exc})") from exc
        return sorted(vocab, key=vocab.__getitem__)

    def describe(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "fingerprint": self.fingerprint,
            "max_length": self.max_length,
            "cache": str(self.cache.directory),
        }


def _digest(texts: list[str]) -> str:
    return hashlib.sha256("\n".join(texts).encode("utf-8")).hexdigest()[:16]


def _keys(texts: Sequence[str]) -> np.ndarray:
    """``(n, DIGEST_BYTES)`` uint8 keys of ``texts`` (the embedding cache's text keys)."""
    return np.frombuffer(b"".join(text_key(t) for t in texts), dtype=np.uint8).reshape(len(texts), -1)


def _stored_sums(
    folder: Path, texts: list[str], *, read: bool = True
) -> tuple[ContextualSums, list[str], list[Path]]:
    """The sum of the stored files that cover only texts of ``texts`` (largest first, each
    text counted once; not read without ``read``), the texts none of them covers, and the files."""
    wanted = {text_key(t): t for t in texts}
    files = []
    for path in folder.glob("*.safetensors") if folder.is_dir() else ():
        if not path.name.endswith(".partial.safetensors") and not path.name.startswith("."):
            files.append((path, _read_keys(path)))
    total: ContextualSums | None = None
    used = []
    for path, keys in sorted((f for f in files if f[1] is not None), key=lambda f: (-len(f[1]), f[0].name)):
        covered = [bytes(k) for k in keys]
        if covered and all(k in wanted for k in covered):
            used.append(path)
            if read:
                sums = _read_sums(path)[0]
                total = sums if total is None else total.merge(sums)
            for k in covered:
                del wanted[k]
    rest = sorted(wanted.values())
    return (total if total is not None else ContextualSums.empty(0)), rest, used


def _read_keys(path: Path) -> np.ndarray | None:
    from safetensors import safe_open

    regular_size(path)  # a FIFO or a device is refused, never opened
    try:
        with safe_open(native_path(path), framework="np") as handle:
            return handle.get_tensor("keys") if "keys" in handle.keys() else None
    except Exception as exc:  # safetensors raises its own types
        raise ModelFormatError(f"{path}: not a contextual-sums file ({exc}); delete it") from exc


def _read_sums(path: Path) -> tuple[ContextualSums, int, np.ndarray | None]:
    """The sums stored at ``path``, how many texts (of the pass's order) they cover, and the
    keys of those texts (None in a file without them)."""
    from safetensors import safe_open
    from safetensors.numpy import load_file

    regular_size(path)  # a FIFO or a device is refused, never opened
    try:
        with safe_open(native_path(path), framework="np") as handle:
            metadata = handle.metadata()
        words = json.loads(metadata["words"])
        arrays = load_file(native_path(path))
        sums = ContextualSums(words, arrays["sums"], arrays["counts"])
    except Exception as exc:  # safetensors and json raise their own types
        raise ModelFormatError(f"{path}: not a contextual-sums file ({exc}); delete it") from exc
    if len(words) != len(sums.sums) or len(words) != len(sums.counts):
        raise ModelFormatError(f"{path}: {len(words)} words but {len(sums.sums)} rows; delete it")
    return sums, int(metadata.get("texts_done", 0)), arrays.get("keys")


def _write_sums(path: Path, sums: ContextualSums, texts_done: int, keys: np.ndarray | None = None) -> None:
    """Write ``sums`` (and the ``keys`` of the texts they cover), whole or not at all."""
    from safetensors.numpy import save

    from parasent.support.staging import atomic_file

    path.parent.mkdir(parents=True, exist_ok=True)
    sums = sums.in_word_order()  # the same file whatever order (or processes) the texts were added in
    metadata = {"words": json.dumps(sums.words), "texts_done": str(texts_done)}
    arrays = {"sums": sums.sums, "counts": sums.counts}
    if keys is not None:
        arrays["keys"] = keys
    with atomic_file(path, "wb") as handle:
        handle.write(save(arrays, metadata=metadata))
