"""Which stored conversation and agent a request belongs to.

The rule (documented in the README):

1. A header ``X-Snapshot-Conversation: ID`` or ``ID/AGENT`` names them (agent
   ``main`` when absent).
2. Otherwise the conversation is ``fp-`` and 16 hex digits of the SHA-256 of the
   system prompt and the first user message (their JSON, ``cache_control``
   markers removed: clients move them from turn to turn), agent ``main``. A
   sub-agent has its own system prompt and first message, so it is its own
   conversation: two agents never share a history.

>>> from snapshot.proxy.shapes import ANTHROPIC
>>> body = {"system": "be brief", "messages": [{"role": "user", "content": "hi"}]}
>>> later = {"system": "be brief", "messages": [
...     {"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"},
...     {"role": "user", "content": "more"}]}
>>> identify(ANTHROPIC, body, None) == identify(ANTHROPIC, later, None)
True
>>> identify(ANTHROPIC, body, "sess-1/reviewer")
('sess-1', 'reviewer')
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from snapshot.proxy.errors import ProxyError
from snapshot.proxy.shapes import Shape
from snapshot.transcript.store import validate_id

HEADER = "X-Snapshot-Conversation"


def _without_cache_marks(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_cache_marks(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_without_cache_marks(v) for v in value]
    return value


def _opening(shape: Shape, body: dict[str, Any]) -> tuple[Any, Any]:
    """(system prompt, first user message) of a body, as the client wrote them."""
    items = shape.history(body) or []
    if shape.name == "anthropic":
        system: Any = body.get("system")
    elif shape.name == "openai-responses":
        system = body.get("instructions")
        if isinstance(body.get("input"), str):
            return system, body["input"]
    elif shape.name == "gemini":
        system = body.get("systemInstruction") or body.get("system_instruction")
    else:
        system = [
            m for m in items if isinstance(m, dict) and m.get("role") in ("system", "developer")
        ]
    first = next(
        (m for m in items if isinstance(m, dict) and m.get("role") == "user"),
        items[0] if items else None,
    )
    if isinstance(first, dict):
        first = first.get("content", first.get("parts"))
    return system, first


def fingerprint(shape: Shape, body: dict[str, Any]) -> str:
    """``fp-`` and 16 hex digits naming a conversation by how it opens."""
    system, first = _opening(shape, body)
    text = json.dumps(_without_cache_marks([system, first]), sort_keys=True, ensure_ascii=False)
    return "fp-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def identify(shape: Shape, body: dict[str, Any], header: str | None) -> tuple[str, str]:
    """(conversation id, agent) of a request; the header's value wins when given."""
    if header is not None and header.strip():
        conv, _, agent = header.strip().partition("/")
        try:
            return validate_id(conv, "conversation id"), validate_id(agent or "main", "agent")
        except ValueError as exc:
            raise ProxyError(400, f"{HEADER}: {exc}") from None
    return fingerprint(shape, body), "main"
