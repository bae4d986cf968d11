"""The Starlette application of ``parasent serve``.

Every endpoint goes through :func:`_endpoint`: it times the request for ``/metrics`` and turns
an :class:`ApiError` into its JSON 4xx; anything unexpected becomes a JSON 500 rather than a
dropped connection, and the service goes on serving.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import os
import time
from collections.abc import Awaitable, Callable
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

import numpy as np
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from parasent.inference import cosine_matrix, cosine_rows, normalize_rows
from parasent.serve.backends import make_backend
from parasent.serve.batching import MicroBatcher
from parasent.serve.config import ServeConfig
from parasent.serve.metrics import Metrics
from parasent.serve.requests import (
    ApiError,
    check_fields,
    embeddings_request,
    integer,
    optional_string,
    parse_body,
    texts_of,
)

log = logging.getLogger("parasent.serve")
MAX_MATRIX = 1_000_000  # similarity scores in one response


class Service:
    """The loaded model (and index) with its batcher and counters."""

    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.index = None
        if config.index:
            from parasent.index import load_index

            self.index = load_index(config.index)
        self.backend = make_backend(config.backend, config.model, config.name)
        self.metrics = Metrics()
        self.batcher = MicroBatcher(self.backend.encode, config.max_batch, self.metrics.batch_size)

    async def body(self, request: Request) -> dict[str, Any]:
        """The request's JSON object; an oversized body is read through (not kept) and refused,
        so the client gets its 413 instead of a reset connection."""
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.config.max_body_bytes:
            async for _ in request.stream():
                pass
            raise ApiError(
                413, f"request body of {declared} bytes exceeds the limit of {self.config.max_body_bytes}"
            )
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size <= self.config.max_body_bytes:
                chunks.append(chunk)
        if size > self.config.max_body_bytes:
            raise ApiError(
                413, f"request body of {size} bytes exceeds the limit of {self.config.max_body_bytes}"
            )
        return parse_body(b"".join(chunks), self.config)


def _endpoint(service: Service, path: str, handler: Callable[[Request], Awaitable[Response]]):
    async def run(request: Request) -> Response:
        start = time.perf_counter()
        try:
            response = await handler(request)
        except ApiError as exc:
            response = JSONResponse(exc.body(), status_code=exc.status)
        except ClientDisconnect:
            response = Response(status_code=499)
        except Exception:  # a bug, not the client's fault: say so in JSON and keep serving
            log.exception("error answering %s", path)
            body = {
                "error": {"message": "internal error", "type": "server_error", "param": None, "code": 500}
            }
            response = JSONResponse(body, status_code=500)
        service.metrics.request(path, response.status_code, time.perf_counter() - start)
        return response

    return run


def _vector_field(vectors: np.ndarray, encoding: str) -> list:
    if encoding == "base64":
        return [
            base64.b64encode(np.ascontiguousarray(v, dtype="<f4").tobytes()).decode("ascii") for v in vectors
        ]
    return vectors.tolist()


async def embeddings(service: Service, request: Request) -> Response:
    """OpenAI's embeddings endpoint: unit vectors, shortened to ``dimensions`` (and unit again)."""
    parsed = embeddings_request(await service.body(request), service.config, service.backend.dim)
    vectors, lengths = await service.batcher.encode(parsed.texts)
    if parsed.dimensions is not None:
        vectors = normalize_rows(np.ascontiguousarray(vectors[:, : parsed.dimensions]))
    rows = _vector_field(vectors, parsed.encoding_format)
    tokens = int(np.sum(lengths))
    return JSONResponse(
        {
            "object": "list",
            "data": [{"object": "embedding", "index": i, "embedding": row} for i, row in enumerate(rows)],
            "model": service.backend.name,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }
    )


