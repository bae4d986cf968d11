"""Export a static (averaging) model for other libraries: a sentence-transformers
``StaticEmbedding`` directory or a model2vec directory, at a chosen precision and width.

Both formats hold one embedding table, the tokenizer and a small config; a sentence vector is
the mean of its tokens' rows. Truncating the table to its first ``d`` columns truncates every
sentence vector the same way (a mean commutes with taking columns), so ``truncate_dim`` here
equals ``encode(..., truncate_dim=d)``. Writing needs only json, numpy, safetensors and
tokenizers; the target library is needed to *use* the export, never to produce it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from parasent.errors import ModelFormatError
from parasent.model_card import CARD_FILE, render_card
from parasent.staging import ordinary_permissions, staged_directory
from parasent.text.tokenizer import UNK_ID

if TYPE_CHECKING:
    from parasent.model import SentenceModel

FORMATS = ("sentence-transformers", "model2vec")
DTYPES = {"sentence-transformers": ("float32", "float16"), "model2vec": ("float32", "float16", "int8")}
MODULES_FILE = "modules.json"
# The alias every sentence-transformers version from 3.0 resolves (6.x's own name is
# sentence_transformers.sentence_transformer.modules.static_embedding.StaticEmbedding).
STATIC_EMBEDDING_TYPE = "sentence_transformers.models.StaticEmbedding"
NORMALIZE_TYPE = "sentence_transformers.models.Normalize"


def export_table(model: SentenceModel, *, zero_unknown: bool, truncate_dim: int | None) -> np.ndarray:
    """The float32 token table to export (a copy). ``zero_unknown``: a model that skips unknown
    tokens gets a zero unknown row, for a reader that averages them in (sentence-transformers):
    that scales a sentence vector by (known / all tokens) but leaves its direction, hence every
    cosine, unchanged."""
    from parasent.model import EMBEDDING_KEY

    table = np.array(model.weights[EMBEDDING_KEY], dtype=np.float32)
    if zero_unknown and model.tokenizer.unknown == "skip":
        unk = getattr(model.tokenizer, "unk_id", UNK_ID)
        if unk is not None:
            table[unk] = 0.0
    if truncate_dim is not None:
        if not 0 < truncate_dim <= table.shape[1]:
            raise ValueError(f"truncate_dim must be in 1..{table.shape[1]}, got {truncate_dim}")
        table = np.ascontiguousarray(table[:, :truncate_dim])
    return table


def cast_table(table: np.ndarray, dtype: str) -> np.ndarray:
    """float32, float16, or int8 with one symmetric scale for the whole table (a uniform scale
    changes no cosine, so none needs storing)."""
    if dtype == "float16":
        return table.astype(np.float16)
    if dtype == "int8":
        peak = float(np.abs(table).max()) or 1.0
        return np.clip(np.rint(table * (127.0 / peak)), -127, 127).astype(np.int8)
    return table


def export_static(
    model: SentenceModel,
    directory: str | Path,
    *,
    format: str = "sentence-transformers",
    dtype: str = "float32",
    truncate_dim: int | None = None,
    overwrite: bool = False,
) -> Path:
    """Write ``model`` in ``format`` atomically, weights readable by others (0644 under the usual umask).
    An existing model directory is replaced; any other non-empty directory only with ``overwrite``."""
    from safetensors.numpy import save_file

    if format not in FORMATS:
        raise ValueError(f"unknown export format {format!r} (known: {', '.join(FORMATS)})")
    if dtype not in DTYPES[format]:
        raise ValueError(f"{format} export writes {', '.join(DTYPES[format])} weights, not {dtype!r}")
    if not model._entry.static:
        raise ModelFormatError(
            f"only averaging models export to {format}; {model.encoder_config['name']!r} is not static"
        )
    if model.tokenizer.kind == "word_bigrams":
        raise ModelFormatError(
            f"{format} averages the tokens of its tokenizer alone; this model also averages word "
            "bigrams, which no static-embedding tokenizer produces (`parasent export --words-only` "
            "writes its word rows alone, which encode differently)"
        )
    table = export_table(model, zero_unknown=format == "sentence-transformers", truncate_dim=truncate_dim)
    weights_name = "embedding.weight" if format == "sentence-transformers" else "embeddings"
    directory = Path(directory)
    with staged_directory(directory, model=True, overwrite=overwrite, needs_bytes=table.nbytes) as staging:
        modules = [{"idx": 0, "name": "0", "path": "", "type": STATIC_EMBEDDING_TYPE}]
        if model.normalizes:
            modules.append({"idx": 1, "name": "1", "path": "1_Normalize", "type": NORMALIZE_TYPE})
            (staging / "1_Normalize").mkdir()
        (staging / MODULES_FILE).write_text(json.dumps(modules, indent=2) + "\n")
        if format == "sentence-transformers":
            settings = {"similarity_fn_name": "cosine", "prompts": {}, "default_prompt_name": None}
            (staging / "config_sentence_transformers.json").write_text(json.dumps(settings, indent=2) + "\n")
        else:
            _write_model2vec_config(staging, model, table.shape[1], dtype)
        save_file(
            {weights_name: np.ascontiguousarray(cast_table(table, dtype))}, str(staging / "model.safetensors")
        )
        ordinary_permissions(staging / "model.safetensors")
        model.tokenizer.save(staging)
        (staging / CARD_FILE).write_text(
            render_card(model, library=format, dim=table.shape[1], dtype=dtype, usage=_usage(format))
        )
    return directory


def _write_model2vec_config(staging: Path, model: SentenceModel, dim: int, dtype: str) -> None:
    config = {
        "model_type": "model2vec",
        "architectures": ["StaticModel"],
        "tokenizer_name": None,
        "apply_pca": None,
        "hidden_dim": dim,
        "seq_length": 1000000,
        "normalize": model.normalizes,
        "embedding_dtype": dtype,
    }
    (staging / "config.json").write_text(json.dumps(config, indent=2) + "\n")


def _usage(format: str) -> str:
    if format == "model2vec":
        return (
            'from model2vec import StaticModel\n\nmodel = StaticModel.from_pretrained("path/to/this/directory")\n'
            "# parasent reads it too: parasent.load(path)"
        )
    return (
        "from sentence_transformers import SentenceTransformer\n\n"
        'model = SentenceTransformer("path/to/this/directory")\n# parasent reads it too: parasent.load(path)'
    )
