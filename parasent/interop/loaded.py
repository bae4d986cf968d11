"""The model an adapter wraps: a name or directory loaded with ``parasent.load`` (None: the
shipped default), or a model already loaded (anything with ``encode`` that is not a path: a
``str`` has an ``encode`` method too), used as it is."""

from __future__ import annotations

import os
from typing import Any


def loaded_model(model: Any = None) -> Any:
    if model is not None and not isinstance(model, str | os.PathLike) and hasattr(model, "encode"):
        return model
    from parasent.core.model import load

    return load(model)
