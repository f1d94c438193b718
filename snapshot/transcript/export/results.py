"""Did every tool result the source had text for reach the body with its text?

What ``snapshot export --check`` adds to the schema check: a body can be valid
with every ``tool_result`` empty (the importer did not read the parts the
results were in), and that is loss, not a valid export.

>>> from snapshot.transcript.model import linear, TextBlock, ToolCall, ToolResult
>>> conv = linear("c", [("u", "user", [TextBlock("go")]),
...     ("a", "assistant", [ToolCall("t1", "ls", {})]),
...     ("t", "tool", [ToolResult("t1", (TextBlock("a.txt"),))])])
>>> body = {"messages": [{"role": "user", "content": [
...     {"type": "tool_result", "tool_use_id": "t1", "content": ""}]}]}
>>> emptied_results(conv, body, "anthropic")
['1 tool result(s) with text in the source are empty in the body (first: t1)']
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from snapshot.transcript.model import Conversation

__all__ = ["emptied_results"]


def _text_of(value: Any) -> str:
    """The text of a result's content: a string, text parts, or any nested text."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(_text_of(v) for v in value)
    if isinstance(value, Mapping):
        if isinstance(value.get("text"), str):
            return str(value["text"])
        return "".join(_text_of(v) for k, v in value.items() if k not in ("type", "name", "id"))
    return ""


def _body_results(body: Any, shape: str) -> Iterator[tuple[str, str]]:
    """``(call id, result text)`` of every tool result in a body of ``shape``, in order."""
    if not isinstance(body, Mapping):
        return
    if shape == "anthropic":
        for m in body.get("messages") or []:
            for b in m.get("content") or [] if isinstance(m.get("content"), list) else []:
                if isinstance(b, Mapping) and b.get("type") == "tool_result":
                    yield str(b.get("tool_use_id")), _text_of(b.get("content"))
    elif shape == "openai":
        for m in body.get("messages") or []:
            if isinstance(m, Mapping) and m.get("role") == "tool":
                yield str(m.get("tool_call_id")), _text_of(m.get("content"))
    elif shape == "openai-responses":
        items = body.get("input")
        for it in items if isinstance(items, list) else []:
            if isinstance(it, Mapping) and str(it.get("type", "")).endswith("_call_output"):
                yield str(it.get("call_id")), _text_of(it.get("output"))
    elif shape == "gemini":
        for c in body.get("contents") or []:
            for p in c.get("parts") or [] if isinstance(c, Mapping) else []:
                fr = p.get("functionResponse") if isinstance(p, Mapping) else None
                if isinstance(fr, Mapping):
                    yield str(fr.get("id") or fr.get("name")), _text_of(fr.get("response"))


def emptied_results(conv: Conversation, body: Any, shape: str) -> list[str]:
    """One problem line when results with text in ``conv``'s path are empty in ``body``.

    Counted, not matched by id (an exporter may rename an id a provider would
    refuse): the body must hold at least as many results with text as the
    path does.
    """
    path = conv.path()
    calls = {c.id for m in path for c in m.tool_calls()}
    # A result without its call is exported as a text note, not a result: not counted.
    source = [r for m in path for r in m.tool_results() if r.text().strip() and r.call_id in calls]
    exported = list(_body_results(body, shape))
    kept = sum(1 for _, text in exported if text.strip())
    if kept >= len(source):
        return []
    empty = [cid for cid, text in exported if not text.strip()]
    first = f" (first: {empty[0]})" if empty else ""
    return [
        f"{len(source) - kept} tool result(s) with text in the source are empty in the body{first}"
    ]
