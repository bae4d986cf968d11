"""Export a static (averaging) model for other libraries: a sentence-transformers
``StaticEmbedding`` directory or a model2vec directory, at a chosen precision and width.

Both formats hold one embedding table, the tokenizer and a small config; a sentence vector is
the mean of its tokens' rows. Truncating the table to its first ``d`` columns truncates every
sentence vector the same way (a mean commutes with taking columns), so ``truncate_dim`` here
equals ``encode(..., truncate_dim=d)``. Writing needs only json, numpy, safetensors and
tokenizers; the target library is needed to *use* the export, never to produce it.

A model whose featurizer no static-embedding tokenizer reproduces (word bigrams, and any kind
other than plain words or a pretrained tokenizer), or one asked for at int8, is written for
sentence-transformers as a parasent module instead (:mod:`parasent.interop.st_module`): the
parasent model directory itself, weights as stored, under ``0_ParasentEmbedding/``, with
``modules.json`` naming the module class; ``SentenceTransformer(DIR)`` then encodes exactly
what ``parasent.load()`` does, and needs parasent installed. model2vec has no such module: a
bigram model exports there only as its word rows (``--words-only``), which encodes differently.

An export's card never carries the source's scores: its vectors may differ (width, precision,
dropped rows). It shows the scores of the exported vectors when they were measured at export
(``transfer``), else none.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from parasent.core.encoder_registry import is_static_model
from parasent.core.model_card import CARD_FILE, render_card
from parasent.core.stored_weights import EMBEDDING_KEY, held_dtype
from parasent.errors import ModelFormatError
from parasent.support.path_names import native_path
from parasent.support.staging import ordinary_permissions, staged_directory
from parasent.text.tokenizer import UNK_ID

if TYPE_CHECKING:
    from parasent.core.model_protocol import Model

FORMATS = ("sentence-transformers", "model2vec")
DTYPES = {
    "sentence-transformers": ("float32", "float16", "int8"),
    "model2vec": ("float32", "float16", "int8"),
}
MODULES_FILE = "modules.json"
# The alias every sentence-transformers version from 3.0 resolves (6.x's own name is
# sentence_transformers.sentence_transformer.modules.static_embedding.StaticEmbedding).
STATIC_EMBEDDING_TYPE = "sentence_transformers.models.StaticEmbedding"
NORMALIZE_TYPE = "sentence_transformers.models.Normalize"
# A parasent model as a sentence-transformers module (parasent/interop/st_module.py), its folder
# in the export and the module's own settings file there.
PARASENT_MODULE_TYPE = "parasent.interop.st_module.ParasentEmbedding"
PARASENT_MODULE_DIR = "0_ParasentEmbedding"
MODULE_SETTINGS_FILE = "parasent_module.json"
# Featurizer kinds whose tokenizer.json, run by a static-embedding reader, gives the tokens
# parasent averages; any other kind (word bigrams, kinds added later) needs the parasent module.
STATIC_KINDS = ("words", "tokenizer")
# Metadata of measured scores, which describe the source's vectors, not an export's.
SCORE_KEYS = ("transfer", "transfer_mean_pearson", "validation", "validation_mean_pearson")
REQUIRES_PARASENT = (
    "This directory names parasent's module class (`parasent.interop.st_module.ParasentEmbedding`) in "
    "`modules.json`: parasent must be installed where it is loaded (`pip install parasent`, or "
    "`pip install .` from a parasent checkout), and sentence-transformers 6 imports a class outside its "
    "own package only with `trust_remote_code=True` (the class comes from the installed parasent; "
    "nothing is downloaded). The vectors are exactly those of `parasent.load()` on the model in "
    "`0_ParasentEmbedding/`, word bigrams included, weights as stored there."
)


def stored_dtype(model: Model) -> str:
    """How the model's embedding table is held: ``int8`` (per-row scales), ``float16`` or ``float32``."""
    return held_dtype(model.weights[EMBEDDING_KEY])


