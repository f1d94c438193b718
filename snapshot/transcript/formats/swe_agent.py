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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript import spill
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._common import (
    Warnings,
    add_pairing_warnings,
    content_text,
    matches_select,
)
from snapshot.transcript.formats._json_stream import JSONDocument
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


def _tool_calls(raw: Any, where: str, warn: Callable[[str, str], None]) -> list[ToolCall]:
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
                warn(f"{where}: tool-call arguments are not JSON; kept as text", "args")
                parsed = {"arguments": args}
        if not isinstance(parsed, dict):
            parsed = {"arguments": parsed}
        out.append(ToolCall(str(tc.get("id", "")), str(fn.get("name", "")), parsed))
    return out


class _Agent:
    """One agent's messages, made record by record (kept on disk in ``file`` when given).

    Its warnings are recorded and added after the file's own (:meth:`warnings`),
    where they came when the history was read whole first.
    """

    def __init__(self, path: Path, agent: str, file: spill.SpillFile | None) -> None:
        self.path = path
        self.agent = agent
        self.messages = spill.message_sink(file is not None, file)
        self.last: str | None = None
        self.open_call: str | None = None
        self.n_calls = 0
        self._said: list[tuple[str, str]] = []

    def _warn(self, message: str, kind: str) -> None:
        self._said.append((message, kind))

    def warnings(self, file_warnings: Warnings) -> Warnings:
        w = file_warnings.copy()
        for message, kind in self._said:
            w.add(message, kind)
        return w

    def add(self, i: int, raw: dict[str, Any]) -> None:
        where = f"{self.path}: history[{i}]"
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
            if self.open_call is not None:
                self._warn(f"{where}: tool call {self.open_call!r} has no result", "unanswered")
                self.open_call = None
            if text:
                blocks.append(TextBlock(text))
            calls = _tool_calls(raw.get("tool_calls"), where, self._warn)
            if calls:
                blocks.extend(calls)
            elif isinstance(raw.get("action"), str) and raw["action"].strip():
                self.n_calls += 1
                self.open_call = f"call-{self.n_calls}"
                blocks.append(ToolCall(self.open_call, "bash", {"command": raw["action"]}))
        elif role_in == "tool":
            role = "tool"
            ids = [str(x) for x in _listish(raw.get("tool_call_ids"))]
            if not ids:
                self._warn(f"{where}: tool message without tool_call_ids; kept as text", "ids")
                blocks.append(TextBlock(text))
            else:
                # One observation answers every call of the step; the text
                # goes with the first id so it is counted once.
                blocks.append(ToolResult(ids[0], (TextBlock(text),)))
                blocks.extend(ToolResult(x, ()) for x in ids[1:])
        elif role_in == "user" and self.open_call is not None and not raw.get("is_demo"):
            role = "user"
            blocks.append(ToolResult(self.open_call, (TextBlock(text),)))
            self.open_call = None
        elif role_in in ("system", "user"):
            role = "system" if role_in == "system" else "user"
            blocks.append(TextBlock(text))
        else:
            self._warn(f"{where}: unknown role {role_in!r}; skipped", "role")
            return
        mid = f"h{i}" if self.agent in ("main", "primary") else f"{self.agent}-h{i}"
        self.messages.append(Message(mid, self.last, role, tuple(blocks), meta))
        self.last = mid


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    if path.is_dir():
        raise TranscriptError(f"{path}: is a folder; give one SWE-agent .traj file")
    warnings = Warnings()
    # One document: the history, read one record at a time, and "trajectory", the
    # same steps again as the agent saw them, read through and not kept.
    doc = JSONDocument(path, "history", warnings, skip={"trajectory"})
    if doc.shape != "object" or not doc.found:
        doc.close()
        raise TranscriptError(
            f"{path}: not a SWE-agent trajectory (expected an object with a 'history' list)"
        )
    file = spill.SpillFile() if path.stat().st_size >= spill.SPILL_BYTES else None
    by_agent: dict[str, _Agent] = {}
    for i, raw in enumerate(doc.items()):
        if not isinstance(raw, dict):
            warnings.add(f"{path}: history[{i}] is not an object; skipped", "record")
            continue
        name = str(raw.get("agent") or "main")
        if name not in by_agent:
            by_agent[name] = _Agent(path, name, file)
        by_agent[name].add(i, raw)
    if not by_agent:
        raise TranscriptError(f"{path}: the trajectory's history is empty")

    raw_info = doc.fields.get("info")
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
    for index, (agent, reader) in enumerate(by_agent.items()):
        w = reader.warnings(warnings)
        messages = spill.frozen(reader.messages)
        if not messages:
            continue
        add_pairing_warnings(f"{path} ({agent})", messages, w)
        conv = Conversation(
            id=conv_id,
            messages=messages,
            tip=reader.last,
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


def score(path: Path, head: bytes) -> float:
    """1.0 for a ``.traj`` file holding an object; else 0.

    SWE-agent always writes ``.traj``; other JSON with a "history" list
    (OpenHands output, say) must not be claimed here (--format forces it), and
    a ``.traj`` file is SWE-agent's even though its history looks like
    OpenHands events (0.85) to that importer.

    >>> score(Path("run.traj"), b'{"history": []}'), score(Path("run.json"), b'{"history": []}')
    (1.0, 0.0)
    """
    ours = path.suffix == ".traj" and not path.is_dir() and head.lstrip()[:1] == b"{"
    return 1.0 if ours else 0.0


FORMAT = Format(
    name=NAME,
    description="SWE-agent .traj (tool_calls ids, or actions paired by position)",
    score=score,
    load=load,
)
