"""The Starlette application of ``parasent serve``.

The route table is :data:`ENDPOINTS`: each :class:`~parasent.serve.openapi.Endpoint` names its
handler and its request and response models (:mod:`parasent.serve.schemas`), from which
``/openapi.json`` is made. Every endpoint goes through :func:`_endpoint`: it times the request
for ``/metrics`` and turns an :class:`ApiError` into its JSON error; anything unexpected becomes
a JSON 500 rather than a dropped connection, and the service goes on serving.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import os
import signal
import time
from collections.abc import Awaitable, Callable
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

import numpy as np
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

import parasent
from parasent.core.inference import cosine_matrix, cosine_rows, normalize_rows
from parasent.corpus.index import unread_queries, zero_scored
from parasent.errors import ApiError, BatcherStopped, EncodingFailed
from parasent.serve import schemas, tokens
from parasent.serve.backends import make_backend
from parasent.serve.batching import MicroBatcher
from parasent.serve.deadlines import Deadlines
from parasent.serve.gate import KEY_ID, Gate, is_open
from parasent.serve.keys import ApiKeys
from parasent.serve.metrics import Metrics
from parasent.serve.openapi import ASSETS, DOCS_PAGE, Endpoint, assets_dir, openapi_document
from parasent.serve.requests import parse_body, validate
from parasent.serve.settings import ServeConfig

log = logging.getLogger("parasent.serve")
MAX_MATRIX = 1_000_000  # similarity scores in one response
# An oversized body up to this many times --max-body-bytes is read through (discarded) before
# the 413, so the client reads the answer: a 20 MB chunked body against 8 MiB was reset at 2x.
DRAIN_FACTOR = 8


class Service:
    """The loaded model (and index) with its batcher and counters."""

    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.index = None
        if config.index:
            from parasent.corpus.index import load_index

            self.index = load_index(config.index)
        self.keys = ApiKeys(tuple(config.api_key_digests), config.api_key_file)
        self.backend = make_backend(config.backend, config.model, config.name)
        self.metrics = Metrics()
        self.batcher = MicroBatcher(self.backend.encode, config.max_batch, self.metrics.batch_size)
        self.deadlines = Deadlines(config.body_timeout)
        self.started = int(time.time())
        self.context = {"config": config, "dim": self.backend.dim}

    async def body(self, request: Request) -> dict[str, Any]:
        """The request's JSON object, read within ``body_timeout`` seconds (a client that sends
        half a body and stalls gets a 408 and loses its connection, holding nothing)."""
        try:
            raw = await self.deadlines.run(self._read(request))
        except asyncio.TimeoutError:
            raise ApiError(
                408, f"the request body did not arrive within {self.config.body_timeout:g} s"
            ) from None
        return parse_body(raw, self.config)

    async def _read(self, request: Request) -> bytes:
        """The body. An oversized one is refused with a 413: one declared (or sent, chunked)
        within :data:`DRAIN_FACTOR` times the limit is read through first (not kept), so the
        client gets its answer instead of a reset connection (closing a socket with unread bytes
        resets it); a larger one (``Content-Length: 10^12``) is answered at once, and its
        connection closed: reading it through would take until the body timeout, or for ever."""
        limit = self.config.max_body_bytes
        drained = DRAIN_FACTOR * limit
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            if int(declared) <= drained:
                async for _ in request.stream():
                    pass
            raise ApiError(413, f"request body of {declared} bytes exceeds the limit of {limit}")
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size <= limit:
                chunks.append(chunk)
            elif size > drained:
                break
        if size > limit:
            more = "more than " if size > drained else ""
            raise ApiError(413, f"request body of {more}{size} bytes exceeds the limit of {limit}")
        return b"".join(chunks)

    async def encode(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        try:
            return await self.batcher.encode(texts)
        except EncodingFailed as exc:
            raise ApiError(
                500, f"encoding this request's input failed ({exc}); the service goes on"
            ) from None
        except BatcherStopped as exc:
            raise ApiError(503, f"{exc}: restart the service") from None


def _endpoint(service: Service, path: str, handler: Callable[[Request], Awaitable[Response]]):
    async def run(request: Request) -> Response:
        start = time.perf_counter()
        try:
            response = await handler(request)
        except ApiError as exc:
            headers = {"connection": "close"} if exc.status in (408, 413) else None  # body not read
            response = JSONResponse(exc.body(), status_code=exc.status, headers=headers)
        except ClientDisconnect:
            response = Response(status_code=499)
        except asyncio.CancelledError:  # the server stops (SIGTERM) and cancels what still runs
            _handled(asyncio.current_task())
            response = JSONResponse(
                ApiError(503, "the service is stopping; send the request again").body(),
                status_code=503,
                headers={"connection": "close"},
            )
        except Exception:  # a bug, not the client's fault: say so in JSON and keep serving
            log.exception("error answering %s", path)
            response = JSONResponse(ApiError(500, "internal error").body(), status_code=500)
        service.metrics.request(path, response.status_code, time.perf_counter() - start, KEY_ID.get())
        return response

    return run


def _handled(task: asyncio.Task | None) -> None:
    """Mark a cancellation as handled (Python 3.11+): the request is answered instead of its
    task ending with a ``CancelledError`` that uvicorn logs as a traceback."""
    if task is not None and hasattr(task, "uncancel"):
        task.uncancel()


try:  # the serve extra has orjson; without it, the standard library's json
    import orjson
except ImportError:
    orjson = None


class VectorsResponse(JSONResponse):
    """JSON with float32 vectors written by orjson straight from their numpy rows, each number
    the shortest text that reads back as the same float32 (as text-embeddings-inference writes
    them): for 32 vectors of 224 numbers 0.17 ms and 87 kB against 2.9 ms and 150 kB for
    ``json``, which writes the float64 of each float32 to 17 digits; that dominated the time of a
    single-text request."""

    def render(self, content: Any) -> bytes:
        if orjson is None:
            return super().render(content)
        return orjson.dumps(content, option=orjson.OPT_SERIALIZE_NUMPY)


def _vector_field(vectors: np.ndarray, encoding: str) -> list:
    if encoding == "base64":
        return [
            base64.b64encode(np.ascontiguousarray(v, dtype="<f4").tobytes()).decode("ascii") for v in vectors
        ]
    if orjson is None:
        return vectors.tolist()
    return list(np.ascontiguousarray(vectors, dtype=np.float32))


async def embeddings(service: Service, request: Request) -> Response:
    """OpenAI's embeddings endpoint: unit vectors, shortened to ``dimensions`` (and unit again)."""
    parsed = validate(schemas.EmbeddingsRequest, await service.body(request), service.context)
    texts = parsed.input
    if texts and not isinstance(texts[0], str):  # token arrays
        texts = tokens.decode(texts, parsed.model, service.config.max_chars)
    vectors, lengths = await service.encode(texts)
    if parsed.dimensions is not None:
        vectors = normalize_rows(np.ascontiguousarray(vectors[:, : parsed.dimensions]))
    rows = _vector_field(vectors, parsed.encoding_format)
    count = int(np.sum(lengths))
    return VectorsResponse(
        {
            "object": "list",
            "data": [{"object": "embedding", "index": i, "embedding": row} for i, row in enumerate(rows)],
            "model": service.backend.name,
            "usage": {"prompt_tokens": count, "total_tokens": count},
        }
    )


