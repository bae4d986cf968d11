"""model2vec directories: their ``config.json`` and the layout of their table.

model2vec writes the static-embedding layout of sentence-transformers (``tokenizer.json``,
``model.safetensors``) with ``embeddings`` rows for ``embedding.weight``, optionally a token ->
row ``mapping`` and per-token ``weights``, and a ``config.json`` saying ``model_type: model2vec``
and ``normalize``. Such a directory is read by the static-embedding reader of
:mod:`parasent.core.model_formats.sentence_transformers`, which imports this module to tell a
model2vec directory and fold its table (the import points that way only); there the unknown
token is dropped before averaging, as model2vec does. Writing is
:func:`parasent.core.model_formats.export.export_static` with ``model2vec``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from parasent.core.model_formats.export import export_static
from parasent.errors import ModelFormatError
from parasent.support.regular_files import read_regular

if TYPE_CHECKING:
    from parasent.core.model_protocol import Model

CONFIG_FILE = "config.json"


def read_config(path: str | Path) -> dict:
    """The ``config.json`` beside the weights as a dict ({} when absent or not JSON; a FIFO, a
    device or a file over the cap of model JSON files is an error, never opened or read)."""
    from parasent.core.model_checks import MAX_JSON_BYTES

    config_path = Path(path) / CONFIG_FILE
    try:  # a FIFO or a device is refused unopened, a file over the cap unread (SpecialFileError)
        config = json.loads(read_regular(config_path, max_bytes=MAX_JSON_BYTES))
    except (OSError, ValueError, RecursionError):
        return {}  # not model2vec's; the loader reports what is wrong with the file
    return config if isinstance(config, dict) else {}


def model2vec_config(path: str | Path) -> dict | None:
    """The ``config.json`` of a directory that declares itself model2vec's, else None."""
    config = read_config(path)
    return config if config.get("model_type") == "model2vec" else None


def is_model2vec_dir(path: str | Path) -> bool:
    return model2vec_config(path) is not None


# A folded model2vec table may be larger than its file (a mapping repeats rows), but not by
# more than this factor beyond a floor: a small file must not make parasent allocate gigabytes.
MAX_EXPANSION = 32
EXPANSION_FLOOR_BYTES = 256 << 20


def fold_table(weights: dict[str, np.ndarray], weights_path: Path, vocab_size: int) -> np.ndarray:
    """model2vec layout: ``embeddings`` rows, an optional token -> row ``mapping`` and per-token
    ``weights``; ids and sizes are checked before the table is expanded."""
    embeddings = weights["embeddings"]
    if embeddings.ndim != 2:
        raise ModelFormatError(f"{weights_path}: 'embeddings' has shape {embeddings.shape}, not (rows, dim)")
    rows = embeddings.shape[0]
    if "mapping" in weights:
        mapping = np.asarray(weights["mapping"])
        if mapping.ndim != 1 or mapping.dtype.kind not in "iu" or len(mapping) != vocab_size:
            raise ModelFormatError(
                f"{weights_path}: 'mapping' must be {vocab_size} integer row ids (one per token), "
                f"got {mapping.dtype} of shape {mapping.shape}"
            )
        if len(mapping) and (int(mapping.min()) < 0 or int(mapping.max()) >= rows):
            raise ModelFormatError(
                f"{weights_path}: 'mapping' has row ids outside 0..{rows - 1} "
                f"(min {int(mapping.min())}, max {int(mapping.max())})"
            )
        expanded = len(mapping) * embeddings.shape[1] * 4
        limit = max(EXPANSION_FLOOR_BYTES, MAX_EXPANSION * weights_path.stat().st_size)
        if expanded > limit:
            raise ModelFormatError(
                f"{weights_path}: the mapping expands {rows} rows to a {expanded} byte table, "
                f"more than {limit} bytes for a file of {weights_path.stat().st_size}"
            )
        table = np.asarray(embeddings, dtype=np.float32)[mapping.astype(np.int64)]
    else:
        table = np.asarray(embeddings, dtype=np.float32)
    if "weights" in weights:
        scale = np.asarray(weights["weights"], dtype=np.float32)
        if scale.shape != (table.shape[0],):
            raise ModelFormatError(
                f"{weights_path}: 'weights' has shape {scale.shape}, expected ({table.shape[0]},)"
            )
        table = table * scale[:, None]
    return table


def export_model2vec(
    model: Model,
    directory: str | Path,
    *,
    dtype: str | None = None,
    truncate_dim: int | None = None,
    overwrite: bool = False,
    transfer: dict[str, float] | None = None,
) -> Path:
    return export_static(
        model,
        directory,
        format="model2vec",
        dtype=dtype,
        truncate_dim=truncate_dim,
        overwrite=overwrite,
        transfer=transfer,
    )
