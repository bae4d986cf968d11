"""The model an adapter wraps: a name or directory loaded with ``parasent.load`` (None: the
shipped default), or a model already loaded (anything with ``encode``), used as it is."""

from __future__ import annotations

from typing import Any


def loaded_model(model: Any = None) -> Any:
    if model is not None and hasattr(model, "encode"):
        return model
    from parasent.core.model import load

    return load(model)
