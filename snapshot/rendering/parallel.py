"""Ordered parallel map over a thread pool: the page pipeline's use of every core.

Threads for a page stream: rasterizing (numpy gathers and ORs) and PNG
encoding (ISA-L deflate) release the GIL for much of their time, a page's cells
are shared with the workers instead of pickled, and the font's atlas (which
grows as fallback glyphs are resolved) is the same object in every worker.
What stays under the GIL (a page's Python steps) caps two threads at about 1.4
cores, so ``snapshot render`` of a file hands whole ranges of pages to forked
processes instead (:func:`process_pool`, :mod:`snapshot.rendering.span_procs`), which
send back only the names they wrote.

>>> list(ordered_map(lambda x: x * x, range(6), workers=3))
[0, 1, 4, 9, 16, 25]
"""

from __future__ import annotations

import ctypes
import multiprocessing as mp
import os
import queue
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any, TypeVar

from snapshot.errors import InputError

T = TypeVar("T")
R = TypeVar("R")

__all__ = [
    "check_workers",
    "default_workers",
    "ordered_map",
    "prefetch",
    "process_pool",
    "processes_available",
]


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
    fn: Callable[[T], R],
    items: Iterable[T],
    *,
    workers: int = 1,
    ahead: int | None = None,
    executor: Executor | None = None,
) -> Generator[R, None, None]:
    """``map(fn, items)`` on ``workers`` threads (or on ``executor``), results in input order.

    At most ``ahead`` (default ``2 * workers``) items are in flight, so memory
    stays bounded however long ``items`` is, and ``items`` is consumed lazily
    (its own work overlaps the workers'). One worker and no executor runs
    inline, no threads. An exception in ``fn`` is raised here, for the item it
    failed on. A given ``executor`` (such as :func:`process_pool`) is the
    caller's to shut down; items not started when this stops are cancelled.
    """
    if workers <= 1 and executor is None:
        for item in items:
            yield fn(item)
        return
    limit = max(1, ahead or 2 * workers)
    queue: deque[Future[R]] = deque()
    pool = executor or ThreadPoolExecutor(workers, thread_name_prefix="snapshot-worker")
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
        if executor is None:
            pool.shutdown(wait=True)


def processes_available() -> bool:
    """Whether :func:`process_pool` works here: Linux, where workers are forked and
    die with their parent.

    >>> isinstance(processes_available(), bool)
    True
    """
    return sys.platform.startswith("linux") and "fork" in mp.get_all_start_methods()


def process_pool(
    workers: int, initializer: Callable[..., None], initargs: tuple[Any, ...] = ()
) -> ProcessPoolExecutor:
    """``workers`` forked processes, each set up by ``initializer(*initargs)``.

    Forked, so ``initargs`` are inherited rather than pickled (a font's atlas,
    a plan of the file) and no worker imports anything. A worker ignores
    Ctrl-C (its parent stops the pool and cleans up) and is killed when its
    parent dies, even by SIGKILL: no orphan keeps running. Linux only
    (:func:`processes_available`). The workers are forked at the first
    ``submit`` and killed when the thread that forked them ends: submit from
    the thread that shuts the pool down.

    >>> with process_pool(2, _note, ("ready",)) as pool:
    ...     sorted(pool.map(_noted, range(3)))
    [(0, 'ready'), (1, 'ready'), (2, 'ready')]
    """
    return ProcessPoolExecutor(
        workers,
        mp_context=mp.get_context("fork"),
        initializer=_start_worker,
        initargs=(os.getpid(), initializer, initargs),
    )


def _start_worker(parent: int, initializer: Callable[..., None], initargs: tuple[Any, ...]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the line above: nobody to serve
        os._exit(1)
    initializer(*initargs)


_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_NOTE: list[str] = []  # the doctest's worker state


def _note(text: str) -> None:
    _NOTE.append(text)


def _noted(x: int) -> tuple[int, str]:
    return x, _NOTE[-1]


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
