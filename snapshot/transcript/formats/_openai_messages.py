"""OpenAI chat messages → the neutral model, for every importer whose logs hold them.

OpenAI chat files, tau-bench runs (each ``traj``) and WebVoyager's
``interact_messages.json`` are all lists of chat messages: ``role`` of system,
developer, user, assistant, tool or function; content a string or typed parts
(text, ``image_url`` data URLs, refusals); assistant ``tool_calls``.

Pairing: ``tool_calls[].id`` = ``tool_call_id`` of a ``role: "tool"`` message;
the legacy ``function_call`` / ``role: "function"`` pair by position.

Kept out of the openai-chat importer so the importers that read these messages
do not import one another.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from snapshot.transcript.formats._common import (
    image_or_note,
    image_url_of,
    list_field,
    pairing_warnings,
    parse_arguments,
    skipped_warning,
)
from snapshot.transcript.model import (
    Block,
    Conversation,
    ImageBlock,
    Message,
    Role,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResult,
)

# The format name of conversations made of these messages.
OPENAI_CHAT = "openai-chat"


def _content_blocks(
    content: Any, where: str, warns: list[str], skipped: dict[str, int]
) -> list[Block]:
    if content is None:
        return []
    if isinstance(content, str):
        return [TextBlock(content)] if content else []
    if isinstance(content, Mapping):
        content = [content]
    if not isinstance(content, list):
        warns.append(f"{where}: content of type {type(content).__name__} kept as text")
        return [TextBlock(str(content))]
    out: list[Block] = []
    for i, part in enumerate(content):
        if isinstance(part, str):
            out.append(TextBlock(part))
            continue
        if not isinstance(part, Mapping):
            skipped["non-object content part"] = skipped.get("non-object content part", 0) + 1
            continue
        kind = part.get("type")
        if kind in ("text", "input_text", "output_text"):
            out.append(TextBlock(str(part.get("text") or "")))
        elif kind in ("image_url", "input_image"):
            url = image_url_of(part)
            if not isinstance(url, str):
                warns.append(f"{where}: part {i}: image_url without a URL skipped")
                continue
            out.append(image_or_note(url, "inline", f"{where}: part {i}", warns))
        elif kind == "refusal":
            out.append(TextBlock(str(part.get("refusal") or "")))
        else:
            key = f"content part {kind!r}"
            skipped[key] = skipped.get(key, 0) + 1
    return out


def messages_from_openai(
    records: Sequence[Any],
    *,
    where: str,
    id_prefix: str = "m",
    warns: list[str] | None = None,
) -> tuple[list[Message], list[str], dict[str, int]]:
    """Neutral messages (each continuing from the previous) from OpenAI chat messages.

    Returns ``(messages, warnings, skipped)`` where ``skipped`` counts what was
    not understood (unknown roles, unknown content parts) by kind.
    """
    warns = [] if warns is None else warns
    skipped: dict[str, int] = {}
    out: list[Message] = []
    parent: str | None = None
    pending_function: list[str] = []  # legacy function_call ids waiting for role=function
    for i, rec in enumerate(records):
        at = f"{where}: message {i}"
        if not isinstance(rec, Mapping):
            skipped["non-object message"] = skipped.get("non-object message", 0) + 1
            warns.append(f"{at}: not a JSON object; skipped")
            continue
        role = rec.get("role")
        blocks: list[Block] = []
        meta: dict[str, Any] = {}
        nrole: Role
        if role in ("system", "developer"):
            nrole = "system"
            blocks = _content_blocks(rec.get("content"), at, warns, skipped)
            if role == "developer":
                meta["openai_role"] = "developer"
        elif role == "user":
            nrole = "user"
            blocks = _content_blocks(rec.get("content"), at, warns, skipped)
        elif role == "assistant":
            nrole = "assistant"
            reasoning = rec.get("reasoning_content") or rec.get("reasoning")
            if isinstance(reasoning, str) and reasoning:
                blocks.append(ThinkingBlock(reasoning))
            blocks.extend(_content_blocks(rec.get("content"), at, warns, skipped))
            if isinstance(rec.get("refusal"), str) and rec["refusal"]:
                blocks.append(TextBlock(rec["refusal"]))
            for j, call in enumerate(list_field(rec, "tool_calls")):
                if not isinstance(call, Mapping):
                    warns.append(f"{at}: tool call {j} is not an object; skipped")
                    continue
                raw_fn = call.get("function")
                fn: Mapping[str, Any] = raw_fn if isinstance(raw_fn, Mapping) else {}
                call_id = str(call.get("id") or f"{id_prefix}{i}-call{j}")
                blocks.append(
                    ToolCall(
                        id=call_id,
                        name=str(fn.get("name") or call.get("name") or "unknown"),
                        input=parse_arguments(fn.get("arguments"), f"{at} call {call_id}", warns),
                    )
                )
            legacy = rec.get("function_call")
            if isinstance(legacy, Mapping):
                call_id = f"{id_prefix}{i}-function"
                pending_function.append(call_id)
                blocks.append(
                    ToolCall(
                        id=call_id,
                        name=str(legacy.get("name") or "unknown"),
                        input=parse_arguments(legacy.get("arguments"), at, warns),
                    )
                )
        elif role in ("tool", "function"):
            nrole = "tool"
            if role == "tool":
                call_id = str(rec.get("tool_call_id") or "")
                if not call_id:
                    warns.append(f"{at}: tool message without tool_call_id")
                    call_id = f"{id_prefix}{i}-missing-call"
            else:  # legacy: answers the oldest open function_call by position
                call_id = pending_function.pop(0) if pending_function else f"{id_prefix}{i}-orphan"
            content = _content_blocks(rec.get("content"), at, warns, skipped)
            result_content = tuple(b for b in content if isinstance(b, TextBlock | ImageBlock))
            blocks = [ToolResult(call_id=call_id, content=result_content)]
            if rec.get("name"):
                meta["name"] = rec["name"]
        else:
            key = f"role {role!r}"
            skipped[key] = skipped.get(key, 0) + 1
            continue
        mid = f"{id_prefix}{i}"
        out.append(Message(id=mid, parent=parent, role=nrole, blocks=tuple(blocks), meta=meta))
        parent = mid
    if skipped:
        warns.append(skipped_warning(where, "OpenAI chat", skipped))
    return out, warns, skipped


def conversation_from_openai(
    records: Sequence[Any],
    *,
    conv_id: str,
    source: str,
    where: str,
    format_name: str = OPENAI_CHAT,
    meta: Mapping[str, Any] | None = None,
) -> Conversation:
    messages, warns, skipped = messages_from_openai(records, where=where)
    warns.extend(pairing_warnings(messages, where))
    full_meta = dict(meta or {})
    if skipped:
        full_meta["skipped"] = skipped
    return Conversation(
        id=conv_id,
        messages=tuple(messages),
        tip=messages[-1].id if messages else None,
        format=format_name,
        source=source,
        meta=full_meta,
        warnings=tuple(warns),
    )
