"""Fields a provider accepts that its published types do not list: a body read as the
provider reads it, before the schemas check it.

Each allowance names the real client that sends the field to that provider's own API
on every request (so the provider accepts it) and where the client's source says so;
nothing else is let through, so a field the published types do not know is still a
problem unless it is listed here. OpenAI Responses, from Codex CLI (OpenAI's own
client; ``openai/codex``, ``codex-rs/protocol/src/models.rs``; read 2026-12-06):

- a ``reasoning`` item's ``content: null`` (Codex serializes an absent reasoning
  text as ``null``: ``should_serialize_reasoning_content`` is false for ``None``);
- an input ``message`` item's ``id`` (``msg_…``; the spec's output messages carry one);
- a ``custom_tool_call`` item's ``status`` (as every other call item of the spec has);
- the top-level ``client_metadata`` (string to string: session, turn and window ids).

>>> body = {"model": "m", "client_metadata": {"session_id": "s"}, "input": [
...     {"type": "reasoning", "id": "rs_1", "summary": [], "content": None}]}
>>> as_read(body, "openai-responses")
{'model': 'm', 'input': [{'type': 'reasoning', 'id': 'rs_1', 'summary': []}]}
>>> as_read(body, "anthropic") is body
True
"""

from __future__ import annotations

from typing import Any

_STATUSES = ("in_progress", "completed", "incomplete")


def _item(item: Any) -> Any:
    """A Responses input item without the fields Codex adds that the types omit."""
    if not isinstance(item, dict):
        return item
    kind = item.get("type")
    drop: set[str] = set()
    if kind == "reasoning" and "content" in item and item["content"] is None:
        drop.add("content")
    elif kind == "message" and isinstance(item.get("id"), str):
        drop.add("id")
    elif kind == "custom_tool_call" and item.get("status") in _STATUSES:
        drop.add("status")
    return {k: v for k, v in item.items() if k not in drop} if drop else item


def _string_map(value: Any) -> bool:
    return isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    )


def as_read(body: Any, shape: str) -> Any:
    """``body`` as the provider reads it: the allowances above removed (a new object
    where one applied; ``body`` itself otherwise). Only for the schema checks: the
    documented rules read the body as sent."""
    if shape != "openai-responses" or not isinstance(body, dict):
        return body
    out = dict(body)
    if _string_map(out.get("client_metadata")):
        del out["client_metadata"]
    items = out.get("input")
    if isinstance(items, list):
        out["input"] = [_item(i) for i in items]
    return out
