"""A request body of any shape read as turns: the role of each and the items it holds.

Every documented rule in :mod:`snapshot.transcript.validate.rules` is written
once over these turns, for all four shapes.

>>> body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]},
...                      {"role": "model", "parts": [{"functionCall": {"name": "ls"}}]}]}
>>> [(t.role, [i.kind for i in t.items]) for t in turns_of(body, "gemini")]
[('user', ['text']), ('model', ['call'])]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Item:
    kind: str  # text | call | result | image | thinking | other
    where: str
    id: str | None = None
    name: str | None = None
    text: str = ""
    media_type: str | None = None
    data: str | None = None  # base64
    signed: bool = False


@dataclass
class Turn:
    role: str
    where: str
    items: list[Item] = field(default_factory=list)

    def of(self, kind: str) -> list[Item]:
        return [i for i in self.items if i.kind == kind]


# --- reading each shape into turns ----------------------------------------------------


def _anthropic_turns(body: dict[str, Any]) -> list[Turn]:
    turns = []
    for i, m in enumerate(body.get("messages") or []):
        where = f"messages[{i}]"
        turn = Turn(str(m.get("role")), where)
        content = m.get("content")
        if isinstance(content, str):
            turn.items.append(Item("text", f"{where}.content", text=content))
        for j, b in enumerate(content if isinstance(content, list) else []):
            w = f"{where}.content[{j}]"
            kind = b.get("type")
            if kind == "text":
                turn.items.append(Item("text", w, text=str(b.get("text", ""))))
            elif kind == "tool_use":
                turn.items.append(Item("call", w, id=b.get("id"), name=b.get("name")))
            elif kind == "tool_result":
                turn.items.append(Item("result", w, id=b.get("tool_use_id")))
                inner = b.get("content")
                for k, c in enumerate(inner if isinstance(inner, list) else []):
                    turn.items.extend(_anthropic_leaf(c, f"{w}.content[{k}]"))
            elif kind == "image":
                turn.items.extend(_anthropic_leaf(b, w))
            elif kind in ("thinking", "redacted_thinking"):
                turn.items.append(Item("thinking", w))
            else:
                turn.items.append(Item("other", w))
        turns.append(turn)
    return turns


def _anthropic_leaf(b: dict[str, Any], where: str) -> list[Item]:
    if b.get("type") == "text":
        return [Item("text", where, text=str(b.get("text", "")), signed=True)]
    src = b.get("source") or {}
    if b.get("type") == "image" and src.get("type") == "base64":
        return [Item("image", where, media_type=src.get("media_type"), data=src.get("data"))]
    return []


def _data_url(url: str, where: str) -> Item:
    head, _, data = url.partition(",")
    media = head.removeprefix("data:").split(";")[0] if head.startswith("data:") else None
    return Item("image", where, media_type=media, data=data if media else None)


def _openai_parts(content: Any, where: str, text_type: str, image_type: str) -> list[Item]:
    if isinstance(content, str):
        return [Item("text", f"{where}.content", text=content)]
    items = []
    for j, p in enumerate(content if isinstance(content, list) else []):
        w = f"{where}.content[{j}]"
        if p.get("type") in (text_type, "output_text"):
            items.append(Item("text", w, text=str(p.get("text", ""))))
        elif p.get("type") == image_type:
            url = p.get("image_url")
            url = url.get("url") if isinstance(url, dict) else url
            if isinstance(url, str) and url.startswith("data:"):
                items.append(_data_url(url, w))
    return items


def _openai_turns(body: dict[str, Any]) -> list[Turn]:
    turns = []
    for i, m in enumerate(body.get("messages") or []):
        where = f"messages[{i}]"
        role = str(m.get("role"))
        turn = Turn(role, where)
        if role == "tool":
            turn.items.append(Item("result", where, id=m.get("tool_call_id")))
        else:
            turn.items.extend(_openai_parts(m.get("content"), where, "text", "image_url"))
        for j, c in enumerate(m.get("tool_calls") or []):
            fn = c.get("function") or {}
            turn.items.append(
                Item("call", f"{where}.tool_calls[{j}]", id=c.get("id"), name=fn.get("name"))
            )
        turns.append(turn)
    return turns


def _responses_turns(body: dict[str, Any]) -> list[Turn]:
    items = body.get("input")
    if isinstance(items, str):
        return [Turn("user", "input", [Item("text", "input", text=items)])]
    turns = []
    for i, it in enumerate(items if isinstance(items, list) else []):
        where = f"input[{i}]"
        kind = it.get("type", "message")
        if kind == "function_call":
            turns.append(
                Turn(
                    "assistant",
                    where,
                    [Item("call", where, id=it.get("call_id"), name=it.get("name"))],
                )
            )
        elif kind == "function_call_output":
            turns.append(Turn("tool", where, [Item("result", where, id=it.get("call_id"))]))
        elif kind == "message":
            turn = Turn(str(it.get("role")), where)
            turn.items.extend(_openai_parts(it.get("content"), where, "input_text", "input_image"))
            turns.append(turn)
        else:
            turns.append(Turn("other", where, [Item("other", where)]))
    return turns


def _gemini_turns(body: dict[str, Any]) -> list[Turn]:
    turns = []
    for i, c in enumerate(body.get("contents") or []):
        where = f"contents[{i}]"
        turn = Turn(str(c.get("role")), where)
        for j, p in enumerate(c.get("parts") or []):
            w = f"{where}.parts[{j}]"
            signed = bool(p.get("thoughtSignature"))
            if "functionCall" in p:
                fc = p["functionCall"] or {}
                turn.items.append(
                    Item("call", w, id=fc.get("id"), name=fc.get("name"), signed=signed)
                )
            elif "functionResponse" in p:
                fr = p["functionResponse"] or {}
                turn.items.append(Item("result", w, id=fr.get("id"), name=fr.get("name")))
            elif p.get("thought"):
                turn.items.append(Item("thinking", w))
            elif "text" in p:
                turn.items.append(Item("text", w, text=str(p.get("text") or "")))
            elif "inlineData" in p:
                d = p["inlineData"] or {}
                # proto3 JSON takes a field's own name too: google-genai sends "mime_type".
                mime = d.get("mimeType") or d.get("mime_type")
                turn.items.append(Item("image", w, media_type=mime, data=d.get("data")))
            else:
                turn.items.append(Item("other", w))
        turns.append(turn)
    return turns


_READERS = {
    "anthropic": _anthropic_turns,
    "openai": _openai_turns,
    "openai-responses": _responses_turns,
    "gemini": _gemini_turns,
}


def turns_of(body: dict[str, Any], shape: str) -> list[Turn]:
    """The body read as turns (role, items) in order."""
    return _READERS[shape](body)
