"""Micro-batching: texts of concurrent requests are encoded in one call.

Requests queue their texts; one worker takes the first waiting request and every other request
already queued (up to ``max_batch`` texts), encodes them together in a thread (the event loop
keeps accepting requests meanwhile) and hands each request its rows. Under load the queue fills
while a batch is encoded, so batches grow with concurrency; a lone request waits for nothing.

The encoding thread is a daemon of its own, not the event loop's executor: an encode that never
returns (a tokenizer stuck on hostile input) then cannot keep the process from exiting on
SIGTERM. Whatever an encode raises fails its requests alone, including a panic inside Rust code
(``pyo3_runtime.PanicException`` is a ``BaseException``, not an ``Exception``); should the worker
stop all the same, waiting requests fail at once and :attr:`MicroBatcher.alive` says so.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable

import numpy as np

from parasent.errors import BatcherStopped, EncodingFailed

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
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._taken: list[tuple] = []  # the requests being encoded now

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._queue = asyncio.Queue()
        threading.Thread(target=self._work, name="parasent-encode", daemon=True).start()
        self._task = self._loop.create_task(self._run())
        self._task.add_done_callback(self._fail_waiting)

    @property
    def alive(self) -> bool:
        return self._task is not None and not self._task.done()

    async def stop(self) -> None:
        self._jobs.put(None)
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass

    async def encode(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """(unit vectors, token counts) of ``texts``, encoded with whatever else is waiting."""
        assert self._queue is not None, "MicroBatcher.start() first"
        if not self.alive:
            raise BatcherStopped("the encoding worker has stopped")
        future = self._loop.create_future()
        self._queue.put_nowait((texts, future))
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
            self._taken = []
            items = self._taken = self._take(await self._queue.get())
            texts = [text for batch, _ in items for text in batch]
            try:
                vectors, lengths = await self._call(texts)
            except EncodingFailed:  # one bad request must not fail the others: each on its own
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
                result = await self._call(batch)
            except EncodingFailed as exc:  # this request fails (a JSON 500), the worker goes on
                if not future.done():
                    future.set_exception(exc)
                continue
            if self.on_batch is not None:
                self.on_batch(len(batch))
            if not future.done():
                future.set_result(result)

    async def _call(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """``encode_fn(texts)`` on the encoding thread."""
        future = self._loop.create_future()
        self._jobs.put((texts, future))
        return await future

    def _work(self) -> None:
        while (job := self._jobs.get()) is not None:
            texts, future = job
            result, failure = None, None
            try:
                result = self.encode_fn(texts)
            except BaseException as exc:  # a Rust panic is a BaseException (see the module docstring)
                failure = EncodingFailed(f"{type(exc).__name__}: {exc}")
            try:
                self._loop.call_soon_threadsafe(_settle, future, result, failure)
            except RuntimeError:  # the event loop has closed: the service is shutting down
                return

    def _fail_waiting(self, task: asyncio.Task) -> None:
        """The worker ended (stopped, or a bug): no request may wait for it forever."""
        waiting = list(self._taken)
        while self._queue is not None and not self._queue.empty():
            waiting.append(self._queue.get_nowait())
        for _, future in waiting:
            if not future.done():
                future.set_exception(BatcherStopped("the encoding worker has stopped"))


def _settle(future: asyncio.Future, result: object, failure: Exception | None) -> None:
    if future.done():  # cancelled: its request went away
        return
    if failure is not None:
        future.set_exception(failure)
    else:
        future.set_result(result)
