"""Gemini CLI headless ``--output-format stream-json`` logs → the neutral model.

One JSON event per line (Gemini CLI's documented headless output):

- ``init``: ``session_id`` and ``model``;
- ``message``: ``role`` user or assistant and ``content``; an assistant reply
  streams as many ``delta: true`` pieces, joined here into one message;
- ``tool_use``: ``tool_name``, ``tool_id``, ``parameters`` (an object);
- ``tool_result``: ``tool_id``, ``status`` (``success`` / ``error``),
  ``output`` and, on failure, ``error`` {type, message};
- ``error`` (a warning) and ``result`` (``status`` and ``stats``, kept in the
  conversation's ``meta``).

A ``tool_use`` without a ``tool_id`` gets ``<tool_name>#<line>``; a result
answers the call its ``tool_id`` names, else the oldest such unnamed call of
the tool its id starts with, else the oldest open call (counted in a warning).

>>> score(Path("run.jsonl"), b'{"type":"init","timestamp":"t","session_id":"s","model":"gemini-2.5-pro"}\\n')
1.0
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._common import (
    Warnings,
    add_pairing_warnings,
    head_records,
    iter_json_objects,
    matches_select,
)
from snapshot.transcript.model import (
    Block,
    Conversation,
    Message,
    Role,
    TextBlock,
    ToolCall,
    ToolResult,
)

NAME = "gemini-cli-stream-json"
_EVENTS = {"init", "message", "tool_use", "tool_result", "error", "result"}
# The keys each event has besides ``type`` and ``timestamp``: a record of another
# format that shares a type name (pi's ``message``) is not an event.
_EVENT_KEYS = {
    "init": ("session_id",),
    "message": ("role", "content"),
    "tool_use": ("tool_name", "parameters"),
    "tool_result": ("tool_id", "status"),
    "error": ("message",),
    "result": ("status",),
}


def is_event(rec: Mapping[str, Any]) -> bool:
    """A stream-json event: a known ``type`` with that event's own keys.

    >>> is_event({"type": "message", "role": "user", "content": "hi"}), is_event({"type": "message"})
    (True, False)
    """
    keys = _EVENT_KEYS.get(str(rec.get("type")))
    return keys is not None and all(k in rec for k in keys)


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _unnamed_call(open_calls: list[str], tool_id: str) -> str | None:
    """The open call logged without an id that a result's ``tool_id`` answers.

    Gemini CLI's ids start with the tool's name (``read_file__call_3``): the
    oldest such call of that tool, else the oldest call without an id.

    >>> _unnamed_call(["glob#3", "read_file#4"], "read_file__call_9")
    'read_file#4'
    """
    unnamed = [c for c in open_calls if "#" in c]
    same = [c for c in unnamed if tool_id.startswith(c.rsplit("#", 1)[0])]
    found = same or unnamed
    return found[0] if found else None


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    """Read one stream-json log (one conversation)."""
    warnings = Warnings()
    skipped: Counter[str] = Counter()
    messages: list[Message] = []
    meta: dict[str, Any] = {}
    open_calls: list[str] = []  # call ids without a result yet, oldest first
    guessed = 0
    recognised = 0
    # The message being streamed: (role, pieces); flushed when anything else comes.
    streaming: list[Any] = []

    def add(role: Role, blocks: list[Block], extra: Mapping[str, Any]) -> None:
        parent = messages[-1].id if messages else None
        messages.append(Message(f"e{len(messages)}", parent, role, tuple(blocks), dict(extra)))

    def flush() -> None:
        if streaming:
            role, pieces, stamp = streaming
            add(role, [TextBlock("".join(pieces))], {"timestamp": stamp} if stamp else {})
            streaming.clear()

    if path.is_dir():
        raise TranscriptError(f"{path}: is a folder; give the stream-json log file")
    for lineno, rec in iter_json_objects(path, warnings):
        kind = rec.get("type")
        if not is_event(rec):
            skipped[f"record {kind!r} (not a stream-json event)"] += 1
            continue
        recognised += 1
        stamp = rec.get("timestamp")
        if kind == "init":
            for key in ("session_id", "model"):
                if isinstance(rec.get(key), str):
                    meta.setdefault(key, rec[key])
            continue
        if kind == "message":
            role: Role = "assistant" if rec.get("role") in ("assistant", "model") else "user"
            piece = _text(rec.get("content"))
            if rec.get("delta") and streaming and streaming[0] == role:
                streaming[1].append(piece)
                continue
            flush()
            streaming.extend([role, [piece], stamp])
            if not rec.get("delta"):
                flush()
            continue
        flush()
        if kind == "tool_use":
            name = str(rec.get("tool_name") or "unknown")
            call_id = rec.get("tool_id")
            if not isinstance(call_id, str) or not call_id:
                call_id = f"{name}#{lineno}"
                guessed += 1
            params = rec.get("parameters")
            args = dict(params) if isinstance(params, Mapping) else {"_arguments": params}
            open_calls.append(call_id)
            add("assistant", [ToolCall(call_id, name, args)], {"timestamp": stamp})
        elif kind == "tool_result":
            call_id = rec.get("tool_id")
            if not isinstance(call_id, str) or not call_id:
                call_id = open_calls[0] if open_calls else f"orphan#{lineno}"
                guessed += 1
            elif call_id not in open_calls and (unnamed := _unnamed_call(open_calls, call_id)):
                call_id = unnamed  # the call was logged without its id
                guessed += 1
            if call_id in open_calls:
                open_calls.remove(call_id)
            failed = rec.get("status") == "error"
            text = _text(rec.get("output"))
            error = rec.get("error")
            message = str(error.get("message") or "") if isinstance(error, Mapping) else ""
            if failed and message and message not in text:
                text = f"{text}\n{message}" if text else message
            add("tool", [ToolResult(call_id, (TextBlock(text),) if text else (), failed)], {})
        elif kind == "error":
            warnings.add(
                f"{path}:{lineno}: Gemini CLI reported an error: {_text(rec.get('message') or rec)}"
            )
        elif kind == "result":
            meta["result"] = {k: rec[k] for k in ("status", "stats", "error") if k in rec}
    flush()
    if not recognised:
        raise TranscriptError(
            f"{path}: no Gemini CLI stream-json events found (init, message, tool_use, "
            "tool_result, result); force another format with --format"
        )
    if guessed:
        warnings.add(f"{path}: {guessed} tool events without a tool_id, paired by order")
    warnings.extend_counts(f"{path}: skipped events", skipped)
    add_pairing_warnings(str(path), messages, warnings)
    conv_id = str(meta.get("session_id") or path.stem)
    if not matches_select({"id": conv_id, "session_id": conv_id}, options.select):
        return []
    if isinstance(meta.get("model"), str):
        meta["models"] = [meta["model"]]
    return [
        Conversation(
            id=conv_id,
            messages=tuple(messages),
            tip=messages[-1].id if messages else None,
            format=NAME,
            source=str(path),
            meta=meta,
            warnings=warnings.tuple(),
        )
    ]


def score(path: Path, head: bytes) -> float:
    """1.0 for a log whose first event is ``init`` with a ``session_id``; 0.9 for a head of
    only these events with a ``tool_use``/``tool_result`` keyed by ``tool_id``; else 0.0."""
    if path.is_dir():
        return 0.0
    records = head_records(head)
    if not records:
        return 0.0
    first = records[0]
    if first.get("type") == "init" and "session_id" in first and "message" not in first:
        return 1.0
    if all(is_event(r) for r in records) and any(
        r.get("type") in ("tool_use", "tool_result") and "tool_id" in r for r in records
    ):
        return 0.9
    return 0.0


FORMAT = Format(
    name=NAME,
    description="Gemini CLI headless --output-format stream-json log (tool_use → tool_result by tool_id)",
    score=score,
    load=load,
)
