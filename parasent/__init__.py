"""parasent: paraphrastic sentence embeddings, trained, evaluated and served."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from parasent.core.torch_side import TorchSide, install
from parasent.support.version import __version__

if TYPE_CHECKING:
    from parasent.core.model import SentenceModel

__all__ = ["SentenceModel", "__version__", "load", "search"]


def _build_encoder(config: dict[str, Any]) -> Any:
    from parasent.encoders import build_encoder

    return build_encoder(config)


def _encode_batches(encoder: Any, tokenized: Any, device: Any) -> Any:
    from parasent.encoders.base import encode_batches

    return encode_batches(encoder, tokenized, device=device)


# The root wires the layers: the core, at the bottom, encodes a non-averaging model through the
# torch modules of parasent.encoders, above it, without importing them (parasent.core.torch_side).
install(TorchSide(_build_encoder, _encode_batches))


def load(path: Any = None) -> SentenceModel:
    """Load a saved model directory; with no argument (or ``"default"``), the compact default
    model shipped inside the package. See :class:`parasent.core.model.SentenceModel`. A
    directory with a trained head (``parasent head train``) loads as a
    :class:`parasent.supervised.model.SupervisedModel`: ``predict``, ``predict_proba``, and
    ``encode`` as its sentence model."""
    from parasent.core.model import load as _load

    if path is not None and _has_head(path):
        from parasent.supervised.model import SupervisedModel

        return SupervisedModel.load(path)  # type: ignore[return-value]
    return _load(path)


def _has_head(path: Any) -> bool:
    from pathlib import Path

    directory = Path(path)
    # head.json: parasent.supervised.head_forward.HEAD_CONFIG, not imported here (kept to a file test)
    return any((d / "head.json").is_file() for d in (directory, directory / "model"))


def search(query_vectors: Any, corpus_vectors: Any, top_k: int = 10, **kwargs: Any) -> list[list[dict]]:
    """Cosine top-k of each query among the corpus vectors, in bounded memory; see
    :func:`parasent.core.semantic_search.search` (sentence-transformers' ``semantic_search`` shape)."""
    from parasent.core.semantic_search import search as _search

    return _search(query_vectors, corpus_vectors, top_k, **kwargs)


def __getattr__(name: str) -> Any:
    if name == "SentenceModel":
        from parasent.core.model import SentenceModel

        return SentenceModel
    raise AttributeError(f"module 'parasent' has no attribute {name!r}")
