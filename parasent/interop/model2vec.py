"""model2vec directories as a format of :data:`parasent.core.model.FORMATS`.

Reading shares the static-embedding reader of :mod:`parasent.interop.sentence_transformers`
(model2vec writes the same layout, with ``embeddings`` for ``embedding.weight`` and a
``config.json`` saying ``normalize``); there the unknown token is dropped before averaging, as
model2vec does. Writing is :func:`parasent.interop.export.export_static` with ``model2vec``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from parasent.interop.sentence_transformers import load_sentence_transformers_static, model2vec_config

if TYPE_CHECKING:
    from parasent.core.model import SentenceModel


def is_model2vec_dir(path: str | Path) -> bool:
    return model2vec_config(path) is not None


def export_model2vec(
    model: SentenceModel,
    directory: str | Path,
    *,
    dtype: str | None = None,
    truncate_dim: int | None = None,
    overwrite: bool = False,
    transfer: dict[str, float] | None = None,
) -> Path:
    from parasent.interop.export import export_static

    return export_static(
        model,
        directory,
        format="model2vec",
        dtype=dtype,
        truncate_dim=truncate_dim,
        overwrite=overwrite,
        transfer=transfer,
    )


# The converter interface of :data:`parasent.core.model.FORMATS`.
detect = is_model2vec_dir
read = load_sentence_transformers_static
write = export_model2vec
