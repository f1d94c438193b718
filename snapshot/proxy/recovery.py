"""Reading a provider's "too large" rejection, and remembering what it said.

:func:`parse_overflow` recognises each provider's real overflow error (shapes
from the providers' error references and observed replies, read 2026-12):

- Anthropic 413 ``request_too_large`` (bytes; no token figures) and 400
  ``invalid_request_error`` "prompt is too long: N tokens > M maximum";
- OpenAI 400 ``context_length_exceeded``: today "Your input exceeds the context
  window of this model. …", with no figures (harnesses-2026-12.md); older
  replies "This model's maximum context length is M tokens. However, your
  messages resulted in N tokens.";
- Gemini 400 ``INVALID_ARGUMENT`` "The input token count (N) exceeds the
  maximum number of tokens allowed (M)."

:class:`LearnedLimits` keeps, per upstream and model, the stated maximum and the
estimator correction (the provider's count over ours) in one JSON file under
the store, so the next request and the next run plan with them.

>>> o = parse_overflow("anthropic", 400, {"type": "error", "error": {
...     "type": "invalid_request_error",
...     "message": "prompt is too long: 210512 tokens > 200000 maximum"}})
>>> o.counted, o.limit
(210512, 200000)
>>> parse_overflow("google", 400, {"error": {"code": 400, "status": "INVALID_ARGUMENT",
...     "message": "The input token count (1200) exceeds the maximum number of tokens "
...     "allowed (1000)."}}).limit
1000
>>> parse_overflow("openai", 400, {"error": {"code": "rate_limit_exceeded", "message": "x"}})
"""

from __future__ import annotations

import json
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_ANTHROPIC = re.compile(r"prompt is too long:\s*([\d,]+)\s*tokens\s*>\s*([\d,]+)\s*maximum")
_OPENAI_MAX = re.compile(r"maximum context length is\s*([\d,]+)\s*tokens")
_OPENAI_GOT = re.compile(r"(?:resulted in|you requested)\s*([\d,]+)\s*tokens")
_OPENAI_IN_MESSAGES = re.compile(r"\(([\d,]+) in the messages")
_GEMINI = re.compile(
    r"input token count \(([\d,]+)\) exceeds the maximum number of tokens allowed \(([\d,]+)\)"
)


@dataclass(frozen=True)
class Overflow:
    """A provider's refusal of a request as too large, with its figures where it states them."""

    status: int
    kind: str  # the provider's error type or code
    message: str
    counted: int | None = None  # the provider's count of the input
    limit: int | None = None  # the maximum it states


def _int(text: str) -> int:
    return int(text.replace(",", ""))


def _error_fields(body: Any) -> tuple[str, str]:
    """(type or code, message) of a provider error document."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return "", ""
    kind = error.get("code") if isinstance(error.get("code"), str) else error.get("type")
    if isinstance(error.get("status"), str):
        kind = error["status"]
    message = error.get("message")
    return str(kind or ""), message if isinstance(message, str) else ""


def parse_overflow(provider: str, status: int, body: Any) -> Overflow | None:
    """The overflow a provider's error reply states, or None when it is another error."""
    kind, message = _error_fields(body)
    if provider == "anthropic":
        if status == 413 and kind == "request_too_large":
            return Overflow(status, kind, message)
        found = _ANTHROPIC.search(message)
        if status == 400 and found:
            return Overflow(status, kind, message, _int(found.group(1)), _int(found.group(2)))
        return None
    if provider == "google":
        found = _GEMINI.search(message)
        if status == 400 and found:
            return Overflow(status, kind, message, _int(found.group(1)), _int(found.group(2)))
        return None
    error = body.get("error") if isinstance(body, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    if status == 400 and code == "context_length_exceeded":
        limit = _OPENAI_MAX.search(message)
        got = _OPENAI_IN_MESSAGES.search(message) or _OPENAI_GOT.search(message)
        return Overflow(
            status,
            "context_length_exceeded",
            message,
            _int(got.group(1)) if got else None,
            _int(limit.group(1)) if limit else None,
        )
    return None


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
