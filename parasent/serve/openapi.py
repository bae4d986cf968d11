"""The service describes itself: ``GET /openapi.json`` (OpenAPI 3.1) and ``GET /docs``.

The document is made from the route table of :mod:`parasent.serve.app` (an :class:`Endpoint`
per route) and the pydantic models of :mod:`parasent.serve.schemas`, the same models that
validate requests, so it cannot describe a request the service would refuse. ``/docs`` is
Swagger UI over that document, its script and stylesheet served from the ``swagger-ui-py``
package (the ``serve`` extra) rather than a CDN: the page works offline.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from parasent.serve.schemas import ErrorResponse

ERRORS = {
    400: "A malformed request: bad JSON, an unknown field, a value of the wrong type",
    404: "No such path (for /v1/search: no index loaded; for /v1/models/{model}: not this service's model)",
    408: "The request body did not arrive within --body-timeout",
    401: "No valid API key: send 'Authorization: Bearer KEY' (only when the service was started with keys)",
    413: "Over a limit: body size, texts per request, characters per text, matrix size",
    500: "Encoding failed for this request alone (the service goes on)",
    503: "The encoding worker has stopped",
}
ASSETS = {"swagger-ui-bundle.js": "text/javascript", "swagger-ui.css": "text/css"}


@dataclass(frozen=True)
class Endpoint:
    """One route: its handler and what the document says of it."""

    path: str
    method: str
    handler: Callable
    summary: str
    request: type[BaseModel] | None = None
    responses: tuple[type[BaseModel], ...] = ()  # none: plain text
    errors: tuple[int, ...] = ()


def openapi_document(
    endpoints: list[Endpoint], version: str, service: str = "", secured: Callable[[str], bool] | None = None
) -> dict[str, Any]:
    """The OpenAPI 3.1 document of ``endpoints``; ``service`` (its model and limits) ends the
    description; ``secured(path)`` says which paths need an API key (a bearer scheme that the
    docs page's "Authorize" button fills)."""
    models = {ErrorResponse: "serialization"}
    for endpoint in endpoints:
        if endpoint.request is not None:
            models[endpoint.request] = "validation"
        for model in endpoint.responses:
            models[model] = "serialization"
    keys, schemas = models_json_schema(
        [(model, mode) for model, mode in models.items()], ref_template="#/components/schemas/{model}"
    )
    refs = {model: keys[(model, mode)]["$ref"] for model, mode in models.items()}
    paths: dict[str, Any] = {}
    for endpoint in endpoints:
        operation = _operation(endpoint, refs)
        if secured is not None and secured(endpoint.path):
            operation["security"] = [{"bearer": []}]
            operation["responses"]["401"] = _error(401, refs)
        paths.setdefault(endpoint.path, {})[endpoint.method.lower()] = operation
    components: dict[str, Any] = {"schemas": schemas.get("$defs", {})}
    if secured is not None:
        components["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "parasent serve",
            "version": version,
            "description": "Paraphrastic sentence embeddings over HTTP: OpenAI-compatible /v1/embeddings, "
            "cosine similarity, search over a saved index. Every error has the ErrorResponse shape. "
            + service,
        },
        "paths": paths,
        "components": components,
    }


def _operation(endpoint: Endpoint, refs: dict[type[BaseModel], str]) -> dict[str, Any]:
    operation: dict[str, Any] = {
        "summary": endpoint.summary,
        "operationId": endpoint.handler.__name__,
        "responses": {"200": _success(endpoint, refs)},
    }
    names = re.findall(r"{(\w+)}", endpoint.path)
    if names:  # a path template: each of its names is a required string parameter
        operation["parameters"] = [
            {"name": n, "in": "path", "required": True, "schema": {"type": "string"}} for n in names
        ]
    if endpoint.request is not None:
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": _media(endpoint.request, refs)},
        }
    for status in endpoint.errors:
        operation["responses"][str(status)] = _error(status, refs)
    return operation


def _error(status: int, refs: dict[type[BaseModel], str]) -> dict[str, Any]:
    return {
        "description": ERRORS[status],
        "content": {"application/json": {"schema": {"$ref": refs[ErrorResponse]}}},
    }


def _success(endpoint: Endpoint, refs: dict[type[BaseModel], str]) -> dict[str, Any]:
    if not endpoint.responses:
        return {
            "description": "Prometheus text exposition",
            "content": {"text/plain": {"schema": {"type": "string"}}},
        }
    if len(endpoint.responses) == 1:
        media = _media(endpoint.responses[0], refs)
    else:
        media = {"schema": {"oneOf": [{"$ref": refs[m]} for m in endpoint.responses]}}
    return {"description": "OK", "content": {"application/json": media}}


def _media(model: type[BaseModel], refs: dict[type[BaseModel], str]) -> dict[str, Any]:
    media: dict[str, Any] = {"schema": {"$ref": refs[model]}}
    examples = (model.model_config.get("json_schema_extra") or {}).get("examples")
    if examples:
        media["example"] = examples[0]
    return media


def assets_dir() -> Path | None:
    """Swagger UI's files, from the installed ``swagger-ui-py`` package (None: not installed)."""
    spec = importlib.util.find_spec("swagger_ui")
    if spec is None or not spec.submodule_search_locations:
        return None
    static = Path(next(iter(spec.submodule_search_locations))) / "static"
    return static if all((static / name).is_file() for name in ASSETS) else None


DOCS_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>parasent serve: API</title>
<link rel="stylesheet" href="docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script>
window.ui = SwaggerUIBundle({url: "openapi.json", dom_id: "#swagger-ui", tryItOutEnabled: false});
</script>
</body>
</html>
"""
