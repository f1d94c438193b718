"""The four request shapes the proxy speaks, chosen by the request's path.

A :class:`Shape` says where a body keeps its history (``messages``, ``input``,
``contents``), which exporter writes it, where the model id is (the body, or the
path for Gemini) and whether the reply streams; :func:`shape_for` picks it from
the path. Any other path has no shape and is forwarded unchanged.

>>> shape_for("POST", "/v1/messages").name
'anthropic'
>>> shape_for("POST", "/v1/messages/count_tokens") is None
True
>>> s = shape_for("POST", "/v1beta/models/gemini-3.5-flash-lite:streamGenerateContent")
>>> s.name, s.model_of({}, "/v1beta/models/gemini-3.5-flash-lite:streamGenerateContent")
('gemini', 'gemini-3.5-flash-lite')
>>> s.streams({}, "/v1beta/models/x:streamGenerateContent")
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_GEMINI = re.compile(
    r"^/(?:v1|v1beta|v1alpha)/models/([^/:]+):(generateContent|streamGenerateContent)$"
)


@dataclass(frozen=True)
class Shape:
    """One provider API: its history key, exporter and importer names."""

    name: str  # "anthropic" | "openai" | "openai-responses" | "gemini"
    provider: str  # "anthropic" | "openai" | "google": whose error shape and usage
    history_key: str  # the body's list the proxy may compact
    export_as: str  # snapshot.transcript.export target
    import_as: str  # snapshot.transcript.formats name

    def model_of(self, body: Any, path: str) -> str | None:
        """The model id: the body's ``model``, or the Gemini path's ``models/{model}``."""
        if self.name == "gemini":
            found = _GEMINI.match(path)
            return found.group(1) if found else None
        model = body.get("model") if isinstance(body, dict) else None
        return model if isinstance(model, str) and model else None

    def streams(self, body: Any, path: str) -> bool:
        """Whether the reply is a server-sent event stream."""
        if self.name == "gemini":
            return path.endswith(":streamGenerateContent")
        return isinstance(body, dict) and body.get("stream") is True

    def history(self, body: Any) -> list[Any] | None:
        """The body's history list, or None when it has none the proxy can compact."""
        items = body.get(self.history_key) if isinstance(body, dict) else None
        return items if isinstance(items, list) else None


ANTHROPIC = Shape("anthropic", "anthropic", "messages", "anthropic", "anthropic-messages")
OPENAI_CHAT = Shape("openai", "openai", "messages", "openai", "openai-chat")
OPENAI_RESPONSES = Shape(
    "openai-responses", "openai", "input", "openai-responses", "openai-responses"
)
GEMINI = Shape("gemini", "google", "contents", "gemini", "gemini-content")

SHAPES = (ANTHROPIC, OPENAI_CHAT, OPENAI_RESPONSES, GEMINI)


def shape_for(method: str, path: str) -> Shape | None:
    """The shape a request path speaks; None for every other path (forwarded unchanged)."""
    if method != "POST":
        return None
    if path == "/v1/messages":
        return ANTHROPIC
    if path in ("/v1/chat/completions", "/chat/completions"):
        return OPENAI_CHAT
    if path in ("/v1/responses", "/responses"):
        return OPENAI_RESPONSES
    if _GEMINI.match(path):
        return GEMINI
    return None


def provider_for_path(path: str) -> str:
    """Whose error shape a path gets when it has no :class:`Shape` (count_tokens, models...)."""
    if path.startswith("/v1/messages"):
        return "anthropic"
    if path.startswith(("/v1beta", "/v1alpha")) or ":" in path.rsplit("/", 1)[-1]:
        return "google"
    return "openai"
