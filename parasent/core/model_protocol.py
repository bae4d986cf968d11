"""A sentence model as the modules below :mod:`parasent.core.model` see it.

The converters of other libraries' directories (:mod:`parasent.core.model_formats`) are
imported by the model (it asks them before reading a directory and writes through them), so they
cannot name the model's class, not even in a type: the two would be written in terms of each
other. They are written against these protocols instead: a model is its featurizer, its encoder
settings, its weights and its metadata; a model class builds one from those parts, or loads one.
:class:`parasent.core.model.SentenceModel` is both.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    import numpy as np

    from parasent.text.featurizers import Featurizer


class Model(Protocol):
    """The parts of a model a converter reads, and the two things it asks of it."""

    tokenizer: Featurizer
    encoder_config: dict[str, Any]
    weights: dict[str, np.ndarray]
    metadata: dict[str, Any]
    path: Path | None

    @property
    def dim(self) -> int: ...

    @property
    def normalizes(self) -> bool: ...

    def save(
        self,
        path: str | Path,
        *,
        dtype: str | None = None,
        extra_files: Callable[[Path], None] | None = None,
        overwrite: bool = False,
    ) -> Path: ...


M = TypeVar("M", bound=Model, covariant=True)


class ModelClass(Protocol[M]):
    """The class a converter builds (``SentenceModel.load`` passes itself)."""

    def __call__(
        self,
        tokenizer: Featurizer,
        encoder_config: dict[str, Any],
        weights: dict[str, np.ndarray],
        *,
        metadata: dict[str, Any] | None = None,
    ) -> M: ...

    def load(self, path: Any = None) -> M: ...
