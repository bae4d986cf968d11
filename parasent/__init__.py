"""parasent: paraphrastic sentence embeddings, trained, evaluated and served."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from parasent.model import SentenceModel

__all__ = ["SentenceModel", "__version__", "load"]


def load(path: Any = None) -> SentenceModel:
    """Load a saved model directory; with no argument (or ``"default"``), the compact default
    model shipped inside the package. See :class:`parasent.model.SentenceModel`."""
    from parasent.model import load as _load

    return _load(path)


def __getattr__(name: str) -> Any:
    if name == "SentenceModel":
        from parasent.model import SentenceModel

        return SentenceModel
    raise AttributeError(f"module 'parasent' has no attribute {name!r}")
