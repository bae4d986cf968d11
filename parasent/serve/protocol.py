"""uvicorn's HTTP protocol with a deadline for request headers.

A request body is read within ``body_timeout`` by the application (a 408 after), and uvicorn
closes idle keep-alive connections; but a client that sends half its headers and stalls is seen
by neither (nothing reaches the application before the headers are complete), so it would hold
its connection for good. This protocol closes a connection whose next request's headers have
not arrived within ``body_timeout`` seconds of connecting, or of the previous response.

It relies on what every uvicorn HTTP protocol has (``connection_made``, ``connection_lost``,
``on_response_complete``, ``cycle``: the request being answered, set once its headers are in);
``tests/serve/test_service_robustness.py`` checks it against the installed uvicorn.
"""

from __future__ import annotations

import asyncio
import os
import time

from uvicorn.protocols.http.auto import AutoHTTPProtocol

from parasent.serve.settings import CONFIG_ENV, ServeConfig


class HeaderDeadlineProtocol(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
    seconds: float | None = None  # set by parasent serve; worker processes read their config

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        _waiting.pop(self, None)
        super().connection_lost(exc)

    def _arm(self) -> None:
        """Headers of a new request are due: the one being answered now (if any) is ``cycle``."""
        _waiting[self] = (time.monotonic() + _seconds(), self.cycle)
        global _sweeper
        if _sweeper is None or _sweeper.done():
            _sweeper = self.loop.create_task(_sweep())


# connections waiting for headers: (deadline, the request being answered when it was set). One
# task checks them (a timer per request would cost more than the rest of a small request).
_waiting: dict[HeaderDeadlineProtocol, tuple[float, object]] = {}
_sweeper: asyncio.Task | None = None


async def _sweep() -> None:
    while _waiting:
        await asyncio.sleep(min(max(_seconds() / 4, 0.05), 1.0))
        now = time.monotonic()
        for connection, (deadline, cycle) in list(_waiting.items()):
            if connection.cycle is not cycle:  # a new request's headers arrived
                del _waiting[connection]
            elif deadline <= now:
                del _waiting[connection]
                if not connection.transport.is_closing():
                    connection.transport.close()


def _seconds() -> float:
    if HeaderDeadlineProtocol.seconds is None:
        config = ServeConfig.from_env() if os.environ.get(CONFIG_ENV) else ServeConfig(model=None)
        HeaderDeadlineProtocol.seconds = config.body_timeout
    return HeaderDeadlineProtocol.seconds
