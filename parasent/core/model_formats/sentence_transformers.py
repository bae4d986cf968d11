"""sentence-transformers and model2vec static-embedding directories read as parasent models (to
serve them with numpy, or fine-tune them with the paraphrastic objective); writing them is
:mod:`parasent.core.model_formats.export`.

The directory is what ``SentenceTransformer(DIR)`` loads: ``modules.json`` naming one
``StaticEmbedding`` module (sentence-transformers >= 3; the module is an ``EmbeddingBag``
in mean mode over the tokenizer's ids without special tokens), ``model.safetensors`` with
``embedding.weight`` and the ``tokenizer.json`` of the model. Writing and reading use
only json, numpy, safetensors and tokenizers: sentence-transformers is needed to *use* the
export, never to produce it.

A model2vec directory is read here too (model2vec writes the same layout, see
:mod:`parasent.core.model_formats.model2vec`, which this module imports for its config and its
table). The reader builds the model class it is handed (:meth:`SentenceModel.load` passes
itself), so this module never imports :mod:`parasent.core.model`, which imports it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from parasent.core.encoder_registry import encoder_entry
from parasent.core.model_formats.export import (
    MODULE_SETTINGS_FILE,
    MODULES_FILE,
    PARASENT_MODULE_TYPE,
    STATIC_EMBEDDING_TYPE,
    export_static,
)
from parasent.core.model_formats.model2vec import fold_table, model2vec_config, read_config
from parasent.core.stored_weights import EMBEDDING_KEY, QuantizedTable, read_weights
from parasent.errors import ModelFormatError
from parasent.support.regular_files import exists, regular_size

if TYPE_CHECKING:
    from parasent.core.model_protocol import Model, ModelClass

# Modules after the embedding that do not change cosine similarities.
COSINE_PRESERVING = ("Normalize",)


def is_sentence_transformers_dir(path: str | Path) -> bool:
    """A sentence-transformers directory (``modules.json``) or a model2vec one."""
    return exists(Path(path) / MODULES_FILE) or model2vec_config(path) is not None


def _module_directory(path: Path, modules_path: Path, first: dict) -> Path:
    """The first module's folder, which must stay inside the model directory."""
    relative = first.get("path", "")
    if not isinstance(relative, str) or Path(relative).is_absolute():
        raise ModelFormatError(
            f"{modules_path}: module path {relative!r} must be relative to the model directory"
        )
    module_dir = (path / relative).resolve()
    if not module_dir.is_relative_to(path.resolve()):
        raise ModelFormatError(f"{modules_path}: module path {relative!r} leaves the model directory")
    return module_dir


def _read_modules(path: Path) -> tuple[Path, list[str], dict]:
    from parasent.core.model_checks import read_json

    modules_path = path / MODULES_FILE
    modules = read_json(modules_path, what="a sentence-transformers modules list")
    try:
        kinds = [str(m["type"]) for m in modules]
        first = modules[0]
        if not isinstance(first, dict):
            raise TypeError("a module is not an object")
    except (KeyError, TypeError, IndexError) as exc:
        raise ModelFormatError(
            f"{modules_path}: not a sentence-transformers modules list ({exc!r})"
        ) from None
    return modules_path, kinds, first


def load_sentence_transformers_static(path: str | Path, model_class: ModelClass[Model]) -> Model:
    """A sentence-transformers directory whose first module is a ``StaticEmbedding`` (optionally
    followed by ``Normalize``), or a model2vec directory, as a parasent averaging model (a
    ``model_class``) with the directory's tokenizer."""
    from parasent.core.model_checks import check_finite, check_tokenizer_size
    from parasent.text.pretrained import PretrainedTokenizer
    from parasent.text.tokenizer import TOKENIZER_FILE

    path = Path(path)
    m2v = model2vec_config(path)
    if m2v is not None and not exists(path / MODULES_FILE):
        modules_path, kinds, first = path / MODULES_FILE, [STATIC_EMBEDDING_TYPE], {"path": ""}
    else:
        modules_path, kinds, first = _read_modules(path)
    if kinds == [PARASENT_MODULE_TYPE]:
        return _load_parasent_module(_module_directory(path, modules_path, first), model_class)
    _check_modules(path, kinds)
    module_dir = _module_directory(path, modules_path, first)
    weights_path = module_dir / "model.safetensors"
    if not exists(weights_path):
        raise ModelFormatError(f"{weights_path}: missing (only safetensors weights are read, never pickle)")
    regular_size(weights_path)
    weights = read_weights(weights_path)
    key = next((k for k in ("embedding.weight", "mapping", "embeddings") if k in weights), None)
    if key is None:
        raise ModelFormatError(f"{weights_path}: no 'embedding.weight' (or model2vec 'embeddings') tensor")
    if key != "embedding.weight" and m2v is None:  # model2vec's layout, whatever its config says
        m2v = read_config(module_dir)
    entries = int(weights[key].shape[0]) if weights[key].ndim else 0
    check_tokenizer_size(module_dir / TOKENIZER_FILE, entries)  # before parsing it
    # model2vec drops the unknown token before averaging; sentence-transformers averages it in
    tokenizer = PretrainedTokenizer.load(module_dir, unknown="skip" if m2v is not None else "vector")
    check_finite(weights_path, weights)
    _check_dtypes(weights_path, weights)
    if key == "embedding.weight":
        table = weights["embedding.weight"]
        table = table if table.dtype == np.float32 else table.astype(np.float32)
    else:
        table = fold_table(weights, weights_path, tokenizer.vocab_size)
    if table.ndim != 2 or table.shape[0] != tokenizer.vocab_size:
        raise ModelFormatError(
            f"{path}: embedding of shape {table.shape} does not match the tokenizer's {tokenizer.vocab_size} tokens"
        )
    config = {
        "name": "word_averaging",
        "vocab_size": tokenizer.vocab_size,
        "embedding_dim": int(table.shape[1]),
    }
    # the output is unit-length when a Normalize module follows (model2vec: its config says so)
    normalize = (
        bool(m2v.get("normalize", False)) if m2v is not None else any(k.endswith("Normalize") for k in kinds)
    )
    source = {
        "format": "model2vec" if m2v is not None else "sentence-transformers",
        "path": str(path.resolve()),
    }
    model = model_class(
        tokenizer, config, {EMBEDDING_KEY: table}, metadata={"source": source, "normalize": normalize}
    )
    model.path = module_dir
    return model


