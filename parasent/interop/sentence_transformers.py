"""sentence-transformers static-embedding directories: write one from a parasent averaging model,
and read one as a parasent model (to serve it with numpy, or fine-tune it with the
paraphrastic objective).

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

from parasent import __version__
from parasent.errors import ModelFormatError
from parasent.staging import staged_directory
from parasent.text.tokenizer import UNK_ID

if TYPE_CHECKING:
    from parasent.model import SentenceModel

MODULES_FILE = "modules.json"
# The alias every sentence-transformers version from 3.0 resolves (6.x's own name is
# sentence_transformers.sentence_transformer.modules.static_embedding.StaticEmbedding).
STATIC_EMBEDDING_TYPE = "sentence_transformers.models.StaticEmbedding"
# Modules after the embedding that do not change cosine similarities.
COSINE_PRESERVING = ("Normalize",)


def export_sentence_transformers(model: SentenceModel, directory: str | Path) -> Path:
    """Write ``model`` (a static averaging model) as a sentence-transformers directory, atomically.

    A model that skips unknown words exports with a zero ``[UNK]`` row: sentence-transformers
    then averages over unknown words too, which scales a sentence vector by (known / all
    tokens) but leaves its direction, hence every cosine, unchanged.
    """
    from safetensors.numpy import save_file

    from parasent.model import EMBEDDING_KEY

    if not model._entry.static:
        raise ModelFormatError(
            f"only averaging models export to sentence-transformers; {model.encoder_config['name']!r} is not static"
        )
    table = np.array(model.weights[EMBEDDING_KEY], dtype=np.float32)
    if model.tokenizer.unknown == "skip":
        table[UNK_ID] = 0.0
    directory = Path(directory)
    with staged_directory(directory) as staging:
        modules = [{"idx": 0, "name": "0", "path": "", "type": STATIC_EMBEDDING_TYPE}]
        (staging / MODULES_FILE).write_text(json.dumps(modules, indent=2) + "\n")
        settings = {"similarity_fn_name": "cosine", "prompts": {}, "default_prompt_name": None}
        (staging / "config_sentence_transformers.json").write_text(json.dumps(settings, indent=2) + "\n")
        save_file({"embedding.weight": np.ascontiguousarray(table)}, str(staging / "model.safetensors"))
        model.tokenizer.save(staging)
        (staging / "README.md").write_text(
            "# Static word-averaging sentence embeddings\n\n"
            f"Exported by parasent {__version__} from a `{model.encoder_config['name']}` model "
            f"({model.tokenizer.vocab_size} tokens x {table.shape[1]} dimensions).\n\n"
            "```python\nfrom sentence_transformers import SentenceTransformer\n\n"
            'model = SentenceTransformer("path/to/this/directory")\n```\n\n'
            "parasent reads this directory too: `parasent.load(path)`.\n"
        )
    return directory


def is_sentence_transformers_dir(path: str | Path) -> bool:
    return (Path(path) / MODULES_FILE).is_file()


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
    modules_path = path / MODULES_FILE
    try:
        modules = json.loads(modules_path.read_text())
        kinds = [str(m["type"]) for m in modules]
        first = modules[0]
    except (json.JSONDecodeError, KeyError, TypeError, IndexError) as exc:
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
    elif "embeddings" in weights:
        table = _fold_model2vec(weights)
    else:
        raise ModelFormatError(f"{weights_path}: no 'embedding.weight' (or model2vec 'embeddings') tensor")
    tokenizer = PretrainedTokenizer.load(module_dir)
    if table.ndim != 2 or table.shape[0] != tokenizer.vocab_size:
        raise ModelFormatError(
            f"{path}: embedding of shape {table.shape} does not match the tokenizer's {tokenizer.vocab_size} tokens"
        )
    config = {
        "name": "word_averaging",
        "vocab_size": tokenizer.vocab_size,
        "embedding_dim": int(table.shape[1]),
    }
    metadata = {"source": {"format": "sentence-transformers", "path": str(path.resolve())}}
    return SentenceModel(tokenizer, config, {EMBEDDING_KEY: table}, metadata=metadata)


# The converter interface of :data:`parasent.model.FORMATS`.
detect = is_sentence_transformers_dir
read = load_sentence_transformers_static
write = export_sentence_transformers
