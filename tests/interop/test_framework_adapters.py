"""The in-process adapters against the installed libraries: LangChain's ``Embeddings`` and
LlamaIndex's ``BaseEmbedding`` give the model's own unit vectors, and each library's retrieval
finds the right text with them (no service)."""

from __future__ import annotations

import numpy as np
import pytest

from parasent.core.model import SentenceModel
from parasent.text.word_vectors import WordVectors

WORDS = ["a", "man", "plays", "guitar", "the", "cat", "sleeps", "stock", "market", "falls"]
DOCS = ["a man plays guitar", "the cat sleeps", "the stock market falls"]


@pytest.fixture(scope="module")
def model():
    table = np.random.default_rng(0).normal(size=(len(WORDS), 16)).astype(np.float32)
    return SentenceModel.from_vectors(WordVectors(WORDS, table))


def _unit(model, texts):
    vectors = model.encode(texts)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_langchain_embeddings_are_the_models_unit_vectors_and_retrieve(model):
    pytest.importorskip("langchain_core")
    from langchain_core.vectorstores import InMemoryVectorStore

    from parasent.interop.langchain import ParasentEmbeddings

    embeddings = ParasentEmbeddings(model)
    np.testing.assert_allclose(embeddings.embed_documents(DOCS), _unit(model, DOCS), atol=1e-6)
    np.testing.assert_allclose(
        embeddings.embed_query("the cat sleeps"), _unit(model, ["the cat sleeps"])[0], atol=1e-6
    )
    store = InMemoryVectorStore.from_texts(DOCS, embeddings)
    assert store.similarity_search("a cat sleeps", k=1)[0].page_content == "the cat sleeps"


def test_langchain_embeddings_load_a_model_directory(model, tmp_path):
    pytest.importorskip("langchain_core")
    from parasent.interop.langchain import ParasentEmbeddings

    model.save(tmp_path / "m")
    for given in (tmp_path / "m", str(tmp_path / "m")):  # a str has an encode method too: still a path
        np.testing.assert_allclose(
            ParasentEmbeddings(given).embed_query("a man"), _unit(model, ["a man"])[0], atol=1e-6
        )


def test_llama_index_embedding_is_the_models_unit_vectors_and_retrieves(model):
    pytest.importorskip("llama_index.core")
    from llama_index.core import Document, VectorStoreIndex

    from parasent.interop.llama_index import ParasentEmbedding

    embedding = ParasentEmbedding(model, model_name="toy")
    np.testing.assert_allclose(embedding.get_text_embedding_batch(DOCS), _unit(model, DOCS), atol=1e-6)
    np.testing.assert_allclose(embedding.get_query_embedding("a man"), _unit(model, ["a man"])[0], atol=1e-6)
    index = VectorStoreIndex.from_documents([Document(text=d) for d in DOCS], embed_model=embedding)
    found = index.as_retriever(similarity_top_k=1).retrieve("the stock market falls")
    assert found[0].node.get_content() == "the stock market falls"
