"""Every request and response of the service, declared once.

The request models validate request bodies (:func:`parasent.serve.requests.validate`: strict
types, no unknown fields, the limits of the service's :class:`ServeConfig` passed as validation
context) and, with the response models, make the OpenAPI document (:mod:`parasent.serve.openapi`).
The handlers build responses as plain dicts for speed; ``tests/serve`` checks each real response
against its model here, so the document and the service cannot drift apart.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from parasent.errors import ApiError
from parasent.serve.requests import texts_of
from parasent.serve.tokens import is_token_input, token_arrays


def _example(example: dict[str, Any]) -> ConfigDict:
    return ConfigDict(extra="forbid", strict=True, json_schema_extra={"examples": [example]})


def _config(info: ValidationInfo):
    return info.context["config"]


Texts = Annotated[
    str | list[str],
    Field(
        description="One text, or a non-empty list of texts (at most --max-inputs, each at most --max-chars)"
    ),
]
ModelName = Annotated[
    str | None, Field(description="Accepted for compatibility with OpenAI clients; the loaded model answers")
]


class EmbeddingsRequest(BaseModel):
    """OpenAI's embeddings request."""

    model_config = _example({"input": ["A man is playing a guitar.", "A woman slices an onion."]})

    input: Annotated[
        str | list[str] | list[int] | list[list[int]],
        Field(
            description="Text or texts to embed; or token ids (a list of integers, or a list of such "
            "lists, as LangChain's OpenAIEmbeddings sends), decoded with tiktoken when its encoding "
            "file is cached locally, else a 400"
        ),
    ]
    model: ModelName = None
    encoding_format: Annotated[
        Literal["float", "base64"],
        Field(description="float: a list of numbers; base64: the little-endian float32 bytes"),
    ] = "float"
    dimensions: Annotated[
        int | None, Field(ge=1, description="Keep the first d dimensions (1..the model's), unit length again")
    ] = None
    user: Annotated[str | None, Field(description="Accepted and ignored (OpenAI's end-user id)")] = None

    @field_validator("input", mode="before")
    @classmethod
    def _input(cls, value: Any, info: ValidationInfo) -> Any:
        config = _config(info)
        if is_token_input(value):
            return token_arrays(value, config.max_inputs, config.max_chars)
        return texts_of(value, "input", config)

    @field_validator("dimensions")
    @classmethod
    def _dimensions(cls, value: int | None, info: ValidationInfo) -> int | None:
        dim = info.context["dim"]
        if value is not None and value > dim:
            raise ApiError(400, f"'dimensions' must be between 1 and {dim}, got {value}", "dimensions")
        return value


class SimilarityRequest(BaseModel):
    """Cosines: one per pair, or the matrix of two lists."""

    model_config = _example({"pairs": [["A man is playing a guitar.", "A man plays the guitar."]]})

    pairs: Annotated[
        list[Annotated[list[str], Field(min_length=2, max_length=2)]] | None,
        Field(min_length=1, description="Pairs of texts: one cosine each"),
    ] = None
    sentences1: Texts | None = None
    sentences2: Texts | None = None
    model: ModelName = None

    @model_validator(mode="after")
    def _one_form(self, info: ValidationInfo) -> SimilarityRequest:
        config = _config(info)
        if self.pairs is not None:
            if self.sentences1 is not None or self.sentences2 is not None:
                raise ApiError(400, "give either 'pairs' or 'sentences1' and 'sentences2', not both")
            texts_of([t for p in self.pairs for t in p], "pairs", config, allow_single=False)
            return self
        if self.sentences1 is None or self.sentences2 is None:
            raise ApiError(400, "give 'pairs', or 'sentences1' and 'sentences2' for a matrix")
        self.sentences1 = texts_of(self.sentences1, "sentences1", config)
        self.sentences2 = texts_of(self.sentences2, "sentences2", config)
        return self