async def similarity(service: Service, request: Request) -> Response:
    """``pairs`` -> one cosine per pair; ``sentences1`` x ``sentences2`` -> the cosine matrix."""
    body = await service.body(request)
    check_fields(body, {"pairs", "sentences1", "sentences2", "model"}, set())
    optional_string(body, "model")
    if "pairs" in body:
        if "sentences1" in body or "sentences2" in body:
            raise ApiError(400, "give either 'pairs' or 'sentences1' and 'sentences2', not both")
        pairs = body["pairs"]
        if not isinstance(pairs, list) or not pairs:
            raise ApiError(400, "'pairs' must be a non-empty list of [text, text] pairs", "pairs")
        if any(not isinstance(p, list) or len(p) != 2 for p in pairs):
            raise ApiError(400, "each of 'pairs' must be a list of two texts", "pairs")
        flat = texts_of([t for p in pairs for t in p], "pairs", service.config, allow_single=False)
        vectors, _ = await service.batcher.encode(flat)
        scores = cosine_rows(vectors[0::2], vectors[1::2])
        return JSONResponse({"object": "list", "scores": [round(float(s), 6) for s in scores]})
    if "sentences1" not in body or "sentences2" not in body:
        raise ApiError(400, "give 'pairs', or 'sentences1' and 'sentences2' for a matrix")
    left = texts_of(body["sentences1"], "sentences1", service.config)
    right = texts_of(body["sentences2"], "sentences2", service.config)
    if len(left) * len(right) > MAX_MATRIX:
        raise ApiError(413, f"a {len(left)} x {len(right)} matrix exceeds {MAX_MATRIX} scores")
    vectors, _ = await service.batcher.encode(left + right)
    matrix = cosine_matrix(vectors[: len(left)], vectors[len(left) :])
    return JSONResponse({"object": "matrix", "matrix": np.round(matrix.astype(np.float64), 6).tolist()})


async def search(service: Service, request: Request) -> Response:
    """Top-k texts of the loaded index per query (exact, or the index's graph)."""
    body = await service.body(request)
    if service.index is None:
        raise ApiError(404, "no index loaded: start the service with --index DIR (built by parasent index)")
    check_fields(body, {"query", "top_k", "exact", "model"}, {"query"})
    optional_string(body, "model")
    queries = texts_of(body["query"], "query", service.config)
    top_k = integer(body, "top_k", 10, 1, service.config.max_top_k)
    exact = body.get("exact", False)
    if not isinstance(exact, bool):
        raise ApiError(400, "'exact' must be true or false", "exact")
    results = await asyncio.to_thread(service.index.search, queries, top_k, exact=exact)
    return JSONResponse({"object": "list", "results": results})


async def health(service: Service, request: Request) -> Response:
    return JSONResponse(
        {
            "status": "ok",
            "model": service.backend.name,
            "backend": service.config.backend,
            "dim": service.backend.dim,
            "index": len(service.index) if service.index is not None else None,
            "pid": os.getpid(),
        }
    )


async def metrics(service: Service, request: Request) -> Response:
    return PlainTextResponse(service.metrics.render(), media_type="text/plain; version=0.0.4")


ENDPOINTS = [
    ("/v1/embeddings", embeddings, "POST"),
    ("/v1/similarity", similarity, "POST"),
    ("/v1/search", search, "POST"),
    ("/health", health, "GET"),
    ("/metrics", metrics, "GET"),
]


def build_routes(service: Service) -> list[Route]:
    return [
        Route(path, _endpoint(service, path, partial(handler, service)), methods=[method])
        for path, handler, method in ENDPOINTS
    ]


async def _http_error(request: Request, exc: Exception) -> Response:
    """404 and 405 in the same JSON shape as every other error."""
    status = getattr(exc, "status_code", 500)
    message = f"{request.method} {request.url.path}: {getattr(exc, 'detail', 'error')}"
    return JSONResponse(
        {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": status}},
        status_code=status,
    )


def create_app(config: ServeConfig) -> Starlette:
    service = Service(config)

    @asynccontextmanager
    async def lifespan(app: Starlette):
        service.batcher.start()
        yield
        await service.batcher.stop()

    app = Starlette(
        routes=build_routes(service), lifespan=lifespan, exception_handlers={HTTPException: _http_error}
    )
    app.state.service = service
    return app


def app_from_env() -> Starlette:
    """The application of one worker process (``uvicorn --factory``), configured by the parent."""
    return create_app(ServeConfig.from_env())