async def similarity(service: Service, request: Request) -> Response:
    """``pairs`` -> one cosine per pair; ``sentences1`` x ``sentences2`` -> the cosine matrix."""
    parsed = validate(schemas.SimilarityRequest, await service.body(request), service.context)
    if parsed.pairs is not None:
        vectors, _ = await service.encode([t for p in parsed.pairs for t in p])
        scores = cosine_rows(vectors[0::2], vectors[1::2])
        return JSONResponse({"object": "list", "scores": [round(float(s), 6) for s in scores]})
    left, right = parsed.sentences1, parsed.sentences2
    if len(left) * len(right) > MAX_MATRIX:
        raise ApiError(413, f"a {len(left)} x {len(right)} matrix exceeds {MAX_MATRIX} scores")
    vectors, _ = await service.encode(left + right)
    matrix = cosine_matrix(vectors[: len(left)], vectors[len(left) :])
    return JSONResponse({"object": "matrix", "matrix": np.round(matrix.astype(np.float64), 6).tolist()})


async def search(service: Service, request: Request) -> Response:
    """Top-k texts of the loaded index per query (exact, or the index's graph)."""
    body = await service.body(request)
    if service.index is None:
        raise ApiError(404, "no index loaded: start the service with --index DIR (built by parasent index)")
    parsed = validate(schemas.SearchRequest, body, service.context)
    index = service.index
    results = await asyncio.to_thread(index.search, parsed.query, parsed.top_k, exact=parsed.exact)
    unread = []  # the queries' own vectors are read only where every hit scored 0
    if zero_scored(results):
        unread = await asyncio.to_thread(unread_queries, results, parsed.query, index.model)
    return JSONResponse({"object": "list", "results": results, "unread_queries": unread})


def _card(service: Service) -> dict[str, object]:
    return {"id": service.backend.name, "object": "model", "created": service.started, "owned_by": "parasent"}


async def models(service: Service, request: Request) -> Response:
    """OpenAI's model list: the one model this service answers with."""
    return JSONResponse({"object": "list", "data": [_card(service)]})


async def model(service: Service, request: Request) -> Response:
    """OpenAI's model retrieval (``client.models.retrieve``): this service's model, or a 404."""
    asked = request.path_params["model"]
    if asked != service.backend.name:
        raise ApiError(
            404,
            f"The model {asked!r} does not exist: this service answers with {service.backend.name!r}",
            "model",
        )
    return JSONResponse(_card(service))


