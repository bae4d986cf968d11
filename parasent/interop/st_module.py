"""A sentence-transformers module that is a parasent model: ``SentenceTransformer(DIR)`` on a
directory written by :func:`parasent.core.model_formats.export.export_static` for a model that no
``StaticEmbedding`` reproduces (word bigrams, or any featurizer a static-embedding tokenizer
cannot express), with its weights as parasent stores them (int8 stays int8).

The module folder holds a parasent model directory; the module loads it with
:func:`parasent.load` and every vector comes from :meth:`SentenceModel.encode`, so tokenizing
and averaging are parasent's own code, for whatever featurizer kind the installed parasent
reads: nothing is reimplemented here, and the export encodes exactly what ``parasent.load()``
encodes. sentence-transformers names this class in ``modules.json``, so parasent must be
installed where the export is used (the card says so). Inference only: the vectors carry no
gradient (fine-tune with ``parasent train --init-model``).

This module imports torch (a sentence-transformers module is a ``torch.nn.Module``); only
sentence-transformers imports it, never the rest of parasent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import torch

from parasent.core.model_formats.export import MODULE_SETTINGS_FILE, stored_dtype


class ParasentEmbedding(torch.nn.Module):
    """``preprocess`` keeps the texts (the parasent model tokenizes them itself, so any
    featurizer kind passes through unchanged); ``forward`` encodes them with the model."""

    modalities: list[str] = ["text"]

    def __init__(self, model: Any, truncate_dim: int | None = None) -> None:
        super().__init__()
        self.model = model
        self.truncate_dim = truncate_dim
        # follows .to(device), so the vectors land where sentence-transformers expects them
        self.register_buffer("_anchor", torch.zeros(0), persistent=False)

    # sentence-transformers' module interface ------------------------------------------------
    def preprocess(self, inputs: list[str], prompt: str | None = None, **kwargs: Any) -> dict[str, Any]:
        texts = [str(text) for text in inputs]
        if prompt:
            texts = [prompt + text for text in texts]
        return {"texts": texts}

    tokenize = preprocess  # the name sentence-transformers < 5 calls

    def forward(self, features: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        vectors = self.model.encode(features["texts"], truncate_dim=self.truncate_dim)
        embedding = torch.from_numpy(np.ascontiguousarray(vectors, dtype=np.float32))
        features["sentence_embedding"] = embedding.to(self._anchor.device)
        return features

    def get_sentence_embedding_dimension(self) -> int:
        return self.truncate_dim or self.model.dim

    get_embedding_dimension = get_sentence_embedding_dimension

    @property
    def max_seq_length(self) -> None:
        return None  # an average has no length limit

    def save(self, output_path: str, *args: Any, **kwargs: Any) -> None:
        """Write the wrapped model's directory into ``output_path``, at the dtype it is held in;
        the module's settings are written inside the model's atomic save, so that they appear
        with the model or not at all."""
        settings = json.dumps({"truncate_dim": self.truncate_dim}) + "\n"

        def write_settings(directory: Path) -> None:
            (directory / MODULE_SETTINGS_FILE).write_text(settings, encoding="utf-8")

        self.model.save(
            Path(output_path), dtype=stored_dtype(self.model), extra_files=write_settings, overwrite=True
        )

    @staticmethod
    def load(input_path: str) -> ParasentEmbedding:
        from parasent.core.model import load
        from parasent.support.regular_files import read_regular_json

        path = Path(input_path)
        settings_path = path / MODULE_SETTINGS_FILE
        settings = read_regular_json(settings_path) if settings_path.is_file() else {}
        return ParasentEmbedding(load(path), truncate_dim=settings.get("truncate_dim"))
