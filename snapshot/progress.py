"""Progress bars for long commands, on standard error so JSON output stays clean."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


def progress(
    items: Iterable[T], *, desc: str, total: int | None = None, unit: str = "it"
) -> Iterator[T]:
    """Yield ``items`` while drawing a tqdm bar on stderr.

    Set ``SNAPSHOT_NO_PROGRESS=1`` to silence the bars (tests do).
    """
    if os.environ.get("SNAPSHOT_NO_PROGRESS"):
        yield from items
        return
    from tqdm import tqdm

    yield from tqdm(items, desc=desc, total=total, unit=unit, file=sys.stderr, leave=False)
