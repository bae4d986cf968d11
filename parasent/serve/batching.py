"""Micro-batching: texts of concurrent requests are encoded in one call.

Requests queue their texts; one worker takes the first waiting request and every other request
already queued (up to ``max_batch`` texts), encodes them together in a thread (the event loop
keeps accepting requests meanwhile) and hands each request its rows. Under load the queue fills
while a batch is encoded, so batches grow with concurrency; a lone request waits for nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import numpy as np

Encode = Callable[[list[str]], tuple[np.ndarray, np.ndarray]]


class MicroBatcher:
    def __init__(
        self, encode: Encode, max_batch: int = 512, on_batch: Callable[[int], None] | None = None
    ) -> None:
        self.encode_fn = encode
        self.max_batch = max_batch
        self.on_batch = on_batch
        self._queue: asyncio.Queue | None = None
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        self._queue = asyncio.Queue()
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass

    async def encode(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """(unit vectors, token counts) of ``texts``, encoded with whatever else is waiting."""
        assert self._queue is not None, "MicroBatcher.start() first"
        future = asyncio.get_running_loop().create_future()
        await self._queue.put((texts, future))
        return await future

    def _take(self, first: tuple) -> list[tuple]:
        items, size = [first], len(first[0])
        while size < self.max_batch and not self._queue.empty():
            item = self._queue.get_nowait()
            items.append(item)
            size += len(item[0])
        return items

    async def _run(self) -> None:
        while True:
            items = self._take(await self._queue.get())
            texts = [text for batch, _ in items for text in batch]
            try:
                vectors, lengths = await asyncio.to_thread(self.encode_fn, texts)
            except Exception:  # one bad request must not fail the others: each on its own
                await self._one_by_one(items)
                continue
            if self.on_batch is not None:
                self.on_batch(len(texts))
            start = 0
            for batch, future in items:
                end = start + len(batch)
                if not future.done():  # a client that went away
                    future.set_result((vectors[start:end], lengths[start:end]))
                start = end

    async def _one_by_one(self, items: list[tuple]) -> None:
        for batch, future in items:
            try:
                result = await asyncio.to_thread(self.encode_fn, batch)
            except Exception as exc:  # this request fails (a JSON 500), the worker goes on
                if not future.done():
                    future.set_exception(exc)
                continue
            if self.on_batch is not None:
                self.on_batch(len(batch))
            if not future.done():
                future.set_result(result)
