"""Ordered parallel map over a thread pool: the page pipeline's use of every core.

Threads rather than processes: rasterizing (numpy gathers and ORs) and PNG
encoding (zlib) release the GIL for most of their time, a page's cells are
shared with the workers instead of pickled, and the font's atlas (which grows
as fallback glyphs are resolved) is the same object in every worker.
``bench/test_parallel_speed.py`` measures threads against a process pool.

>>> list(ordered_map(lambda x: x * x, range(6), workers=3))
[0, 1, 4, 9, 16, 25]
"""

from __future__ import annotations

import os
import queue
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from snapshot.errors import InputError

T = TypeVar("T")
R = TypeVar("R")

__all__ = ["check_workers", "default_workers", "ordered_map", "prefetch"]


def default_workers() -> int:
    """One worker per core this process may run on (its CPU affinity, not the machine's)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def check_workers(workers: int | None) -> int:
    """``None`` → :func:`default_workers`; otherwise a positive count, else :class:`InputError`.

    >>> check_workers(2)
    2
    """
    if workers is None:
        return default_workers()
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InputError(f"workers must be a positive integer, got {workers!r}")
    return workers


def ordered_map(
    fn: Callable[[T], R], items: Iterable[T], *, workers: int = 1, ahead: int | None = None
) -> Iterator[R]:
    """``map(fn, items)`` on ``workers`` threads, results in input order.

    At most ``ahead`` (default ``2 * workers``) items are in flight, so memory
    stays bounded however long ``items`` is, and ``items`` is consumed lazily
    (its own work overlaps the workers'). One worker runs inline, no threads.
    An exception in ``fn`` is raised here, for the item it failed on.
    """
    if workers <= 1:
        for item in items:
            yield fn(item)
        return
    limit = max(1, ahead or 2 * workers)
    queue: deque[Future[R]] = deque()
    pool = ThreadPoolExecutor(workers, thread_name_prefix="snapshot-worker")
    try:
        for item in items:
            queue.append(pool.submit(fn, item))
            if len(queue) >= limit:
                yield queue.popleft().result()
        while queue:
            yield queue.popleft().result()
    finally:
        for future in queue:
            future.cancel()
        pool.shutdown(wait=True)


_DONE = object()


def prefetch(items: Iterable[T], *, ahead: int = 2) -> Iterator[T]:
    """``items`` produced on a thread of their own, up to ``ahead`` in advance.

    For a pipeline whose stages hold the GIL only part of the time (reading and
    decoding a file while the consumer lays out the previous piece). Order and
    values are those of ``items``; an exception in ``items`` is raised here, at
    the point it occurred. Closing the iterator early stops the producer at its
    next item.

    >>> list(prefetch(str(i) for i in range(4)))
    ['0', '1', '2', '3']
    """
    box: queue.Queue[Any] = queue.Queue(max(1, ahead))
    stop = threading.Event()

    def put(entry: tuple[Any, BaseException | None]) -> bool:
        while not stop.is_set():
            try:
                box.put(entry, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False  # the consumer has gone

    def produce() -> None:
        try:
            for item in items:
                if not put((item, None)):
                    return
            put((_DONE, None))
        except BaseException as exc:  # handed to the consumer, raised there
            put((_DONE, exc))

    thread = threading.Thread(target=produce, name="snapshot-prefetch", daemon=True)
    thread.start()
    try:
        while True:
            item, exc = box.get()
            if item is _DONE:
                if exc is not None:
                    raise exc
                return
            yield item
    finally:
        stop.set()
        # a producer blocked in a read (a silent stdin after Ctrl-C) is not waited
        # for: it is a daemon, and nothing reads ``items`` after an early close
        thread.join(timeout=1.0)
