"""Training objectives, as modules that take the encoder (the loop stays outside)."""

from importlib import import_module
from typing import Any

# name -> the module that defines it, imported on first use: the option names (``names``) are
# read without torch (a configuration, a parser), the objectives themselves need it
_EXPORTS = {
    "NEGATIVE_STRATEGIES": "names",
    "CompositionPenalty": "regularization",
    "EmbeddingPull": "regularization",
    "MarginLoss": "margin",
    "margin_loss": "margin",
    "select_negatives": "margin",
}
__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'parasent.objectives' has no attribute {name!r}")
    return getattr(import_module(f"parasent.objectives.{_EXPORTS[name]}"), name)