def needs_module(model: Model, dtype: str | None) -> bool:
    """Whether a sentence-transformers export must be the parasent module: a model that composes
    its rows (the contextual tier), a featurizer no static-embedding tokenizer reproduces, or
    int8 weights (which ``StaticEmbedding`` cannot hold)."""
    if not is_static_model(model):
        return True
    from parasent.text.pretrained import PretrainedTokenizer
    from parasent.text.tokenizer import WordTokenizer

    plain = type(model.tokenizer) in (WordTokenizer, PretrainedTokenizer)  # not a subclass's kind
    if not plain or model.tokenizer.kind not in STATIC_KINDS or dtype == "int8":
        return True
    return not static_tokenizer_reproduces(model)


# Texts on which a static-embedding reader's tokens are compared with parasent's: words in and out
# of any vocabulary, punctuation, accents, digits, an empty text.
PROBE_TEXTS = (
    "A man is playing a guitar.",
    "Zxqvbn unbelievablyness wordsmithery, isn't it?!",
    "Naïve café: 3.5 km/h -- «quoted» text",
    "",
)


def static_tokenizer_reproduces(model: Model) -> bool:
    """Whether the ``tokenizer.json`` an export writes, run as a static-embedding reader runs it
    (``encode_batch`` without special tokens), gives the tokens parasent averages on
    :data:`PROBE_TEXTS` (parasent's dropped unknown tokens aside: their row is zeroed). A check
    of behaviour, not of names: a featurizer that adds tokens of its own fails it."""
    from tokenizers import Tokenizer

    pipeline = Tokenizer.from_str(model.tokenizer.tokenizer.to_str())  # what save writes, in memory
    theirs = pipeline.encode_batch(list(PROBE_TEXTS), add_special_tokens=False)
    ours = model.tokenizer.encode_batch(list(PROBE_TEXTS))
    skipped = getattr(model.tokenizer, "unk_id", UNK_ID) if model.tokenizer.unknown == "skip" else None
    for index, encoding in enumerate(theirs):
        if [t for t in encoding.ids if t != skipped] != ours.sentence(index).tolist():
            return False
    return True


def export_table(model: Model, *, zero_unknown: bool, truncate_dim: int | None) -> np.ndarray:
    """The float32 token table to export (a copy). ``zero_unknown``: a model that skips unknown
    tokens gets a zero unknown row, for a reader that averages them in (sentence-transformers):
    that scales a sentence vector by (known / all tokens) but leaves its direction, hence every
    cosine, unchanged."""
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


def check_exportable(model: Model, format: str) -> None:
    """Refuse a model ``format`` cannot express, before anything is done to it (``--words-only``):
    model2vec holds one table to average, so a model that composes its rows with weights of its
    own (the contextual tier) exports only to sentence-transformers, as parasent's module."""
    if format != "sentence-transformers" and not is_static_model(model):
        raise ModelFormatError(
            f"only averaging models export to {format}; {model.encoder_config['name']!r} is not static "
            "(--format sentence-transformers exports it as parasent's module)"
        )


def export_static(
    model: Model,
    directory: str | Path,
    *,
    format: str = "sentence-transformers",
    dtype: str | None = None,
    truncate_dim: int | None = None,
    overwrite: bool = False,
    transfer: dict[str, float] | None = None,
) -> Path:
    """Write ``model`` in ``format`` atomically, weights readable by others (0644 under the usual umask).
    ``dtype`` None keeps the model's own storage where the written format holds it, else float32.
    ``transfer``: scores measured on the exported vectors, for the card (the source's never are).
    An existing model directory is replaced; any other non-empty directory only with ``overwrite``."""
    if format not in FORMATS:
        raise ValueError(f"unknown export format {format!r} (known: {', '.join(FORMATS)})")
    if dtype is not None and dtype not in DTYPES[format]:
        raise ValueError(f"{format} export writes {', '.join(DTYPES[format])} weights, not {dtype!r}")
    check_exportable(model, format)
    exported = _with_scores(model, transfer)
    if format == "sentence-transformers" and needs_module(model, dtype):
        return _export_module(exported, Path(directory), dtype, truncate_dim, overwrite)
    if needs_module(model, None):
        raise ModelFormatError(_model2vec_refusal(model))
    if dtype is None:
        held = stored_dtype(model)
        dtype = held if held in DTYPES[format] and (held != "int8" or format == "model2vec") else "float32"
    return _export_table(exported, Path(directory), format, dtype, truncate_dim, overwrite)


