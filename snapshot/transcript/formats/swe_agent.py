"""SWE-agent ``.traj`` files → the neutral model.

A ``.traj`` is one JSON document whose ``history`` is the message list the
model was sent (``role``, ``content``, and per message ``agent``,
``message_type``, ``thought``, ``action``, ``is_demo``); ``trajectory`` repeats
the steps with their observations and ``info`` holds the exit status and
submission.

Two generations:

- Function-calling runs (newer): assistant messages carry ``tool_calls``
  (OpenAI shape, ids included) and results are ``role: "tool"`` messages
  naming them in ``tool_call_ids``. Pairing follows those ids.
- Older runs have no ids: an assistant message's ``action`` is the command
  it ran and the next user message is the observation. The action becomes a
  :class:`ToolCall` ``bash`` (SWE-agent's commands are shell functions) with
  id ``call-<n>`` and the next user message its :class:`ToolResult`. The
  assistant text is kept whole (thought and the fenced action), as sent.

Several agents in one history (``agent`` differs) import as one conversation
per agent.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._common import (
    Warnings,
    add_pairing_warnings,
    content_text,
    matches_select,
    read_json_document,
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

NAME = "swe-agent-traj"


def _listish(value: Any) -> list[Any]:
    """A list, or a list written as JSON or as a Python repr (some versions do)."""
    if value is None:
        return []
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        for parse in (json.loads, ast.literal_eval):
            try:
                parsed = parse(value)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue
            if isinstance(parsed, list):
                return parsed
    return []


def _tool_calls(raw: Any, where: str, warnings: Warnings) -> list[ToolCall]:
    out: list[ToolCall] = []
    for tc in _listish(raw):
        if not isinstance(tc, dict):
            continue
        raw_fn = tc.get("function")
        fn: dict[str, Any] = raw_fn if isinstance(raw_fn, dict) else {}
        args = fn.get("arguments")
        parsed: Any = args
        if isinstance(args, str):
            try:
                parsed = json.loads(args) if args.strip() else {}
            except (ValueError, RecursionError):
                warnings.add(f"{where}: tool-call arguments are not JSON; kept as text", "args")
                parsed = {"arguments": args}
        if not isinstance(parsed, dict):
            parsed = {"arguments": parsed}
        out.append(ToolCall(str(tc.get("id", "")), str(fn.get("name", "")), parsed))
    return out


def _agent_messages(
    path: Path, agent: str, history: list[tuple[int, dict[str, Any]]], warnings: Warnings
) -> list[Message]:
    messages: list[Message] = []
    open_call: str | None = None
    n_calls = 0
    for i, raw in history:
        where = f"{path}: history[{i}]"
        role_in = raw.get("role")
        text = content_text(raw.get("content"))
        blocks: list[Block] = []
        meta: dict[str, Any] = {}
        if raw.get("is_demo"):
            meta["demo"] = True
        if raw.get("message_type"):
            meta["message_type"] = raw["message_type"]
        role: Role
        if role_in == "assistant":
            role = "assistant"
            if open_call is not None:
                warnings.add(f"{where}: tool call {open_call!r} has no result", "unanswered")
                open_call = None
            if text:
                blocks.append(TextBlock(text))
            calls = _tool_calls(raw.get("tool_calls"), where, warnings)
            if calls:
                blocks.extend(calls)
            elif isinstance(raw.get("action"), str) and raw["action"].strip():
                n_calls += 1
                open_call = f"call-{n_calls}"
                blocks.append(ToolCall(open_call, "bash", {"command": raw["action"]}))
        elif role_in == "tool":
            role = "tool"
            ids = [str(x) for x in _listish(raw.get("tool_call_ids"))]
            if not ids:
                warnings.add(f"{where}: tool message without tool_call_ids; kept as text", "ids")
                blocks.append(TextBlock(text))
            else:
                # One observation answers every call of the step; the text
                # goes with the first id so it is counted once.
                blocks.append(ToolResult(ids[0], (TextBlock(text),)))
                blocks.extend(ToolResult(x, ()) for x in ids[1:])
        elif role_in == "user" and open_call is not None and not raw.get("is_demo"):
            role = "user"
            blocks.append(ToolResult(open_call, (TextBlock(text),)))
            open_call = None
        elif role_in in ("system", "user"):
            role = "system" if role_in == "system" else "user"
            blocks.append(TextBlock(text))
        else:
            warnings.add(f"{where}: unknown role {role_in!r}; skipped", "role")
            continue
        parent = messages[-1].id if messages else None
        mid = f"h{i}" if agent in ("main", "primary") else f"{agent}-h{i}"
        messages.append(Message(mid, parent, role, tuple(blocks), meta))
    return messages


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    if path.is_dir():
        raise TranscriptError(f"{path}: is a folder; give one SWE-agent .traj file")
    warnings = Warnings()
    doc = read_json_document(path, warnings)
    if not isinstance(doc, dict) or not isinstance(doc.get("history"), list):
        raise TranscriptError(
            f"{path}: not a SWE-agent trajectory (expected an object with a 'history' list)"
        )
    by_agent: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for i, raw in enumerate(doc["history"]):
        if not isinstance(raw, dict):
            warnings.add(f"{path}: history[{i}] is not an object; skipped", "record")
            continue
        by_agent.setdefault(str(raw.get("agent") or "main"), []).append((i, raw))
    if not by_agent:
        raise TranscriptError(f"{path}: the trajectory's history is empty")

    raw_info = doc.get("info")
    info: dict[str, Any] | None = raw_info if isinstance(raw_info, dict) else None
    meta: dict[str, Any] = {}
    if info is not None:
        for key in ("exit_status", "model_stats"):
            if key in info:
                meta[key] = info[key]
        if isinstance(info.get("submission"), str):
            meta["submission_chars"] = len(info["submission"])
    conv_id = path.name.removesuffix(".traj")
    out: list[Conversation] = []
    for index, (agent, history) in enumerate(by_agent.items()):
        w = warnings.copy()
        messages = _agent_messages(path, agent, history, w)
        if not messages:
            continue
        add_pairing_warnings(f"{path} ({agent})", messages, w)
        conv = Conversation(
            id=conv_id,
            messages=tuple(messages),
            tip=messages[-1].id,
            # The first agent is the session's main one, whatever SWE-agent calls it.
            agent="main" if index == 0 else agent,
            format=NAME,
            source=str(path),
            meta={**meta, "swe_agent_name": agent},
            warnings=w.tuple(),
        )
        if matches_select({"id": conv_id, "agent": agent}, options.select):
            out.append(conv)
    return out


def sniff(path: Path, head: bytes) -> bool:
    # SWE-agent always writes ``.traj``; other JSON with a "history" list
    # (OpenHands output, say) must not be claimed here. --format forces it.
    return path.suffix == ".traj" and not path.is_dir() and head.lstrip()[:1] == b"{"


FORMAT = Format(
    name=NAME,
    description="SWE-agent .traj (tool_calls ids, or actions paired by position)",
    sniff=sniff,
    load=load,
)