async def health(service: Service, request: Request) -> Response:
    """ok while the encoding worker runs; a 503 once it has stopped (requests could not be answered)."""
    alive = service.batcher.alive
    return JSONResponse(
        {
            "status": "ok" if alive else "error",
            "model": service.backend.name,
            "backend": service.config.backend,
            "dim": service.backend.dim,
            "index": len(service.index) if service.index is not None else None,
            "pid": os.getpid(),
            "batcher": "running" if alive else "stopped",
        },
        status_code=200 if alive else 503,
    )


async def metrics(service: Service, request: Request) -> Response:
    return PlainTextResponse(service.metrics.render(), media_type="text/plain; version=0.0.4")


FAILURES = (400, 408, 413, 500, 503)
ENDPOINTS = [
    Endpoint(
        "/v1/embeddings",
        "POST",
        embeddings,
        "Embed texts (OpenAI's embeddings API)",
        schemas.EmbeddingsRequest,
        (schemas.EmbeddingsResponse,),
        FAILURES,
    ),
    Endpoint(
        "/v1/similarity",
        "POST",
        similarity,
        "Cosine similarity of pairs, or the matrix of two lists",
        schemas.SimilarityRequest,
        (schemas.SimilarityScores, schemas.SimilarityMatrix),
        FAILURES,
    ),
    Endpoint(
        "/v1/search",
        "POST",
        search,
        "Top-k texts of the loaded index (--index) per query",
        schemas.SearchRequest,
        (schemas.SearchResponse,),
        (*FAILURES, 404),
    ),
    Endpoint("/v1/models", "GET", models, "The model this service answers with", None, (schemas.ModelList,)),
    Endpoint(
        "/v1/models/{model}",
        "GET",
        model,
        "That model, if this service answers with it",
        None,
        (schemas.ModelInfo,),
        (404,),
    ),  # fmt: skip
    Endpoint(
        "/health",
        "GET",
        health,
        "Liveness: the model and the encoding worker",
        None,
        (schemas.Health,),
        (503,),
    ),
    Endpoint("/metrics", "GET", metrics, "Prometheus metrics: requests, latency, batch sizes"),
]


def build_routes(service: Service) -> list[Route]:
    routes = [
        Route(e.path, _endpoint(service, e.path, partial(e.handler, service)), methods=[e.method])
        for e in ENDPOINTS
    ]
    secured = (lambda path: not is_open(path)) if service.keys.required else None
    document = openapi_document(ENDPOINTS, parasent.__version__, _limits(service), secured)
    document = json.dumps(document).encode()
    routes.append(Route("/openapi.json", lambda request: Response(document, media_type="application/json")))
    routes.append(Route("/docs", lambda request: HTMLResponse(DOCS_PAGE)))
    routes.append(Route("/docs/{name}", _asset))
    return routes


def _limits(service: Service) -> str:
    config = service.config
    return (
        f"This service: model {service.backend.name} ({service.backend.dim} dimensions); at most "
        f"{config.max_inputs} texts per request, {config.max_chars} characters per text, "
        f"{config.max_body_bytes} bytes per body received within {config.body_timeout:g} s, "
        f"top_k {config.max_top_k}."
    )


async def _asset(request: Request) -> Response:
    """Swagger UI's script and stylesheet, from the installed package."""
    name = request.path_params["name"]
    folder = assets_dir()
    if name not in ASSETS:
        raise HTTPException(404, "no such file")
    if folder is None:
        from parasent.support.extras import install_line

        raise HTTPException(404, f"the docs page needs swagger-ui-py: {install_line('serve')}")
    return FileResponse(folder / name, media_type=ASSETS[name])


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
        service.deadlines.start()
        _reload_keys_on_hangup(service.keys)
        yield
        await service.deadlines.stop()
        await service.batcher.stop()

    app = Starlette(
        routes=build_routes(service),
        lifespan=lifespan,
        exception_handlers={HTTPException: _http_error},
        middleware=[Middleware(Gate, keys=service.keys, refused=service.metrics.unauthorized)],
    )
    app.state.service = service
    return app


def _reload_keys_on_hangup(keys: ApiKeys) -> None:
    """SIGHUP reads the key file again (where the loop can take signals: Unix, main thread)."""
    if keys.path is None or not hasattr(signal, "SIGHUP"):
        return
    try:
        asyncio.get_running_loop().add_signal_handler(signal.SIGHUP, keys.reload, True)
    except (NotImplementedError, RuntimeError, ValueError):
        log.warning("SIGHUP cannot be handled here; the key file is still read again when it changes")


def app_from_env() -> Starlette:
    """The application of one worker process (``uvicorn --factory``), configured by the parent."""
    return create_app(ServeConfig.from_env())
