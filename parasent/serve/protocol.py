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

from uvicorn.protocols.http.auto import AutoHTTPProtocol

from parasent.serve.config import CONFIG_ENV, ServeConfig


class HeaderDeadlineProtocol(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
    seconds: float | None = None  # set by parasent serve; worker processes read their config

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._deadline: asyncio.TimerHandle | None = None
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(_seconds(), self._headers_late, self.cycle)

    def _disarm(self) -> None:
        if getattr(self, "_deadline", None) is not None:
            self._deadline.cancel()
            self._deadline = None

    def _headers_late(self, cycle: object) -> None:
        if self.cycle is cycle and not self.transport.is_closing():  # no new request since
            self.transport.close()


def _seconds() -> float:
    if HeaderDeadlineProtocol.seconds is None:
        config = ServeConfig.from_env() if os.environ.get(CONFIG_ENV) else ServeConfig(model=None)
        HeaderDeadlineProtocol.seconds = config.body_timeout
    return HeaderDeadlineProtocol.seconds
