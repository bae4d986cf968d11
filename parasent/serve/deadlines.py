"""Deadlines for reading request bodies, kept by one sweeper task.

A request body must arrive within ``body_timeout`` seconds (else a 408: a client that sends half
a body and stalls holds nothing). A timer per request (``asyncio.timeout``, ``wait_for``, even a
bare ``call_later``) costs 15-20 µs of a ~180 µs single-text request, so instead each read
registers its deadline in a dict and one task, waking every quarter of the timeout (at most 1 s),
cancels the reads that are late; such a read raises ``asyncio.TimeoutError``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


class Deadlines:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.tick = min(max(seconds / 4, 0.05), 1.0)
        self._running: dict[asyncio.Task, float] = {}
        self._late: set[asyncio.Task] = set()
        self._sweeper: asyncio.Task | None = None

    def start(self) -> None:
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep())

    async def stop(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            try:
                await self._sweeper
            except asyncio.CancelledError:
                pass

    async def run(self, awaitable: Awaitable[T]) -> T:
        """``await awaitable``, or ``asyncio.TimeoutError`` once ``seconds`` have passed."""
        task = asyncio.current_task()
        self._running[task] = time.monotonic() + self.seconds
        try:
            return await awaitable
        except asyncio.CancelledError:
            if task not in self._late:  # cancelled for another reason (shutdown): not a 408
                raise
            if hasattr(task, "uncancel"):  # Python 3.11+: this cancellation has been handled
                task.uncancel()
            raise asyncio.TimeoutError from None
        finally:
            del self._running[task]
            self._late.discard(task)

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(self.tick)
            now = time.monotonic()
            for task, deadline in list(self._running.items()):
                if deadline <= now and task not in self._late:
                    self._late.add(task)
                    task.cancel()
