"""A live vision model as a reader for ``snapshot tune --reader live``: the whole page in,
its transcription out, one row per line (the SDK call is
:func:`snapshot.providers.live.ask`; the target, :mod:`snapshot.profiles.probe_target`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from snapshot.profiles.probe_target import ProbeTarget, probe_target_for
from snapshot.providers.live import ask, key_from_env
from snapshot.readability.transcribe import TRANSCRIBE_PROMPT, reply_rows


@dataclass
class LineReader:
    """A live model as a :class:`~snapshot.legibility.readers.Reader` for ``snapshot tune``.

    The model gets the whole page (as the tuner drew it) and a transcription
    prompt, never the rows it will be scored on; its reply is split into lines
    and row ``r`` is line ``r`` (:func:`reply_rows`). One request per distinct
    page: the reply is kept for the other rows asked.

    >>> reader = LineReader(probe_target_for("claude-sonnet-5-5"), api_key="sk-not-a-key")
    >>> reader.name, "sk-not-a-key" in repr(reader)
    ('live:claude-sonnet-5-5', False)
    """

    target: ProbeTarget
    api_key: str = field(repr=False)
    base_url: str | None = None
    timeout: float = 180.0
    _replies: dict[bytes, list[str]] = field(default_factory=dict, repr=False)

    @property
    def name(self) -> str:
        return f"live:{self.target.model}"

    def read(self, seen: Any, layout: Any, rows: Sequence[int]) -> list[str]:

        import numpy as np

        from snapshot.rendering.raster import to_png_gray

        pixels = np.clip(np.rint(np.asarray(seen.pixels, dtype=np.float64)), 0, 255)
        png = to_png_gray(pixels.astype(np.uint8))
        key = hashlib.sha256(png).digest()
        if key not in self._replies:
            reply = ask(
                self.target,
                png,
                TRANSCRIBE_PROMPT,
                api_key=self.api_key,
                base_url=self.base_url,
                timeout=self.timeout,
            )
            self._replies[key] = reply_rows(reply.text, len(layout.row_boxes))
        lines = self._replies[key]
        return [lines[r] if r < len(lines) else "" for r in rows]


def reader_for(model: str, *, base_url: str | None = None, timeout: float = 180.0) -> LineReader:
    """The live model ``model`` as a tuning reader, keyed from the environment.

    Raises
    ------
    MissingKeyError
        No key for the model's provider in the environment.
    LiveError
        The model cannot take pages (see :func:`probe_target_for`).
    """
    target = probe_target_for(model)
    return LineReader(target, key_from_env(target.provider, model=model), base_url, timeout)