def _load_parasent_module(module_dir: Path, model_class: ModelClass[Model]) -> Model:
    """The parasent model inside an export's parasent module, cut to the module's ``truncate_dim``
    (a mean commutes with taking columns, and an int8 row's scale applies to each column alike)."""
    from parasent.core.model_checks import read_json

    model = model_class.load(module_dir)
    settings_path = module_dir / MODULE_SETTINGS_FILE
    settings = read_json(settings_path, what="parasent module settings") if settings_path.is_file() else {}
    width = settings.get("truncate_dim") if isinstance(settings, dict) else None
    if width is None or not encoder_entry(model.encoder_config["name"]).static or width == model.dim:
        return model
    if not isinstance(width, int) or not 0 < width < model.dim:
        raise ModelFormatError(f"{settings_path}: truncate_dim must be an integer in 1..{model.dim}")
    table = model.weights[EMBEDDING_KEY]
    if isinstance(table, QuantizedTable):
        table = QuantizedTable(table.values[:, :width], table.scales, table.rows)
    else:
        table = table[:, :width]
    config = dict(model.encoder_config, embedding_dim=width)
    cut = model_class(model.tokenizer, config, {EMBEDDING_KEY: table}, metadata=model.metadata)
    cut.path = module_dir
    return cut


# The tables these formats store (model2vec also writes int8 embeddings, one scale for all).
TABLE_DTYPES = {"embedding.weight": "f2 f4", "embeddings": "f2 f4 i1", "weights": "f2 f4"}


def _check_dtypes(weights_path: Path, weights: dict[str, np.ndarray]) -> None:
    """Refuse a table of booleans, wide integers or float64: no writer of these formats stores one."""
    for name, kinds in TABLE_DTYPES.items():
        tensor = weights.get(name)
        if tensor is not None and tensor.dtype.str[1:] not in kinds.split():
            raise ModelFormatError(
                f"{weights_path}: tensor {name!r} is {tensor.dtype}, not one of the float16/float32"
                f"{'/int8' if 'i1' in kinds else ''} tables this format stores"
            )


def _check_modules(path: Path, kinds: list[str]) -> None:
    """Only a ``StaticEmbedding``, optionally followed by modules that keep cosines."""
    if not kinds[0].endswith("StaticEmbedding"):
        raise ModelFormatError(
            f"{path}: a sentence-transformers model of {' -> '.join(k.rsplit('.', 1)[-1] for k in kinds)}; "
            "parasent reads static-embedding models only (load transformers with sentence-transformers)"
        )
    extra = [k.rsplit(".", 1)[-1] for k in kinds[1:] if not k.endswith(COSINE_PRESERVING)]
    if extra:
        raise ModelFormatError(
            f"{path}: modules after StaticEmbedding change its vectors ({', '.join(extra)}); not supported"
        )


def export_sentence_transformers(
    model: Model,
    directory: str | Path,
    *,
    dtype: str | None = None,
    truncate_dim: int | None = None,
    overwrite: bool = False,
    transfer: dict[str, float] | None = None,
) -> Path:
    """Write ``model`` as a ``StaticEmbedding`` directory (see :mod:`parasent.core.model_formats.export`)."""
    return export_static(
        model,
        directory,
        format="sentence-transformers",
        dtype=dtype,
        truncate_dim=truncate_dim,
        overwrite=overwrite,
        transfer=transfer,
    )