class SearchRequest(BaseModel):
    """The top-k texts of the loaded index for each query."""

    model_config = _example({"query": "a man playing a guitar", "top_k": 3})

    query: Texts
    top_k: Annotated[int, Field(ge=1, description="Hits per query (at most the service's max_top_k)")] = 10
    exact: Annotated[bool, Field(description="Exact search even when the index has a graph")] = False
    model: ModelName = None

    @field_validator("query", mode="before")
    @classmethod
    def _query(cls, value: Any, info: ValidationInfo) -> Any:
        return texts_of(value, "query", _config(info), allow_blank=False)

    @field_validator("top_k")
    @classmethod
    def _top_k(cls, value: int, info: ValidationInfo) -> int:
        high = _config(info).max_top_k
        if value > high:
            raise ApiError(400, f"'top_k' must be between 1 and {high}, got {value}", "top_k")
        return value


# responses


def _response(example: dict[str, Any]) -> ConfigDict:
    return ConfigDict(json_schema_extra={"examples": [example]})


class Embedding(BaseModel):
    object: Literal["embedding"]
    index: int
    embedding: Annotated[list[float] | str, Field(description="Numbers, or base64 of float32 bytes")]


class Usage(BaseModel):
    prompt_tokens: int
    total_tokens: int


class EmbeddingsResponse(BaseModel):
    model_config = _response(
        {
            "object": "list",
            "data": [{"object": "embedding", "index": 0, "embedding": [0.0123, -0.0456, 0.0789]}],
            "model": "parasent-default",
            "usage": {"prompt_tokens": 7, "total_tokens": 7},
        }
    )

    object: Literal["list"]
    data: list[Embedding]
    model: str
    usage: Usage


class SimilarityScores(BaseModel):
    model_config = _response({"object": "list", "scores": [0.912345]})

    object: Literal["list"]
    scores: list[float]


class SimilarityMatrix(BaseModel):
    model_config = _response({"object": "matrix", "matrix": [[0.912345, 0.1034]]})

    object: Literal["matrix"]
    matrix: list[list[float]]


class SearchHit(BaseModel):
    corpus_id: int
    score: float
    text: str


class SearchResponse(BaseModel):
    model_config = _response(
        {
            "object": "list",
            "results": [[{"corpus_id": 0, "score": 0.93, "text": "a man is playing guitar"}]],
            "unread_queries": [],
        }
    )

    object: Literal["list"]
    results: Annotated[list[list[SearchHit]], Field(description="Per query, best first")]
    unread_queries: Annotated[
        list[int],
        Field(
            description="The positions of the queries with no unit the model knows (emoji only, a script "
            "it never saw): every score of theirs is 0 and their order says nothing"
        ),
    ]


class ModelInfo(BaseModel):
    model_config = _response(
        {"id": "parasent-default", "object": "model", "created": 0, "owned_by": "parasent"}
    )

    id: str
    object: Literal["model"]
    created: int
    owned_by: str


class ModelList(BaseModel):
    model_config = _response(
        {
            "object": "list",
            "data": [{"id": "parasent-default", "object": "model", "created": 0, "owned_by": "parasent"}],
        }
    )

    object: Literal["list"]
    data: list[ModelInfo]


class Health(BaseModel):
    model_config = _response(
        {
            "status": "ok",
            "model": "parasent-default",
            "backend": "parasent",
            "dim": 224,
            "index": None,
            "pid": 4242,
            "batcher": "running",
        }
    )

    status: Annotated[
        Literal["ok", "error"], Field(description="error (with a 503): the encoding worker stopped")
    ]
    model: str
    backend: str
    dim: int
    index: Annotated[int | None, Field(description="Texts in the loaded index, null without one")]
    pid: int
    batcher: Literal["running", "stopped"]


class ErrorDetail(BaseModel):
    message: str
    type: Annotated[
        str,
        Field(
            description="invalid_request_error, request_too_large, request_timeout, "
            "service_unavailable or server_error"
        ),
    ]
    param: Annotated[str | None, Field(description="The request field at fault, when there is one")]
    code: Annotated[int, Field(description="The HTTP status")]


class ErrorResponse(BaseModel):
    """Every error, 4xx and 5xx, has this shape (OpenAI's)."""

    model_config = _response(
        {
            "error": {
                "message": "'input' must be a string or a list of strings, got number",
                "type": "invalid_request_error",
                "param": "input",
                "code": 400,
            }
        }
    )

    error: ErrorDetail
