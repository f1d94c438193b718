"""browser-use trajectories as SCUBA saves them: LangChain messages per step.

The file is ``{"task_prompt", "is_successful", "steps": {"0": ..., "1": ...}}``;
each step holds ``input_messages.contents`` (every LangChain message the model
was sent for that step: ``system``, ``human``, ``ai`` with ``tool_calls``,
``tool`` with ``tool_call_id``), the model's ``output_messages`` and the
``controller_messages`` (the browser's action results, sent as human
messages in the next step).

Rebuilding one conversation: browser-use keeps a persistent history and adds
two transient messages at the end of each step's input (the plan and the
current browser state with its screenshot), removing them once the model has
answered. The importer walks the steps, keeps each new message once in the
order the model first saw it, and marks the transient ones with
``meta["transient"] = True``, so the full screenshot history is kept (one per
step) even though the agent itself only ever sent the latest. A transient
message identical to one already kept (the plan, re-sent unchanged every
step) is not repeated; ``meta["repeated_transient"]`` counts those. The last
step's output (which no later input repeats) is appended from
``output_messages`` and ``controller_messages``.

Pairing: LangChain ``tool_calls[].id`` = ``tool_call_id`` of the ``tool``
message. The prompt's example exchange (an ``AgentOutput`` call answered
"Browser started") is part of what the model saw and is kept.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._common import (
    head_text,
    image_or_note,
    image_url_of,
    list_field,
    load_json,
    pairing_warnings,
    parse_arguments,
    skipped_warning,
)
from snapshot.transcript.formats._json_stream import JSONDocument
from snapshot.transcript.model import (
    Block,
    Conversation,
    ImageBlock,
    Message,
    Role,
    TextBlock,
    ToolCall,
    ToolResult,
)

NAME = "browser-use"

_ROLES: dict[str, Role] = {
    "system": "system",
    "human": "user",
    "user": "user",
    "ai": "assistant",
    "assistant": "assistant",
    "tool": "tool",
}


def _key(msg: Any) -> str:
    """What makes two LangChain messages the same message (ids are all null)."""
    if not isinstance(msg, Mapping):
        return json.dumps(msg, sort_keys=True, default=str)
    return json.dumps(
        [msg.get("type"), msg.get("content"), msg.get("tool_calls"), msg.get("tool_call_id")],
        sort_keys=True,
        default=str,
    )


class _Converter:
    def __init__(self, where: str) -> None:
        self.where = where
        self.warns: list[str] = []
        self.skipped: dict[str, int] = {}

    def content(self, content: Any, at: str) -> list[Block]:
        if content is None:
            return []
        if isinstance(content, str):
            return [TextBlock(content)] if content else []
        if not isinstance(content, list):
            return [TextBlock(str(content))]
        out: list[Block] = []
        for j, part in enumerate(content):
            if isinstance(part, str):
                out.append(TextBlock(part))
                continue
            if not isinstance(part, Mapping):
                continue
            kind = part.get("type")
            if kind == "text":
                out.append(TextBlock(str(part.get("text") or "")))
            elif kind == "image_url":
                url = image_url_of(part)
                if isinstance(url, str):
                    out.append(image_or_note(url, "screenshot", f"{at} part {j}", self.warns))
            elif kind == "tool_use":
                continue  # LangChain repeats tool calls in content; tool_calls is the source
            else:
                key = f"content part {kind!r}"
                self.skipped[key] = self.skipped.get(key, 0) + 1
        return out

    def message(self, msg: Any, mid: str, parent: str | None, at: str) -> Message | None:
        if not isinstance(msg, Mapping):
            self.skipped["non-object message"] = self.skipped.get("non-object message", 0) + 1
            return None
        kind = str(msg.get("type"))
        role = _ROLES.get(kind)
        if role is None:
            key = f"message type {kind!r}"
            self.skipped[key] = self.skipped.get(key, 0) + 1
            return None
        meta: dict[str, Any] = {}
        blocks: list[Block]
        if role == "tool":
            content = [
                b
                for b in self.content(msg.get("content"), at)
                if isinstance(b, TextBlock | ImageBlock)
            ]
            blocks = [
                ToolResult(
                    call_id=str(msg.get("tool_call_id") or f"{mid}-missing"),
                    content=tuple(content),
                    is_error=msg.get("status") == "error",
                )
            ]
        else:
            blocks = self.content(msg.get("content"), at)
            for j, call in enumerate(list_field(msg, "tool_calls")):
                if not isinstance(call, Mapping):
                    continue
                blocks.append(
                    ToolCall(
                        id=str(call.get("id") or f"{mid}-call{j}"),
                        name=str(call.get("name") or "unknown"),
                        input=parse_arguments(call.get("args"), f"{at} call {j}", self.warns),
                    )
                )
        return Message(mid, parent, role, tuple(blocks), meta)


def conversation_from_steps(data: Mapping[str, Any], path: Path) -> Conversation:
    steps = data.get("steps")
    if not isinstance(steps, Mapping):
        raise TranscriptError(f"{path}: no 'steps' object; not a browser-use trajectory")
    order = sorted(
        steps, key=lambda k: (not str(k).isdigit(), int(k) if str(k).isdigit() else 0, str(k))
    )
    conv = _Converter(str(path))
    messages: list[Message] = []
    transient_kept: set[str] = set()
    source_keys: dict[int, str] = {}  # index in messages -> key of the LangChain message
    repeated = 0
    prev: list[Any] = []
    prev_emitted: list[int | None] = []  # index in messages of each entry of prev (None: not kept)
    last_output: tuple[Any, list[Any]] | None = None

    def emit(msg: Any, at: str, step: str) -> int | None:
        parent = messages[-1].id if messages else None
        m = conv.message(msg, f"s{step}-{len(messages)}", parent, at)
        if m is None:
            return None
        messages.append(Message(m.id, m.parent, m.role, m.blocks, {**m.meta, "step": step}))
        source_keys[len(messages) - 1] = _key(msg)
        return len(messages) - 1

    for step in order:
        record = steps[step]
        if not isinstance(record, Mapping):
            conv.warns.append(f"{path}: step {step} is not an object; skipped")
            continue
        inputs = record.get("input_messages")
        contents = inputs.get("contents") if isinstance(inputs, Mapping) else None
        if isinstance(contents, list):
            p = 0
            while p < min(len(prev), len(contents)) and _key(prev[p]) == _key(contents[p]):
                p += 1
            # What the previous step had beyond the shared prefix was removed: transient.
            for idx in prev_emitted[p:]:
                if idx is not None:
                    m = messages[idx]
                    messages[idx] = Message(
                        m.id, m.parent, m.role, m.blocks, {**m.meta, "transient": True}
                    )
                    transient_kept.add(source_keys[idx])
            emitted: list[int | None] = list(prev_emitted[:p])
            for i, msg in enumerate(contents[p:], start=p):
                at = f"{path}: step {step} input {i}"
                if _key(msg) in transient_kept:
                    repeated += 1
                    emitted.append(None)
                    continue
                emitted.append(emit(msg, at, str(step)))
            prev, prev_emitted = contents, emitted
        out = record.get("output_messages")
        if isinstance(out, Mapping):
            results = []
            ctrl = record.get("controller_messages")
            if isinstance(ctrl, Mapping) and isinstance(ctrl.get("action_result"), list):
                results = ctrl["action_result"]
            last_output = (out, results)
        else:
            last_output = None
    # Mark the last step's transient tail, then append the output no later input repeats.
    if last_output is not None:
        out, results = last_output
        for idx in prev_emitted:
            if idx is not None and _is_state(messages[idx]):
                m = messages[idx]
                messages[idx] = Message(
                    m.id, m.parent, m.role, m.blocks, {**m.meta, "transient": True}
                )
        step = str(order[-1])
        for name in ("tool_call_message", "tool_response"):
            if name in out:
                emit(out[name], f"{path}: step {step} output {name}", step)
        for j, msg in enumerate(results):
            if isinstance(msg, Mapping):
                emit(msg, f"{path}: step {step} action result {j}", step)
    warns = conv.warns
    meta: dict[str, Any] = {
        "task_prompt": data.get("task_prompt"),
        "is_successful": data.get("is_successful"),
        "repeated_transient": repeated,
    }
    if conv.skipped:
        meta["skipped"] = dict(conv.skipped)
        warns.append(skipped_warning(str(path), "a LangChain message", conv.skipped))
    warns.extend(pairing_warnings(messages, str(path)))
    return Conversation(
        id=path.stem,
        messages=tuple(messages),
        tip=messages[-1].id if messages else None,
        format=NAME,
        source=str(path),
        meta=meta,
        warnings=tuple(warns),
    )


def _is_state(m: Message) -> bool:
    """The browser-state message (it carries the screenshot): transient in every step."""
    return m.role == "user" and bool(m.images())


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    if path.is_dir():
        raise TranscriptError(f"{path}: a folder; browser-use imports a trajectory JSON file")
    if options.select:
        raise TranscriptError(f"{path}: holds one conversation; drop --select")
    # browser-use's own history (a screenshot per step) is read one step at a time.
    doc = JSONDocument(path, "history")
    if doc.shape != "object":
        doc.close()
        raise TranscriptError(f"{path}: expected a JSON object with 'steps'")
    if doc.found and "steps" not in doc.fields:
        from snapshot.transcript.formats._agent_history import conversation_from_history

        return [conversation_from_history(doc.items(), path, NAME)]
    # A step log: an object keyed by step, put in order, so read whole. (Without a
    # history list the document has been read whole already.)
    doc.close()
    data = load_json(path) if doc.found else doc.fields
    return [conversation_from_steps(data, path)]


_STEP_KEYS = re.compile(r'"(input_messages|controller_messages|output_messages)"\s*:')


# browser-use's own AgentHistoryList: {"history": [{"model_output": ..., "result": ...}]}
_HISTORY_START = re.compile(
    r'^\{\s*"history"\s*:\s*\[\s*\{\s*"(model_output|result|state|metadata)"'
)


def score(path: Path, head: bytes) -> float:
    if path.is_dir():
        return 0.0
    text = head_text(head)
    if text.startswith("{") and '"steps"' in text and _STEP_KEYS.search(text) is not None:
        return 0.85
    if _HISTORY_START.match(text) and '"model_output"' in text:
        return 0.95
    return 0.0


FORMAT = Format(
    name=NAME,
    description="browser-use: AgentHistoryList (agent_history.json) or SCUBA's LangChain step log",
    load=load,
    score=score,
)
