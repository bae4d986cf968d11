"""Request bodies to checked values: every malformed request becomes an :class:`ApiError` (a JSON
4xx naming what is wrong), never an exception inside the service.

Checked here: the body's size (413), UTF-8 (400), nesting depth (400, before the JSON parser
runs, so a 100,000-deep array cannot exhaust the parser's recursion), JSON syntax (400), a JSON
object (400), and the texts of a field (empty, lone surrogates, their number and length). The
fields and their types are declared once, as the pydantic models of
:mod:`parasent.serve.schemas`, which validate a body (:func:`validate`) and give the OpenAPI
document; their errors are turned into the same messages here.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

import numpy as np
from pydantic import BaseModel, ValidationError

from parasent.errors import ApiError
from parasent.serve.settings import ServeConfig

MAX_DEPTH = 32  # arrays and objects inside each other; the deepest valid request nests 3
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')  # a JSON string (escapes included)
_OPEN, _CLOSE = b"[{", b"]}"


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
    check_depth(raw)
    try:
        body = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ApiError(400, f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except ValueError as exc:
        raise ApiError(400, f"malformed JSON: {exc}") from None
    except RecursionError:  # not reached after check_depth; kept so that no body can be a 500
        raise ApiError(400, f"JSON nested deeper than {MAX_DEPTH} levels") from None
    if not isinstance(body, dict):
        raise ApiError(400, f"expected a JSON object, got {type(body).__name__}")
    return body


def check_depth(raw: bytes) -> None:
    """Refuse a body whose arrays and objects nest deeper than ``MAX_DEPTH``, naming the top-level
    field that holds the deep value. Brackets inside strings do not count. A body with no more
    brackets than the limit cannot exceed it, so almost every request costs two ``bytes.count``."""
    if sum(raw.count(bytes([c])) for c in _OPEN) <= MAX_DEPTH:
        return
    skeleton = _STRING.sub(b'""', raw)  # the strings emptied: the brackets left are JSON's own
    codes = np.frombuffer(skeleton, dtype=np.uint8)
    step = np.isin(codes, list(_OPEN)).astype(np.int32) - np.isin(codes, list(_CLOSE)).astype(np.int32)
    depth = np.cumsum(step)
    if depth.size == 0 or int(depth.max()) <= MAX_DEPTH:
        return
    field = _field_at(skeleton, codes, depth, int(np.argmax(depth > MAX_DEPTH)), raw)
    where = f"'{field}' is" if field else "the body is"
    raise ApiError(400, f"{where} nested deeper than {MAX_DEPTH} levels of arrays or objects", field)


def _field_at(skeleton: bytes, codes: np.ndarray, depth: np.ndarray, position: int, raw: bytes) -> str | None:
    """The name of the top-level key whose value holds ``position`` of the skeleton, if any."""
    if not skeleton.lstrip().startswith(b"{"):
        return None
    colons = np.flatnonzero((codes[:position] == ord(":")) & (depth[:position] == 1))
    if not colons.size:
        return None
    key_index = skeleton[: colons[-1]].count(b'""') - 1  # the key is the last string before it
    for index, match in enumerate(_STRING.finditer(raw)):
        if index == key_index:
            try:
                return json.loads(match.group())
            except ValueError:
                return None
    return None


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not valid JSON")


Model = TypeVar("Model", bound=BaseModel)


def validate(model: type[Model], body: dict[str, Any], context: dict[str, Any]) -> Model:
    """``body`` as ``model`` (its declared fields and types); the first problem as an
    :class:`ApiError`: unknown fields first, then missing ones, then wrong values."""
    try:
        return model.model_validate(body, context=context)
    except ValidationError as exc:
        raise _api_error(model, exc.errors(include_url=False)) from None


WANTED = {
    "int_type": "an integer",
    "string_type": "a string",
    "bool_type": "true or false",
    "list_type": "a list",
    "float_type": "a number",
    "dict_type": "an object",
}


def _api_error(model: type[BaseModel], errors: list[dict[str, Any]]) -> ApiError:
    unknown = [str(e["loc"][0]) for e in errors if e["type"] == "extra_forbidden"]
    if unknown:
        allowed = ", ".join(sorted(model.model_fields))
        return ApiError(
            400, f"unknown field(s): {', '.join(sorted(unknown))} (allowed: {allowed})", unknown[0]
        )
    missing = [str(e["loc"][0]) for e in errors if e["type"] == "missing" and len(e["loc"]) == 1]
    if missing:
        return ApiError(400, f"missing field '{missing[0]}'", missing[0])
    error = errors[0]
    field = str(error["loc"][0]) if error["loc"] else None
    value, kind, context = error.get("input"), error["type"], error.get("ctx", {})
    if kind in WANTED:
        path = "".join(f"[{p}]" for p in error["loc"][1:])
        message = f"'{field}'{path} must be {WANTED[kind]}, got {_type(value)}"
    elif kind == "literal_error":
        message = f"'{field}' must be one of {context.get('expected')}, got {value!r}"
    elif kind in ("greater_than_equal", "less_than_equal"):
        bound = ">=" if kind == "greater_than_equal" else "<="
        message = f"'{field}' must be {bound} {context.get('ge', context.get('le'))}, got {value!r}"
    elif kind in ("too_short", "too_long"):
        message = f"'{field}': {error['msg'].lower()}"
    else:
        message = f"'{field}': {error['msg']}" if field else error["msg"]
    return ApiError(400, message, field)


def texts_of(
    value: Any, field: str, config: ServeConfig, *, allow_single: bool = True, allow_blank: bool = True
) -> list[str]:
    """A string or a non-empty list of strings, within the limits; without ``allow_blank`` no
    text may be empty or whitespace alone (a search for nothing has no direction: every score
    would be 0 and the hits arbitrary)."""
    if isinstance(value, str) and allow_single:
        texts = [value]
    elif isinstance(value, list):
        if not value:
            raise ApiError(400, f"'{field}' is empty: give at least one text", field)
        if any(not isinstance(item, str) for item in value):
            bad = next(item for item in value if not isinstance(item, str))
            hint = (
                " (token arrays must be a list of integers or of lists of integers)"
                if isinstance(bad, (int, list))
                else ""
            )
            raise ApiError(400, f"'{field}' must hold strings, found {_type(bad)}{hint}", field)
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
    if not allow_blank:
        blank = next((i for i, text in enumerate(texts) if not text.strip()), None)
        if blank is not None:
            where = f"[{blank}]" if isinstance(value, list) else ""
            raise ApiError(400, f"'{field}'{where} is empty: give a text to search with", field)
    if len(texts) > config.max_inputs:
        raise ApiError(413, f"'{field}' holds {len(texts)} texts; the limit is {config.max_inputs}", field)
    longest = max(len(t) for t in texts)
    if longest > config.max_chars:
        raise ApiError(413, f"a text of {longest} characters exceeds the limit of {config.max_chars}", field)
    return texts


def _type(value: Any) -> str:
    names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    return names.get(type(value), "number" if isinstance(value, (int, float)) else type(value).__name__)
