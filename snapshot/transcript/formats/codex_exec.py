"""Codex ``exec --json`` event logs → the neutral model.

One JSON event per line: ``thread.started`` (the thread id), ``turn.started``
/ ``turn.completed`` (usage), and ``item.started`` / ``item.updated`` /
``item.completed`` carrying one *item*. A tool item holds both the call and
its outcome (``command_execution``: ``command`` then ``aggregated_output`` and
``exit_code``), linked by ``item.id``: the call becomes an assistant
:class:`ToolCall` when the item starts and the outcome a :class:`ToolResult`
(role ``tool``) when it completes, so parallel items interleave as they ran.
``agent_message`` items are assistant text, ``reasoning`` items thinking.

The first user turn is not in the log; it lives in the sibling prompt file
(``…agent_log_raw…`` → ``…prompt…``) when the log was written by a workflow
that keeps one.
"""

from __future__ import annotations

import json
from collections import Counter
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
    read_prompt,
    str_field,
)
from snapshot.transcript.model import (
    Block,
    Conversation,
    Message,
    Role,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResult,
)

NAME = "codex-exec-jsonl"

_EVENT_TYPES = {
    "thread.started",
    "turn.started",
    "turn.completed",
    "turn.failed",
    "item.started",
    "item.updated",
    "item.completed",
    "error",
}

# Item types whose call and outcome are one item.
_TOOL_ITEMS = {"command_execution", "file_change", "mcp_tool_call", "web_search"}


def _call(item: dict[str, Any]) -> ToolCall:
    kind = str(item.get("type"))
    item_id = str(item.get("id", ""))
    if kind == "command_execution":
        return ToolCall(item_id, "shell", {"command": item.get("command", "")})
    if kind == "file_change":
        return ToolCall(item_id, "apply_patch", {"changes": item.get("changes", [])})
    if kind == "mcp_tool_call":
        name = f"{item.get('server', 'mcp')}.{item.get('tool', '')}"
        args = item.get("arguments")
        return ToolCall(item_id, name, args if isinstance(args, dict) else {"arguments": args})
    return ToolCall(item_id, kind, {"query": item.get("query", "")})


def _result(item: dict[str, Any]) -> tuple[ToolResult, dict[str, Any]]:
    kind = item.get("type")
    item_id = str(item.get("id", ""))
    status = item.get("status")
    failed = status in ("failed", "declined")
    meta: dict[str, Any] = {"status": status}
    if kind == "command_execution":
        exit_code = item.get("exit_code")
        meta["exit_code"] = exit_code
        text = str(item.get("aggregated_output") or "")
        failed = failed or (isinstance(exit_code, int) and exit_code != 0)
    elif kind == "file_change":
        changes = item.get("changes") or []
        text = "\n".join(
            f"{c.get('kind', '?')} {c.get('path', '?')}" for c in changes if isinstance(c, dict)
        )
    elif kind == "mcp_tool_call":
        error = item.get("error")
        res = item.get("result")
        if error:
            failed = True
            if isinstance(error, dict) and isinstance(error.get("message"), str):
                text = error["message"]
            else:
                text = error if isinstance(error, str) else json.dumps(error, ensure_ascii=False)
        elif isinstance(res, dict) and isinstance(res.get("content"), list):
            text = "\n".join(str(p.get("text", "")) for p in res["content"] if isinstance(p, dict))
        else:
            text = "" if res is None else json.dumps(res, ensure_ascii=False)
    else:
        text = ""
    return ToolResult(item_id, (TextBlock(text),) if text else (), failed), meta


