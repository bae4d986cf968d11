"""Request bodies checked field by field: every malformed request becomes an :class:`ApiError`
(a JSON 4xx naming what is wrong), never an exception inside the service.

Checked: the body's size (413), UTF-8 (400), JSON syntax (400), a JSON object (400), unknown
fields (400), each field's type (400), empty input (400), the number of texts and their length
(413, limits from :class:`~parasent.serve.config.ServeConfig`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from parasent.serve.config import ServeConfig


class ApiError(Exception):
    """An error answered as ``{"error": {"message", "type", "param"}}`` with ``status``."""

    def __init__(self, status: int, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.param = param

    def body(self) -> dict[str, Any]:
        kind = "request_too_large" if self.status == 413 else "invalid_request_error"
        return {"error": {"message": self.message, "type": kind, "param": self.param, "code": self.status}}


def parse_body(raw: bytes, config: ServeConfig) -> dict[str, Any]:
    """The JSON object of a request body."""
    if len(raw) > config.max_body_bytes:
        raise ApiError(413, f"request body of {len(raw)} bytes exceeds the limit of {config.max_body_bytes}")
    if not raw.strip():
        raise ApiError(400, "empty request body: expected a JSON object")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ApiError(400, f"request body is not valid UTF-8 (byte {exc.start})") from None
    try:
        body = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ApiError(400, f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except ValueError as exc:
        raise ApiError(400, f"malformed JSON: {exc}") from None
    if not isinstance(body, dict):
        raise ApiError(400, f"expected a JSON object, got {type(body).__name__}")
    return body


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not valid JSON")


def check_fields(body: dict[str, Any], allowed: set[str], required: set[str]) -> None:
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise ApiError(
            400, f"unknown field(s): {', '.join(unknown)} (allowed: {', '.join(sorted(allowed))})", unknown[0]
        )
    for name in sorted(required):
        if name not in body:
            raise ApiError(400, f"missing field '{name}'", name)


def texts_of(value: Any, field: str, config: ServeConfig, *, allow_single: bool = True) -> list[str]:
    """A string or a non-empty list of strings, within the limits."""
    if isinstance(value, str) and allow_single:
        texts = [value]
    elif isinstance(value, list):
        if not value:
            raise ApiError(400, f"'{field}' is empty: give at least one text", field)
        if any(not isinstance(item, str) for item in value):
            bad = next(item for item in value if not isinstance(item, str))
            hint = " (token arrays are not supported: send text)" if isinstance(bad, (int, list)) else ""
            raise ApiError(400, f"'{field}' must hold strings, found {type(bad).__name__}{hint}", field)
        texts = value
    else:
        wanted = "a string or a list of strings" if allow_single else "a list of strings"
        raise ApiError(400, f"'{field}' must be {wanted}, got {_type(value)}", field)
    for text in texts:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate escape such as "\ud800"
            raise ApiError(
                400, f"'{field}' holds a text that is not valid Unicode (a lone surrogate)", field
            ) from None
    if len(texts) > config.max_inputs:
        raise ApiError(413, f"'{field}' holds {len(texts)} texts; the limit is {config.max_inputs}", field)
    longest = max(len(t) for t in texts)
    if longest > config.max_chars:
        raise ApiError(413, f"a text of {longest} characters exceeds the limit of {config.max_chars}", field)
    return texts


def integer(body: dict[str, Any], field: str, default: int | None, low: int, high: int) -> int | None:
    value = body.get(field, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ApiError(400, f"'{field}' must be an integer, got {_type(value)}", field)
    if not low <= value <= high:
        raise ApiError(400, f"'{field}' must be between {low} and {high}, got {value}", field)
    return value


def choice(body: dict[str, Any], field: str, default: str, options: tuple[str, ...]) -> str:
    value = body.get(field, default)
    if value not in options or not isinstance(value, str):
        raise ApiError(400, f"'{field}' must be one of {', '.join(options)}, got {value!r}", field)
    return value


def optional_string(body: dict[str, Any], field: str) -> str | None:
    value = body.get(field)
    if value is not None and not isinstance(value, str):
        raise ApiError(400, f"'{field}' must be a string, got {_type(value)}", field)
    return value


def _type(value: Any) -> str:
    names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    return names.get(type(value), "number" if isinstance(value, (int, float)) else type(value).__name__)


@dataclass
class EmbeddingsRequest:
    texts: list[str]
    model: str | None
    encoding_format: str
    dimensions: int | None


def embeddings_request(body: dict[str, Any], config: ServeConfig, dim: int) -> EmbeddingsRequest:
    """OpenAI's embeddings request: input, model, encoding_format, dimensions, user."""
    check_fields(body, {"input", "model", "encoding_format", "dimensions", "user"}, {"input"})
    optional_string(body, "user")
    return EmbeddingsRequest(
        texts=texts_of(body["input"], "input", config),
        model=optional_string(body, "model"),
        encoding_format=choice(body, "encoding_format", "float", ("float", "base64")),
        dimensions=integer(body, "dimensions", None, 1, dim),
    )
