"""OpenAI chat messages: ``tool_calls``, ``role: tool``, ``image_url`` parts.

Accepts a JSON list of messages, a chat-completions request body
(``{"model": ..., "messages": [...]}``) or a JSON object with a ``messages``
list. A tau-bench trajectories file (a list of runs with ``traj``) is handed to
:mod:`snapshot.transcript.formats.tau_bench`, so ``--format openai-chat`` works
on it too.

Pairing: ``tool_calls[].id`` = ``tool_call_id`` of a ``role: "tool"`` message;
the legacy ``function_call`` / ``role: "function"`` pair by position.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._common import (
    head_text,
    image_or_note,
    image_url_of,
    load_json,
    pairing_warnings,
    parse_arguments,
    skipped_warning,
    starts_like_tau_runs,
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

NAME = "openai-chat"


# --- OpenAI chat parsing -------------------------------------------------------------


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
            for j, call in enumerate(rec.get("tool_calls") or ()):
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
    format_name: str = NAME,
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


def _is_tau_bench(data: Any) -> bool:
    return (
        isinstance(data, list) and bool(data) and isinstance(data[0], Mapping) and "traj" in data[0]
    )


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    if path.is_dir():
        raise TranscriptError(f"{path}: a folder; openai-chat imports a JSON file of messages")
    data = load_json(path)
    if _is_tau_bench(data):
        from snapshot.transcript.formats import tau_bench

        return tau_bench.conversations_from_runs(data, path, options)
    meta: dict[str, Any] = {}
    if isinstance(data, Mapping):
        records = data.get("messages")
        if not isinstance(records, list):
            raise TranscriptError(f"{path}: a JSON object without a 'messages' list")
        for key in ("model", "tools"):
            if key in data:
                meta[key] = data[key]
    elif isinstance(data, list):
        records = data
    else:
        raise TranscriptError(f"{path}: expected a list of messages or an object with 'messages'")
    if options.select:
        raise TranscriptError(f"{path}: holds one conversation; --select is for files holding many")
    return [
        conversation_from_openai(
            records, conv_id=path.stem, source=str(path), where=str(path), meta=meta
        )
    ]


_ROLE_RE = re.compile(rb'"role"\s*:\s*"(system|developer|user|assistant|tool|function)"')
# A list whose first object has a role before any nested object: a list of messages,
# not a list of events that merely mention a role deep inside.
_LIST_OF_MESSAGES = re.compile(r'^\[\s*\{[^{}]*"role"\s*:')
_MESSAGES_KEY = re.compile(r'"messages"\s*:\s*\[')


def sniff(path: Path, head: bytes) -> bool:
    if path.is_dir():
        return False
    text = head_text(head)
    if text.startswith("["):
        return _LIST_OF_MESSAGES.match(text) is not None or starts_like_tau_runs(text)
    if text.startswith("{"):
        return _MESSAGES_KEY.search(text) is not None and _ROLE_RE.search(head) is not None
    return False


FORMAT = Format(
    name=NAME,
    description="OpenAI chat messages (tool_calls, role: tool, image_url data URLs)",
    sniff=sniff,
    load=load,
)
