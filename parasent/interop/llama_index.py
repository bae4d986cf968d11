"""A parasent model as LlamaIndex's ``BaseEmbedding``, in process (``parasent[llamaindex]``).

LlamaIndex builds its indexes with an embedding model object (``Settings.embed_model``, or the
``embed_model`` of an index); this one encodes with the model itself, no service between, in
batches of ``embed_batch_size``: unit vectors, so LlamaIndex's cosine and dot product agree.

    from llama_index.core import Settings
    from parasent.interop.llama_index import ParasentEmbedding
    Settings.embed_model = ParasentEmbedding()  # the shipped default; or ParasentEmbedding("runs/ctx")
"""

from __future__ import annotations

from typing import Any

try:
    from llama_index.core.base.embeddings.base import BaseEmbedding
    from pydantic import PrivateAttr
except ImportError as exc:  # pragma: no cover - the extra is missing
    from parasent.support.extras import install_line

    raise ImportError(f"the LlamaIndex adapter needs llama-index-core: {install_line('llamaindex')}") from exc


class ParasentEmbedding(BaseEmbedding):
    """LlamaIndex embeddings from a parasent model: a name or directory (``parasent.load``'s
    argument; None: the shipped default) or a loaded model."""

    _model: Any = PrivateAttr()

    def __init__(self, model: Any = None, **kwargs: Any) -> None:
        from parasent.interop.loaded import loaded_model

        loaded = loaded_model(model)
        kwargs.setdefault(
            "model_name", "parasent-default" if model is None else str(getattr(model, "name", model))
        )
        kwargs.setdefault("embed_batch_size", 1024)
        super().__init__(**kwargs)
        self._model = loaded

    @classmethod
    def class_name(cls) -> str:
        return "ParasentEmbedding"

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self._model.encode(
            list(texts), batch_size=self.embed_batch_size, normalize_embeddings=True
        ).tolist()

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._get_text_embeddings([text])[0]

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._get_text_embedding(query)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)

    async def _aget_text_embedding(self, text: str) -> list[float]:
        return self._get_text_embedding(text)
