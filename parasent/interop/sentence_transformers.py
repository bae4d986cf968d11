"""sentence-transformers and model2vec static-embedding directories read as parasent models (to
serve them with numpy, or fine-tune them with the paraphrastic objective); writing them is
:mod:`parasent.interop.export`.

The directory is what ``SentenceTransformer(DIR)`` loads: ``modules.json`` naming one
``StaticEmbedding`` module (sentence-transformers >= 3; the module is an ``EmbeddingBag``
in mean mode over the tokenizer's ids without special tokens), ``model.safetensors`` with
``embedding.weight`` and the ``tokenizer.json`` of the model. Writing and reading use
only json, numpy, safetensors and tokenizers: sentence-transformers is needed to *use* the
export, never to produce it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from parasent.errors import ModelFormatError
from parasent.interop.export import MODULES_FILE, STATIC_EMBEDDING_TYPE

if TYPE_CHECKING:
    from parasent.model import SentenceModel

CONFIG_FILE = "config.json"
# Modules after the embedding that do not change cosine similarities.
COSINE_PRESERVING = ("Normalize",)


def read_config(path: str | Path) -> dict:
    """The ``config.json`` beside the weights as a dict ({} when absent or unreadable)."""
    config_path = Path(path) / CONFIG_FILE
    try:
        config = json.loads(config_path.read_text())
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return {}
    return config if isinstance(config, dict) else {}


def model2vec_config(path: str | Path) -> dict | None:
    """The ``config.json`` of a directory that declares itself model2vec's, else None."""
    config = read_config(path)
    return config if config.get("model_type") == "model2vec" else None


def is_sentence_transformers_dir(path: str | Path) -> bool:
    """A sentence-transformers directory (``modules.json``) or a model2vec one."""
    return (Path(path) / MODULES_FILE).is_file() or model2vec_config(path) is not None


def _fold_model2vec(weights: dict[str, np.ndarray]) -> np.ndarray:
    """model2vec layout: ``embeddings`` rows, an optional token -> row ``mapping`` and per-token ``weights``."""
    table = np.asarray(weights["embeddings"], dtype=np.float32)
    if "mapping" in weights:
        table = table[np.asarray(weights["mapping"], dtype=np.int64)]
    if "weights" in weights:
        table = table * np.asarray(weights["weights"], dtype=np.float32)[:, None]
    return table


def load_sentence_transformers_static(path: str | Path) -> SentenceModel:
    """A sentence-transformers directory whose first module is a ``StaticEmbedding`` (optionally
    followed by ``Normalize``), as a parasent averaging model with the directory's tokenizer."""
    from parasent.model import EMBEDDING_KEY, SentenceModel, read_weights
    from parasent.text.pretrained import PretrainedTokenizer

    path = Path(path)
    m2v = model2vec_config(path)
    modules_path = path / MODULES_FILE
    if m2v is not None and not modules_path.is_file():
        modules = [{"path": "", "type": STATIC_EMBEDDING_TYPE}]
    else:
        try:
            modules = json.loads(modules_path.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ModelFormatError(
                f"{modules_path}: not a sentence-transformers modules list ({exc})"
            ) from exc
    try:
        kinds = [str(m["type"]) for m in modules]
        first = modules[0]
    except (KeyError, TypeError, IndexError) as exc:
        raise ModelFormatError(f"{modules_path}: not a sentence-transformers modules list ({exc})") from exc
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
    module_dir = path / first.get("path", "")
    weights_path = module_dir / "model.safetensors"
    if not weights_path.is_file():
        raise ModelFormatError(f"{weights_path}: missing (only safetensors weights are read, never pickle)")
    weights = read_weights(weights_path)
    if "embedding.weight" in weights:
        table = weights["embedding.weight"]
        table = table if table.dtype == np.float32 else table.astype(np.float32)
    elif "embeddings" in weights:  # model2vec's layout, whatever its config says
        table = _fold_model2vec(weights)
        m2v = m2v if m2v is not None else read_config(module_dir)
    else:
        raise ModelFormatError(f"{weights_path}: no 'embedding.weight' (or model2vec 'embeddings') tensor")
    # model2vec drops the unknown token before averaging; sentence-transformers averages it in
    tokenizer = PretrainedTokenizer.load(module_dir, unknown="skip" if m2v is not None else "vector")
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
    metadata = {"source": source, "normalize": normalize}
    return SentenceModel(tokenizer, config, {EMBEDDING_KEY: table}, metadata=metadata)


def export_sentence_transformers(
    model: SentenceModel, directory: str | Path, *, dtype: str = "float32", truncate_dim: int | None = None
) -> Path:
    """Write ``model`` as a ``StaticEmbedding`` directory (see :mod:`parasent.interop.export`)."""
    from parasent.interop.export import export_static

    return export_static(
        model, directory, format="sentence-transformers", dtype=dtype, truncate_dim=truncate_dim
    )


# The converter interface of :data:`parasent.model.FORMATS`.
detect = is_sentence_transformers_dir
read = load_sentence_transformers_static
write = export_sentence_transformers
