"""snapshot.rendering.parallel: ordered results, errors raised where they happen, no thread left behind."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from snapshot.errors import InputError
from snapshot.rendering.parallel import check_workers, ordered_map, prefetch


def test_ordered_map_keeps_input_order_when_later_items_finish_first() -> None:
    def slow_first(x: int) -> int:
        time.sleep(0.02 if x == 0 else 0)
        return x * 10

    assert list(ordered_map(slow_first, range(7), workers=3)) == [x * 10 for x in range(7)]


def test_prefetch_gives_the_items_in_order_from_another_thread() -> None:
    seen: set[str] = set()

    def items() -> Iterator[int]:
        for i in range(50):
            seen.add(threading.current_thread().name)
            yield i

    assert list(prefetch(items(), ahead=3)) == list(range(50))
    assert seen == {"snapshot-prefetch"}


def test_prefetch_raises_the_producers_error_after_the_items_before_it() -> None:
    def items() -> Iterator[str]:
        yield "a"
        yield "b"
        raise InputError("bad input at c")

    got: list[str] = []
    with pytest.raises(InputError, match="bad input at c"):
        for item in prefetch(items()):
            got.append(item)
    assert got == ["a", "b"]


def test_closing_prefetch_early_stops_its_thread() -> None:
    produced = 0

    def endless() -> Iterator[int]:
        nonlocal produced
        while True:
            produced += 1
            yield produced

    it = prefetch(endless(), ahead=2)
    assert next(it) == 1
    it.close()  # joins the producer: it must notice and stop
    assert not any(t.name == "snapshot-prefetch" for t in threading.enumerate())
    assert produced <= 5


def test_check_workers_refuses_what_is_not_a_positive_count() -> None:
    for bad in (0, -1, True, 1.5):
        with pytest.raises(InputError):
            check_workers(bad)  # type: ignore[arg-type]
