"""Error responses the proxy itself gives, each in the provider's own error shape.

A client SDK parses the proxy's errors exactly as it parses the provider's:
Anthropic ``{"type": "error", "error": {"type", "message"}}``, OpenAI
``{"error": {"message", "type", "param", "code"}}``, Gemini
``{"error": {"code", "message", "status"}}`` (the shapes of each API's error
reference, read 2026-12).

>>> error_body("google", 400, "bad JSON")["error"]["status"]
'INVALID_ARGUMENT'
>>> error_body("anthropic", 413, "too big")["error"]["type"]
'request_too_large'
"""

from __future__ import annotations

from typing import Any

from snapshot.errors import SnapshotError


class ProxyError(SnapshotError):
    """A request the proxy answers itself: an HTTP status and a message for the client."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


_ANTHROPIC_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    502: "api_error",
    504: "api_error",
}
_OPENAI_TYPES = {413: "invalid_request_error", 502: "server_error", 504: "server_error"}
_GOOGLE_STATUS = {
    400: "INVALID_ARGUMENT",
    404: "NOT_FOUND",
    413: "INVALID_ARGUMENT",
    429: "RESOURCE_EXHAUSTED",
    502: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def error_body(provider: str, status: int, message: str) -> dict[str, Any]:
    """The provider's error document for ``status`` with ``message``."""
    if provider == "anthropic":
        kind = _ANTHROPIC_TYPES.get(
            status, "api_error" if status >= 500 else "invalid_request_error"
        )
        return {"type": "error", "error": {"type": kind, "message": message}}
    if provider == "google":
        code = _GOOGLE_STATUS.get(status, "INTERNAL" if status >= 500 else "INVALID_ARGUMENT")
        return {"error": {"code": status, "message": message, "status": code}}
    kind = _OPENAI_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}
