"""Reading a provider's "too large" rejection (shapes from the providers' error references
and observed replies, read 2026-12):

- Anthropic 413 ``request_too_large`` (bytes; no token figures) and 400
  ``invalid_request_error`` "prompt is too long: N tokens > M maximum";
- OpenAI 400 ``context_length_exceeded``: today "Your input exceeds the context
  window of this model. …", with no figures (harnesses-2026-12.md); older
  replies "This model's maximum context length is M tokens. However, your
  messages resulted in N tokens.";
- Gemini 400 ``INVALID_ARGUMENT`` "The input token count (N) exceeds the
  maximum number of tokens allowed (M)."

>>> o = parse_overflow("anthropic", 400, {"type": "error", "error": {
...     "type": "invalid_request_error",
...     "message": "prompt is too long: 210512 tokens > 200000 maximum"}})
>>> o.counted, o.limit
(210512, 200000)
>>> parse_overflow("google", 400, {"error": {"code": 400, "status": "INVALID_ARGUMENT",
...     "message": "The input token count (1200) exceeds the maximum number of tokens "
...     "allowed (1000)."}}).limit
1000
>>> parse_overflow("openai", 400, {"error": {"code": "context_length_exceeded",
...     "message": "Your input exceeds the context window of this model."}}).limit is None
True
>>> parse_overflow("openai", 400, {"error": {"code": "rate_limit_exceeded", "message": "x"}})
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = ["Overflow", "parse_overflow"]

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
