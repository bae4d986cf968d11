"""What every request passes before a route: its request id, and the API key check.

:class:`Gate` is ASGI middleware around the whole application, so it sees every path, a 404's
too. Each request gets an id (the client's ``X-Request-Id`` when it is a short token, else a new
one), sent back in the ``X-Request-Id`` header of every response and written in every log line
written while the request runs (:class:`RequestIdFilter`, installed by :func:`log_config` on
uvicorn's handlers). With keys (:mod:`parasent.serve.keys`), a request to any path but
:data:`OPEN_PATHS` without a valid ``Authorization: Bearer KEY`` gets a 401 in the service's
error shape, with ``WWW-Authenticate: Bearer``, before its body is read.
"""

from __future__ import annotations

import copy
import json
import logging
import re
import uuid
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any

from parasent.errors import ApiError
from parasent.serve.keys import ApiKeys

# What shows the API's shape and liveness, not what it holds (no text, vector or count).
# /metrics is not open: its counts say who uses the service and how much.
OPEN_PATHS = ("/health", "/openapi.json", "/docs")
REQUEST_ID: ContextVar[str] = ContextVar("parasent_request_id", default="-")
KEY_ID: ContextVar[str] = ContextVar("parasent_key_id", default="")
_CLIENT_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")


def is_open(path: str) -> bool:
    return path in OPEN_PATHS or path.startswith("/docs/")


def request_id(scope: dict[str, Any]) -> str:
    """The client's ``X-Request-Id`` if it is a token of up to 64 safe characters (it goes into
    log lines and headers), else a new random one."""
    given = _header(scope, b"x-request-id")
    return given if given is not None and _CLIENT_ID.fullmatch(given) else uuid.uuid4().hex


Send = Callable[[dict[str, Any]], Awaitable[None]]


class Gate:
    """ASGI middleware: the request id, then (with keys) the key check."""

    def __init__(self, app, keys: ApiKeys, refused: Callable[[], None] = lambda: None) -> None:
        self.app = app
        self.keys = keys
        self.refused = refused  # counts a 401 (one counter: a path scan must not add series)

    async def __call__(self, scope: dict[str, Any], receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):  # lifespan: no client
            await self.app(scope, receive, send)
            return
        rid = request_id(scope)
        rid_token = REQUEST_ID.set(rid)

        async def send_with_id(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = {
                    **message,
                    "headers": [*message.get("headers", []), (b"x-request-id", rid.encode())],
                }
            await send(message)

        try:
            key = ""
            if self.keys.required and not is_open(scope["path"]):
                key = self.keys.identify(_header(scope, b"authorization"))
                if key is None:
                    self.refused()
                    await _unauthorized(send_with_id)
                    return
            key_token = KEY_ID.set(key)
            try:
                await self.app(scope, receive, send_with_id)
            finally:
                KEY_ID.reset(key_token)
        finally:
            REQUEST_ID.reset(rid_token)


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


async def _unauthorized(send: Send) -> None:
    error = ApiError(401, "a valid API key is required: send 'Authorization: Bearer KEY'")
    body = json.dumps(error.body()).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"www-authenticate", b"Bearer"),
    ]
    await send({"type": "http.response.start", "status": 401, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class RequestIdFilter(logging.Filter):
    """Gives each record the id of the request it was written in (``-`` outside one)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = REQUEST_ID.get()
        return True


def log_config(level: str = "info") -> dict[str, Any]:
    """uvicorn's logging configuration with ``[request id]`` in every line, and the service's
    own logger (``parasent``) on the same handler, at ``level`` (``--log-level``)."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["filters"] = {"request_id": {"()": RequestIdFilter}}
    for formatter in config["formatters"].values():
        formatter["fmt"] = formatter["fmt"].replace(
            "%(levelprefix)s ", "%(levelprefix)s [%(request_id)s] ", 1
        )
    for handler in config["handlers"].values():
        handler["filters"] = ["request_id"]
    config["loggers"]["parasent"] = {"handlers": ["default"], "level": level.upper(), "propagate": False}
    return config
