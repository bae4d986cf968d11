"""A parasent model as LangChain's ``Embeddings``, in process (``parasent[langchain]``).

Retrieval pipelines built on LangChain take an ``Embeddings`` object (``embed_documents``,
``embed_query``, and their async forms, which LangChain runs in a thread). This one encodes with
the model itself, no service between: unit vectors (as the OpenAI embeddings LangChain users
swap it for), so a vector store's inner product is the cosine.

    from parasent.interop.langchain import ParasentEmbeddings
    store = InMemoryVectorStore(ParasentEmbeddings())          # the shipped default
    store = InMemoryVectorStore(ParasentEmbeddings("runs/ctx"))  # any model directory
"""

from __future__ import annotations

from typing import Any

try:
    from langchain_core.embeddings import Embeddings
except ImportError as exc:  # pragma: no cover - the extra is missing
    from parasent.support.extras import install_line

    raise ImportError(f"the LangChain adapter needs langchain-core: {install_line('langchain')}") from exc


class ParasentEmbeddings(Embeddings):
    """LangChain embeddings from a parasent model: a name or directory (``parasent.load``'s
    argument; None: the shipped default) or a loaded model."""

    def __init__(self, model: Any = None, *, batch_size: int = 1024) -> None:
        from parasent.interop.loaded import loaded_model

        self.model = loaded_model(model)
        self.batch_size = batch_size

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        vectors = self.model.encode(list(texts), batch_size=self.batch_size, normalize_embeddings=True)
        return vectors.tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]
