"""Other libraries' model directories that a :class:`~parasent.core.model.SentenceModel` reads
and writes: sentence-transformers' static-embedding directories and model2vec's, and the registry
of them (:data:`FORMATS`) that :meth:`SentenceModel.load` asks before reading a parasent directory
and :meth:`SentenceModel.export` writes through.

Why they are part of the core, below the model: the model reaches its formats (load detects them,
export writes them), and the formats need the model's lower parts (the stored weights, the checks
of untrusted files, the card, compaction's notes). Kept in ``parasent/interop`` and imported by
name from ``parasent.core.model``, they and the model imported each other. Here the dependency
points one way -- ``core.model`` -> ``core.model_formats`` -> the core's lower modules -- because
a converter never imports ``parasent.core.model``: it builds the class it is handed
(``SentenceModel.load`` passes itself) and writes the model it is given. Reading and writing need
only json, numpy, safetensors and tokenizers. What runs inside the other libraries (the MTEB
adapter, the sentence-transformers module class that wraps a parasent model) stays in
:mod:`parasent.interop`, above the core.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parasent.core.model_formats import model2vec, sentence_transformers


@dataclass(frozen=True)
class Converter:
    """One format: ``detect(path)`` says whether a directory is one; ``read(path, model_class)``
    reads it as a ``model_class``; ``write(model, path, *, dtype, truncate_dim, overwrite,
    transfer)`` writes a static model in it."""

    detect: Callable[[str | Path], bool]
    read: Callable[..., Any]
    write: Callable[..., Path]


#: name -> converter, asked in this order (a model2vec directory also passes the
#: sentence-transformers check: both are read by one static-embedding reader).
FORMATS: dict[str, Converter] = {
    "sentence-transformers": Converter(
        detect=sentence_transformers.is_sentence_transformers_dir,
        read=sentence_transformers.load_sentence_transformers_static,
        write=sentence_transformers.export_sentence_transformers,
    ),
    "model2vec": Converter(
        detect=model2vec.is_model2vec_dir,
        read=sentence_transformers.load_sentence_transformers_static,
        write=model2vec.export_model2vec,
    ),
}


def model_format(name: str) -> Converter:
    """The converter of a registered directory format."""
    if name not in FORMATS:
        raise ValueError(f"unknown model format {name!r} (known: {', '.join(FORMATS)})")
    return FORMATS[name]