class _Builder:
    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.ids: Counter[str] = Counter()

    def add(self, base: str, role: Role, blocks: list[Block], meta: dict[str, Any]) -> None:
        # Item ids restart at item_0 on every turn; keep message ids unique.
        self.ids[base] += 1
        mid = base if self.ids[base] == 1 else f"{base}#{self.ids[base]}"
        parent = self.messages[-1].id if self.messages else None
        self.messages.append(Message(mid, parent, role, tuple(blocks), meta))


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    if path.is_dir():
        raise TranscriptError(f"{path}: is a folder; give one Codex exec --json log")
    warnings = Warnings()
    skipped: Counter[str] = Counter()
    b = _Builder()
    thread_id: str | None = None
    meta: dict[str, Any] = {}
    started: dict[str, str] = {}  # item id -> call id (unique across turns)
    turn = 0
    recognised = 0

    prompt = read_prompt(path, warnings)
    if prompt is not None:
        b.add("prompt", "user", [TextBlock(prompt)], {"source": "prompt file"})

    for lineno, rec in iter_json_objects(path, warnings, "event"):
        where = f"{path}:{lineno}"
        kind = str_field(rec, "type")
        if kind in _EVENT_TYPES:
            recognised += 1
        if kind == "thread.started":
            thread_id = str(rec.get("thread_id")) if rec.get("thread_id") else thread_id
            continue
        if kind == "turn.started":
            turn += 1
            continue
        if kind == "turn.completed":
            if isinstance(rec.get("usage"), dict):
                meta.setdefault("usage", []).append(rec["usage"])
            continue
        if kind in ("turn.failed", "error"):
            err = rec.get("error") if kind == "turn.failed" else rec
            message = err.get("message") if isinstance(err, dict) else err
            warnings.add(f"{where}: Codex reported an error: {message}")
            continue
        if kind not in ("item.started", "item.updated", "item.completed"):
            skipped[str(kind)] += 1
            continue
        item = rec.get("item")
        if not isinstance(item, dict):
            warnings.add(f"{where}: {kind} event without an item; skipped", "record")
            continue
        item_type = str_field(item, "type")
        item_id = str(item.get("id", f"line-{lineno}"))
        key = f"t{turn}:{item_id}"
        if item_type in _TOOL_ITEMS:
            if key not in started:
                # The first sighting (start, or a completion without a start)
                # is where the call was made.
                call = _call(item)
                call_id = item_id if item_id not in started.values() else key
                started[key] = call_id
                call = ToolCall(call_id, call.name, call.input)
                b.add(f"{item_id}-call", "assistant", [call], {"item_type": item_type})
            if kind == "item.completed":
                result, rmeta = _result(item)
                result = ToolResult(started[key], result.content, result.is_error)
                b.add(f"{item_id}-result", "tool", [result], rmeta)
            continue
        if kind != "item.completed":
            continue  # text items are complete only at the end
        if item_type == "agent_message":
            b.add(item_id, "assistant", [TextBlock(str(item.get("text", "")))], {})
        elif item_type == "reasoning":
            b.add(item_id, "assistant", [ThinkingBlock(str(item.get("text", "")))], {})
        elif item_type == "todo_list":
            items = item.get("items") or []
            text = "\n".join(
                f"[{'x' if t.get('completed') else ' '}] {t.get('text', '')}"
                for t in items
                if isinstance(t, dict)
            )
            b.add(item_id, "assistant", [TextBlock(text)], {"item_type": "todo_list"})
        elif item_type == "error":
            warnings.add(f"{where}: Codex error item: {item.get('message', '')}")
        else:
            warnings.add(f"{where}: item type {item_type!r} kept as JSON text", "item")
            b.add(item_id, "assistant", [TextBlock(json.dumps(item, ensure_ascii=False))], {})

    warnings.extend_counts("skipped unknown events", skipped)
    if not recognised:
        raise TranscriptError(
            f"{path}: no Codex exec events found; is this a `codex exec --json` log? "
            "(force another format with --format)"
        )
    add_pairing_warnings(str(path), b.messages, warnings)
    conv = Conversation(
        id=thread_id or path.stem,
        messages=tuple(b.messages),
        tip=b.messages[-1].id if b.messages else None,
        format=NAME,
        source=str(path),
        meta=meta,
        warnings=warnings.tuple(),
    )
    if not matches_select({"id": conv.id, "thread_id": conv.id}, options.select):
        return []
    return [conv]


def score(path: Path, head: bytes) -> float:
    """0.93 when every record of the head is one of Codex's own event types; else 0.

    >>> score(Path("e.jsonl"), b'{"type": "thread.started", "thread_id": "t"}\\n')
    0.93
    """
    if path.is_dir():
        return 0.0
    records = head_records(head)
    # Every event type is Codex's own dotted vocabulary; one foreign record
    # (a Claude Code "user" line, say) rules the file out.
    ours = bool(records) and all(str_field(r, "type") in _EVENT_TYPES for r in records)
    return 0.93 if ours else 0.0


FORMAT = Format(
    name=NAME,
    description="Codex `exec --json` event log (call and result are one item)",
    score=score,
    load=load,
)
