"""Which stored conversation and agent a request belongs to.

The rule (documented in the README), first that applies:

1. A header ``X-Snapshot-Conversation: ID`` or ``ID/AGENT`` names them (agent
   ``main`` when absent).
2. The harness's own session id, where the request carries one: Claude Code's
   ``X-Claude-Code-Session-Id`` header or the ``session_id`` inside
   ``metadata.user_id`` (a JSON string since 2.1.78, ``user_…_session_<uuid>``
   before); Codex's ``session_id`` / ``conversation_id`` header or the body's
   ``prompt_cache_key``. The conversation is that id (made store-safe); the
   agent is the opening's fingerprint (below), so a sub-agent or a side call
   of the same session, which opens differently, keeps a history of its own.
   Two sessions that open alike are two conversations.
3. Otherwise the conversation is ``fp-`` and 16 hex digits of the SHA-256 of the
   system prompt and the first user message (their JSON, ``cache_control``
   markers removed: clients move them from turn to turn), agent ``main``. A
   sub-agent has its own system prompt and first message, so it is its own
   conversation: two agents never share a history. Two sessions that open
   alike share this id; their turns diverge into branches of it
   (:func:`snapshot.transcript.tree.keyed_by_content`), none is lost.

>>> from snapshot.proxy.shapes import ANTHROPIC
>>> body = {"system": "be brief", "messages": [{"role": "user", "content": "hi"}]}
>>> later = {"system": "be brief", "messages": [
...     {"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"},
...     {"role": "user", "content": "more"}]}
>>> identify(ANTHROPIC, body, {}) == identify(ANTHROPIC, later, {})
True
>>> identify(ANTHROPIC, body, {"X-Snapshot-Conversation": "sess-1/reviewer"})
('sess-1', 'reviewer')
>>> cc = dict(body, metadata={"user_id": '{"device_id":"d","session_id":"54c1eb09-bc4c"}'})
>>> identify(ANTHROPIC, cc, {})[0]
'54c1eb09-bc4c'
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

from snapshot.proxy.errors import ProxyError
from snapshot.proxy.shapes import Shape
from snapshot.transcript.store import safe_id, validate_id

HEADER = "X-Snapshot-Conversation"
#: Headers that carry a harness's session id, in the order they are looked at
#: (Claude Code ≥ 2.1.86; Codex CLI). Matched without regard to case.
SESSION_HEADERS = ("X-Claude-Code-Session-Id", "session_id", "conversation_id")
# Claude Code before 2.1.78: "user_<sha256>_account_<uuid or empty>_session_<uuid>".
_LEGACY_USER_ID = re.compile(r"_session_([A-Za-z0-9-]+)$")


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


def _header(headers: Mapping[str, str], name: str) -> str | None:
    """A header's value whatever the case of its name (aiohttp's mapping is case-blind already)."""
    value = headers.get(name)
    if value is None:
        lower = name.lower()
        value = next((v for k, v in headers.items() if k.lower() == lower), None)
    return value.strip() if isinstance(value, str) and value.strip() else None


def _claude_code_session(user_id: Any) -> str | None:
    """The session id inside Claude Code's ``metadata.user_id`` (either of its two forms)."""
    if isinstance(user_id, dict):
        found = user_id.get("session_id")
        return found if isinstance(found, str) and found else None
    if not isinstance(user_id, str):
        return None
    if user_id.startswith("{"):
        try:
            parsed = json.loads(user_id)
        except ValueError:
            return None
        return _claude_code_session(parsed) if isinstance(parsed, dict) else None
    legacy = _LEGACY_USER_ID.search(user_id)
    return legacy.group(1) if legacy else None


def session_of(body: Mapping[str, Any], headers: Mapping[str, str]) -> str | None:
    """The harness's own session id carried by a request, or None.

    >>> session_of({"prompt_cache_key": "019a9544-7ab1"}, {})
    '019a9544-7ab1'
    >>> session_of({"metadata": {"user_id": "user_ab_account__session_57a1-c3"}}, {})
    '57a1-c3'
    >>> session_of({}, {"Session_Id": "s-9"}), session_of({}, {})
    ('s-9', None)
    """
    for name in SESSION_HEADERS:
        value = _header(headers, name)
        if value is not None:
            return value
    metadata = body.get("metadata")
    if isinstance(metadata, dict):
        found = _claude_code_session(metadata.get("user_id"))
        if found:
            return found
    key = body.get("prompt_cache_key")
    return key if isinstance(key, str) and key.strip() else None


def identify(shape: Shape, body: dict[str, Any], headers: Mapping[str, str]) -> tuple[str, str]:
    """(conversation id, agent) of a request: the header, else the session, else the fingerprint."""
    named = _header(headers, HEADER)
    if named is not None:
        conv, _, agent = named.partition("/")
        try:
            return validate_id(conv, "conversation id"), validate_id(agent or "main", "agent")
        except ValueError as exc:
            raise ProxyError(400, f"{HEADER}: {exc}") from None
    session = session_of(body, headers)
    if session is not None:
        return safe_id(session), fingerprint(shape, body)
    return fingerprint(shape, body), "main"