def _model2vec_refusal(model: Model) -> str:
    if model.tokenizer.kind == "word_bigrams":
        grams = "word bigrams and trigrams" if model.tokenizer.config().get("trigrams") else "word bigrams"
        return (
            f"model2vec averages the tokens of one tokenizer; this model also averages {grams}, "
            "which no model2vec tokenizer produces (`parasent export --words-only` writes its word rows "
            "alone, which encode differently; --format sentence-transformers exports it losslessly)"
        )
    return (
        f"model2vec averages the tokens of one tokenizer.json; this model's {model.tokenizer.kind!r} "
        "featurizer is not one (--format sentence-transformers exports it losslessly)"
    )


def _with_scores(model: Model, transfer: dict[str, float] | None) -> Model:
    """The model with the source's scores removed from its metadata, and ``transfer`` (measured on
    the exported vectors) in their place when given (a model of the source's class: this module
    never imports :mod:`parasent.core.model`, which imports it)."""
    metadata = {k: v for k, v in model.metadata.items() if k not in SCORE_KEYS}
    if transfer:
        metadata["transfer"] = dict(transfer)
        metadata["transfer_measured"] = "on the exported vectors, at export"
    copy = type(model)(model.tokenizer, model.encoder_config, model.weights, metadata=metadata)
    copy.path = model.path
    return copy


def _export_module(
    model: Model, directory: Path, dtype: str | None, truncate_dim: int | None, overwrite: bool
) -> Path:
    """The parasent module layout (module docstring): the model directory at ``dtype`` (None: as held)."""
    dtype = dtype or stored_dtype(model)
    if truncate_dim is not None and not 0 < truncate_dim <= model.dim:
        raise ValueError(f"truncate_dim must be in 1..{model.dim}, got {truncate_dim}")
    held = sum(int(getattr(w, "nbytes", 0)) for w in model.weights.values())  # about what is written
    with staged_directory(directory, model=True, overwrite=overwrite, needs_bytes=held) as staging:
        modules = [{"idx": 0, "name": "0", "path": PARASENT_MODULE_DIR, "type": PARASENT_MODULE_TYPE}]
        (staging / MODULES_FILE).write_text(json.dumps(modules, indent=2) + "\n")
        _write_st_settings(staging, requires_parasent=True)
        module_dir = staging / PARASENT_MODULE_DIR
        model.save(module_dir, dtype=dtype)
        settings = {"truncate_dim": truncate_dim}
        (module_dir / MODULE_SETTINGS_FILE).write_text(json.dumps(settings) + "\n")
        dim = truncate_dim or model.dim
        usage = _usage("sentence-transformers", module=True)
        card = render_card(
            model,
            library="sentence-transformers",
            dim=dim,
            dtype=dtype,
            usage=usage,
            notes=_notes(model, True),
        )
        (staging / CARD_FILE).write_text(card)
    return directory


def _write_st_settings(staging: Path, *, requires_parasent: bool = False) -> None:
    settings: dict = {"similarity_fn_name": "cosine", "prompts": {}, "default_prompt_name": None}
    if requires_parasent:  # sentence-transformers >= 6 checks it before importing the module class
        reason = "modules.json names parasent's module class, ParasentEmbedding"
        settings["requirements"] = {"parasent": {"specifier": ">=0.1", "reason": reason}}
    (staging / "config_sentence_transformers.json").write_text(json.dumps(settings, indent=2) + "\n")


def dropped_by_words_only(model: Model) -> list[str]:
    """What :func:`parasent.core.compaction.words_only` dropped from the model it made ("25000
    word bigrams", ...), from the note it left in the model's metadata: an export says it."""
    note = model.metadata.get("compaction")
    note = note if isinstance(note, dict) else {}
    kinds = (
        ("bigrams_dropped", "word bigrams"),
        ("trigrams_dropped", "word trigrams"),
        ("pieces_dropped", "subword pieces"),
    )
    return [f"{note[key]} {what}" for key, what in kinds if note.get(key)]


