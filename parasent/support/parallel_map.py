"""Threads for static encoding: an ordered, bounded map over batches, and the parts of one
batch run at once, so the numpy half of encoding runs on every core.

Why threads and not processes: static encoding is numpy array operations that release the
GIL (the ASCII split and word lookup of :mod:`parasent.text.ascii_words`, the gathers and sums
of :func:`parasent.core.inference.average_rows`), so batches run at once on every core; there is
nothing to pickle and the memory-mapped weights are shared.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

Item = TypeVar("Item")
Result = TypeVar("Result")

MAX_THREADS = 8  # past this the Python left between array steps (batching, joining) is the whole cost
THREADS_VARIABLE = "PARASENT_NUM_THREADS"
_this_thread = threading.local()  # .mapping: a thread of ordered_map's pool


def encode_threads() -> int:
    """Threads for numpy encoding: ``PARASENT_NUM_THREADS``, else the cores this process may
    run on, at most :data:`MAX_THREADS`.

    ``OMP_NUM_THREADS`` is not read: it sizes OpenMP and BLAS pools, which static encoding
    does not use; this is parasent's own pool, as ``tokenizers`` has its own
    (``RAYON_NUM_THREADS``). A benchmark of one thread each sets both.
    """
    value = os.environ.get(THREADS_VARIABLE, "").strip()
    if value:
        try:
            return max(1, int(value))
        except ValueError:
            raise ValueError(f"{THREADS_VARIABLE}={value!r}: expected a whole number of threads") from None
    available = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else range(os.cpu_count() or 1)
    return max(1, min(len(available), MAX_THREADS))


def part_threads() -> int:
    """Threads the parts of one batch may take (:func:`run_together`): all of
    :func:`encode_threads`, or one on a thread of :func:`ordered_map`, whose batches already
    take a thread each (more would only queue for the cores and the GIL)."""
    return 1 if getattr(_this_thread, "mapping", False) else encode_threads()


def parts_for(size: int, minimum: int, threads: int | None = None) -> int:
    """How many parts of at least ``minimum`` (bytes, tokens) one batch's step of ``size`` is
    cut into: one below twice the minimum (the thread setting then unread, so a one-sentence
    batch never reads it), else up to ``threads`` (None: :func:`part_threads`)."""
    if size < 2 * minimum:
        return 1
    return max(1, min(part_threads() if threads is None else threads, size // minimum))


def ordered_map(function: Callable[[Item], Result], items: Iterable[Item], threads: int) -> Iterator[Result]:
    """``map(function, items)`` with up to ``threads`` calls at once, results in input order.

    ``items`` is read lazily and at most ``threads`` results wait unconsumed, so memory is
    bounded by ``threads`` batches however long the input. A single item, or one thread,
    runs inline (no pool for one sentence). An exception in ``function`` is raised here, at
    the item it belongs to.
    """
    iterator = iter(items)
    first = next(iterator, _END)
    if first is _END:
        return
    second = next(iterator, _END) if threads > 1 else _END
    if second is _END:
        yield function(first)
        yield from map(function, iterator)
        return
    from concurrent.futures import ThreadPoolExecutor  # imported only when a pool runs (cold start)

    def on_pool(item: Item) -> Result:
        _this_thread.mapping = True  # a pool thread of this map only (see part_threads)
        return function(item)

    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="parasent-encode") as pool:
        pending: deque[Future[Result]] = deque([pool.submit(on_pool, first), pool.submit(on_pool, second)])
        while True:
            if len(pending) >= threads:  # read the next item only once a thread is free for it
                yield pending.popleft().result()
            item = next(iterator, _END)
            if item is _END:
                break
            pending.append(pool.submit(on_pool, item))
        while pending:
            yield pending.popleft().result()


_END = object()


def run_together(tasks: Sequence[Callable[[], None]]) -> None:
    """Call every task at once, the first on this thread and the others on parasent's helper
    threads; return when all are done. An exception in a task is raised here, once all have
    ended (the first task's first, then the others' in order).

    For the few long array steps of one large batch (the ASCII split of
    :meth:`parasent.text.ascii_words.AsciiWordLookup.text_ids`, the block sums of
    :func:`parasent.core.inference.average_rows`), which release the GIL for milliseconds at a
    time: steps of microseconds would spend more handing the GIL between threads than they
    gain. The helpers are kept (starting a thread waits until it runs: 1.14x against 1.21x
    for the suite at batch 4,096); a child of ``fork`` starts its own. Once the interpreter is
    shutting down (an ``atexit`` handler, a thread still at work after the main one ended) the
    tasks all run here, one after another.
    """
    futures, inline = [], list(tasks[:1])
    for task in tasks[1:]:
        try:
            futures.append(_helpers().submit(task))
        except RuntimeError:  # the interpreter is shutting down and starts no threads: run it here
            inline.append(task)
    try:
        for task in inline:
            task()
    finally:
        if futures:
            from concurrent.futures import wait

            wait(futures)
    for future in futures:
        future.result()


def _helpers() -> ThreadPoolExecutor:
    """This process's helper threads (:data:`MAX_THREADS` - 1, started as tasks come)."""
    global _helper_pool
    with _helper_lock:
        if _helper_pool is None:
            from concurrent.futures import ThreadPoolExecutor

            _helper_pool = ThreadPoolExecutor(MAX_THREADS - 1, thread_name_prefix="parasent-part")
        return _helper_pool


def _forget_helpers() -> None:
    """In a child of ``fork``: its parent's threads are not there (a pool of them would wait
    for ever), nor is a lock one of them held."""
    global _helper_pool, _helper_lock
    _helper_pool, _helper_lock = None, threading.Lock()


_helper_pool: ThreadPoolExecutor | None = None
_helper_lock = threading.Lock()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_helpers)
