"""Token-id input, as LangChain's OpenAIEmbeddings sends it by default: decoded with tiktoken
when its encoding file is cached, else a 400 naming the client setting that sends text."""

import asyncio

import numpy as np
import pytest

from parasent import load
from parasent.serve import tokens
from tests.serve.server import launch_fixture, model_dir_fixture, post  # noqa: F401 - fixtures

# what OpenAIEmbeddings(base_url=..., model="text-embedding-ada-002").embed_documents([...]) posts
# (the openai client it wraps adds encoding_format base64): one list of token ids per text
LANGCHAIN_BODY = {
    "input": [[64, 893, 374, 5737, 17418]],
    "model": "text-embedding-ada-002",
    "encoding_format": "base64",
}


@pytest.fixture()
def offline_server(model_dir, launch, tmp_path):
    """A server whose tiktoken cache is empty: token ids cannot be decoded."""
    (tmp_path / "tiktoken").mkdir()
    return launch(
        ["--model", str(model_dir / "model")], env={"TIKTOKEN_CACHE_DIR": str(tmp_path / "tiktoken")}
    )


def test_token_ids_without_the_encoding_file_are_a_400_naming_the_setting(offline_server):
    reply = post(offline_server, "/v1/embeddings", LANGCHAIN_BODY)
    assert reply.status_code == 400, reply.text
    error = reply.json()["error"]
    assert error["param"] == "input" and "check_embedding_ctx_length=False" in error["message"]
    assert "cl100k_base" in error["message"]


def byte_encoding():
    """A tiktoken encoding that needs no download: one token per byte."""
    tiktoken = pytest.importorskip("tiktoken")
    ranks = {bytes([i]): i for i in range(256)}
    return tiktoken.Encoding(name="bytes", pat_str=r"[\s\S]", mergeable_ranks=ranks, special_tokens={})


def test_langchain_openai_embeddings_against_the_service(offline_server, model_dir, monkeypatch):
    embeddings_module = pytest.importorskip("langchain_openai", reason="the test extra has langchain-openai")
    openai = pytest.importorskip("openai")
    tiktoken = pytest.importorskip("tiktoken")
    encoding = byte_encoding()  # the client tokenizes locally; offline it cannot fetch cl100k_base
    monkeypatch.setattr(tiktoken, "encoding_for_model", lambda name: encoding)
    options = {"base_url": f"{offline_server}/v1", "api_key": "unused", "max_retries": 0}
    default = embeddings_module.OpenAIEmbeddings(**options)
    with pytest.raises(openai.BadRequestError, match="check_embedding_ctx_length=False"):
        default.embed_documents(["a man is playing guitar"])
    text_client = embeddings_module.OpenAIEmbeddings(**options, check_embedding_ctx_length=False)
    vectors = np.array(text_client.embed_documents(["a man is playing guitar", "the cat sleeps"]))
    query = np.array(text_client.embed_query("a dog runs"))
    model = load(model_dir / "model")
    expected = model.encode(
        ["a man is playing guitar", "the cat sleeps", "a dog runs"], normalize_embeddings=True
    )
    np.testing.assert_allclose(vectors, expected[:2], atol=1e-6)
    np.testing.assert_allclose(query, expected[2], atol=1e-6)


def test_token_ids_are_decoded_with_a_cached_encoding(model_dir, tmp_path, monkeypatch):
    httpx = pytest.importorskip("httpx")
    tiktoken = pytest.importorskip("tiktoken")
    from parasent.serve.app import create_app
    from parasent.serve.settings import ServeConfig

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    tokens.cache_path("cl100k_base").write_bytes(b"cached")  # where tiktoken keeps the file
    monkeypatch.setattr(tiktoken, "get_encoding", lambda name: byte_encoding())
    app = create_app(ServeConfig(model=str(model_dir / "model")))
    texts = ["a man is playing guitar", "the cat"]
    ids = [list(text.encode()) for text in texts]

    async def scenario():
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
                nested = await client.post(
                    "/v1/embeddings", json={"input": ids, "model": "text-embedding-3-small"}
                )
                flat = await client.post("/v1/embeddings", json={"input": ids[1]})
                bad = await client.post("/v1/embeddings", json={"input": [[1, 100_000]]})
                return nested, flat, bad

    nested, flat, bad = asyncio.run(scenario())
    expected = load(model_dir / "model").encode(texts, normalize_embeddings=True)
    assert nested.status_code == 200, nested.text
    np.testing.assert_allclose([d["embedding"] for d in nested.json()["data"]], expected, atol=1e-6)
    np.testing.assert_allclose(flat.json()["data"][0]["embedding"], expected[1], atol=1e-6)
    assert bad.status_code == 400 and "token id" in bad.json()["error"]["message"]


@pytest.mark.parametrize(
    "value, expected",
    [
        ([1, 2], True),
        ([[1], [2, 3]], True),
        ([], False),
        ([True], False),
        ([[1], "a"], False),
        (["a"], False),
    ],
)
def test_what_counts_as_token_input(value, expected):
    assert tokens.is_token_input(value) is expected
