"""The report's progress line: conversations done, what each worker is at, an ETA by characters.

Conversations differ in size by orders of magnitude, so the estimate counts
characters done (each conversation's size is known from the import pass),
not conversations. Workers say which conversation and stage they are at
(import, validation, one profile after another) through a queue; a thread
here shows the latest of each. Standard error only, silenced by
``SNAPSHOT_NO_PROGRESS=1`` like every bar of the package.

>>> bar = RunProgress(sizes=[100, 300], cached=[False, True])
>>> bar.done(100, "a"); bar.close()
>>> bar.finished, bar.chars_done
(2, 400)
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Sequence
from typing import Any


class RunProgress:
    """A tqdm line over ``sizes`` (characters per conversation); ``cached`` ones count as done."""

    def __init__(self, sizes: Sequence[int], cached: Sequence[bool] = ()) -> None:
        cached = list(cached) or [False] * len(sizes)
        self.by_chars = sum(sizes) > 0
        weights = list(sizes) if self.by_chars else [1] * len(sizes)
        self.total = len(sizes)
        self.finished = sum(cached)
        self.chars_done = sum(w for w, c in zip(weights, cached, strict=True) if c)
        self._stages: dict[Any, str] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._bar: Any = None
        if not os.environ.get("SNAPSHOT_NO_PROGRESS"):
            from tqdm import tqdm

            self._bar = tqdm(
                total=sum(weights),
                initial=self.chars_done,
                desc=self._desc(),
                unit="char" if self.by_chars else "conv",
                unit_scale=self.by_chars,
                file=sys.stderr,
                leave=False,
            )

    def _desc(self) -> str:
        return f"conversations {self.finished}/{self.total}"

    def stage(self, worker: Any, text: str) -> None:
        """Worker ``worker`` is now at ``text`` (conversation and stage)."""
        with self._lock:
            self._stages[worker] = text
            if self._bar is not None:
                self._bar.set_postfix_str(" | ".join(self._stages.values())[:160], refresh=True)

    def done(self, chars: int, name: str) -> None:
        """A conversation of ``chars`` characters finished (its size, 1 when sizes are unknown)."""
        with self._lock:
            self.finished += 1
            step = chars if self.by_chars else 1
            self.chars_done += step
            if self._bar is not None:
                self._bar.set_description(self._desc(), refresh=False)
                self._bar.update(step)

    def listen(self, queue: Any) -> None:
        """Show the (worker, text) stages workers put on ``queue`` until :meth:`close`."""

        def drain() -> None:
            while True:
                item = queue.get()
                if item is None:
                    return
                self.stage(*item)

        self._queue = queue
        self._thread = threading.Thread(target=drain, daemon=True)
        self._thread.start()

    def close(self) -> None:
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout=5)
            self._thread = None
        if self._bar is not None:
            self._bar.close()
