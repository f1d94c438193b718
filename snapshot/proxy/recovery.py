"""Remembering what a provider's "too large" rejection said
(:func:`snapshot.providers.overflow.parse_overflow` reads it).

:class:`LearnedLimits` keeps, per upstream and model, the stated maximum and the
estimator correction (the provider's count over ours) in one JSON file under
the store, so the next request and the next run plan with them.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Learned:
    """What a provider taught about one model: its maximum (stated, or bounded by a refused
    body's count), our estimator's error, and the largest body in bytes known to be too big."""

    limit: int | None = None
    correction: float = 1.0
    too_many_bytes: int | None = None

    @property
    def state(self) -> tuple[int | None, float, int | None]:
        """What a plan depends on: two rejections under one state would repeat each other."""
        return (self.limit, self.correction, self.too_many_bytes)


class LearnedLimits:
    """Stated maxima and estimator corrections per upstream and model, kept in a JSON file.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = LearnedLimits(Path(d) / "limits.json").learn("http://up", "m", limit=1000, correction=1.3)
    ...     LearnedLimits(Path(d) / "limits.json").get("http://up", "m")
    Learned(limit=1000, correction=1.3, too_many_bytes=None)

    A numberless overflow still teaches: the refused body's count bounds the limit.

    >>> limits = LearnedLimits(None)
    >>> limits.learn("http://up", "m", limit=None, correction=None, bound=5000).limit
    4999
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._known: dict[str, dict[str, Any]] = {}
        if path is not None and path.is_file():
            try:
                loaded = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                loaded = {}
            entries = loaded.get("models") if isinstance(loaded, dict) else None
            if isinstance(entries, dict):
                self._known = {k: v for k, v in entries.items() if isinstance(v, dict)}

    @staticmethod
    def _key(upstream: str, model: str) -> str:
        return f"{upstream.rstrip('/')} {model}"

    def get(self, upstream: str, model: str) -> Learned:
        entry = self._known.get(self._key(upstream, model), {})
        stated, bound = entry.get("limit"), entry.get("bound")
        limits = [v for v in (stated, bound) if isinstance(v, int) and v > 0]
        correction = entry.get("correction")
        too_many = entry.get("too_many_bytes")
        return Learned(
            min(limits) if limits else None,
            float(correction) if isinstance(correction, int | float) and correction > 0 else 1.0,
            too_many if isinstance(too_many, int) and too_many > 0 else None,
        )

    def learn(
        self,
        upstream: str,
        model: str,
        *,
        limit: int | None,
        correction: float | None,
        bound: int | None = None,
        too_many_bytes: int | None = None,
    ) -> Learned:
        """Remember what a rejection taught; write the file.

        ``limit``: a stated maximum (the smallest stated wins; it supersedes earlier
        bounds, the correction now turning our count into the provider's); ``bound``:
        a refused body's own count in the corrected unit (the limit is below it);
        ``too_many_bytes``: the size of a body refused for its bytes.
        """
        with self._lock:
            key = self._key(upstream, model)
            entry = dict(self._known.get(key, {}))
            if limit is not None:
                old = entry.get("limit")
                entry["limit"] = min(limit, old) if isinstance(old, int) else limit
                entry.pop("bound", None)
            if bound is not None:
                old = entry.get("bound")
                entry["bound"] = max(1, min(bound - 1, old) if isinstance(old, int) else bound - 1)
            if correction is not None:
                entry["correction"] = round(correction, 4)
            if too_many_bytes is not None:
                old_bytes = entry.get("too_many_bytes")
                entry["too_many_bytes"] = (
                    min(too_many_bytes, old_bytes) if isinstance(old_bytes, int) else too_many_bytes
                )
            self._known[key] = entry
            self._write()
        return self.get(upstream, model)

    def _write(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_name(self.path.name + ".partial")
        doc = {"schema": "snapshot.proxy-limits/1", "models": self._known}
        partial.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(partial, self.path)