def lost_in_format(model: Model, format: str) -> list[str]:
    """What ``format`` cannot hold of ``model`` (said on the card and by ``parasent export``):
    model2vec drops the unknown token before averaging, where a model may average one shared
    [UNK] row in."""
    if format == "model2vec" and model.tokenizer.unknown == "vector":
        return [
            "Unknown words skipped: model2vec drops the unknown token before averaging, where the source "
            "model averages one shared [UNK] row in, so a text with a word outside the vocabulary gets "
            "another vector here (a text of no known word, the zero vector); the sentence-transformers "
            "export keeps the source's vectors exactly."
        ]
    return []


def _notes(model: Model, module: bool, format: str = "sentence-transformers") -> list[str]:
    """What a reader of the card must know: parasent is needed; rows the export dropped or the
    format cannot hold; where scores come from."""
    notes = ([REQUIRES_PARASENT] if module else []) + lost_in_format(model, format)
    dropped = dropped_by_words_only(model)
    if dropped:
        notes.append(
            f"Words only: the source model also averaged {' and '.join(dropped)}, dropped here "
            "(`--words-only`; words outside the vocabulary are skipped), so these vectors differ "
            "from the source model's; its scores do not apply."
        )
    if model.metadata.get("transfer_measured"):
        notes.append("The scores below were measured on the exported vectors, at export.")
    else:
        notes.append("No scores: none were measured on the exported vectors (`parasent export --evaluate`).")
    return notes


def _export_table(
    model: Model, directory: Path, format: str, dtype: str, truncate_dim: int | None, overwrite: bool
) -> Path:
    """One embedding table for a static-embedding reader (sentence-transformers, model2vec)."""
    from safetensors.numpy import save_file

    table = export_table(model, zero_unknown=format == "sentence-transformers", truncate_dim=truncate_dim)
    weights_name = "embedding.weight" if format == "sentence-transformers" else "embeddings"
    with staged_directory(directory, model=True, overwrite=overwrite, needs_bytes=table.nbytes) as staging:
        modules = [{"idx": 0, "name": "0", "path": "", "type": STATIC_EMBEDDING_TYPE}]
        if model.normalizes:
            modules.append({"idx": 1, "name": "1", "path": "1_Normalize", "type": NORMALIZE_TYPE})
            (staging / "1_Normalize").mkdir()
        (staging / MODULES_FILE).write_text(json.dumps(modules, indent=2) + "\n")
        if format == "sentence-transformers":
            _write_st_settings(staging)
        else:
            _write_model2vec_config(staging, model, table.shape[1], dtype)
        save_file(
            {weights_name: np.ascontiguousarray(cast_table(table, dtype))},
            native_path(staging / "model.safetensors"),
        )
        ordinary_permissions(staging / "model.safetensors")
        model.tokenizer.save(staging)
        card = render_card(
            model,
            library=format,
            dim=table.shape[1],
            dtype=dtype,
            usage=_usage(format),
            notes=_notes(model, False, format),
            unknown="skip" if lost_in_format(model, format) else None,
        )
        (staging / CARD_FILE).write_text(card)
    return directory


def _write_model2vec_config(staging: Path, model: Model, dim: int, dtype: str) -> None:
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


def _usage(format: str, *, module: bool = False) -> str:
    if format == "model2vec":
        return (
            'from model2vec import StaticModel\n\nmodel = StaticModel.from_pretrained("path/to/this/directory")\n'
            "# parasent reads it too: parasent.load(path)"
        )
    if module:
        return (
            "from sentence_transformers import SentenceTransformer\n\n"
            "# needs parasent installed; trust_remote_code lets sentence-transformers 6 import its class\n"
            'model = SentenceTransformer("path/to/this/directory", trust_remote_code=True)\n'
            "# parasent reads it too: parasent.load(path)"
        )
    return (
        "from sentence_transformers import SentenceTransformer\n\n"
        'model = SentenceTransformer("path/to/this/directory")\n# parasent reads it too: parasent.load(path)'
    )
