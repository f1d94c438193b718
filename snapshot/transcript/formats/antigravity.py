"""Google Antigravity step logs (a Cascade trajectory's steps) → the neutral model.

Antigravity's agent records a conversation as a list of *steps*, each
``{"type": "CORTEX_STEP_TYPE_<KIND>", "status", "metadata", <payload>}`` with
the payload under the kind's camel-case name. Two shapes are read:

- the trajectory JSON (``{"steps": [...]}``, ``{"trajectory": {"steps": [...]}}``
  or a bare list), as the language server's trajectory calls return it;
- a JSONL transcript of one step per line, with the ``CORTEX_STEP_TYPE_``
  prefix or without it (``"type": "USER_INPUT"``), flat ``content`` /
  ``thinking`` / ``tool_calls`` fields in place of the payload.

Kinds: ``USER_INPUT`` (``userInput.userResponse`` or its ``items`` text) →
user; ``PLANNER_RESPONSE`` (``thinking``; ``modifiedResponse`` or
``response``; ``toolCalls`` with ``argumentsJson``) → assistant; every tool
step (``RUN_COMMAND``, ``VIEW_FILE``, ``CODE_ACTION``, ``LIST_DIRECTORY``,
``GREP_SEARCH``, ``GENERIC``, …) → the result of its call: the one named by
``metadata.toolCall.id``, else the oldest call still open, else a call made
here from the step itself (older logs name no call). Bookkeeping steps
(checkpoints, the history the planner was given, ephemeral messages) are
counted and skipped; an ``ERROR_MESSAGE`` becomes a warning.

>>> score(Path("t.json"), b'{"steps":[{"type":"CORTEX_STEP_TYPE_USER_INPUT","userInput":{}}]}')
1.0
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._common import (
    Warnings,
    add_pairing_warnings,
    head_records,
    iter_json_objects,
    load_json,
    matches_select,
    parse_arguments,
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

NAME = "antigravity-steps"
PREFIX = "CORTEX_STEP_TYPE_"
# Steps that say nothing the model did or read (the planner's own history,
# checkpoints, UI messages): counted, skipped.
BOOKKEEPING = {
    "CHECKPOINT",
    "CONVERSATION_HISTORY",
    "EPHEMERAL_MESSAGE",
    "KNOWLEDGE_ARTIFACTS",
    "RETRIEVE_MEMORY",
    "MEMORY",
    "UNSPECIFIED",
}
# Payload fields holding a tool step's output, most complete first.
_OUTPUT_KEYS = (
    "combinedOutput",
    "renderedOutput",
    "output",
    "stdout",
    "content",
    "fileContent",
    "diff",
    "result",
    "results",
)


def step_kind(value: Any) -> str | None:
    """A step's kind without the prefix, upper case (None when not a kind name).

    >>> step_kind("CORTEX_STEP_TYPE_RUN_COMMAND"), step_kind("user_input"), step_kind(3)
    ('RUN_COMMAND', 'USER_INPUT', None)
    """
    if not isinstance(value, str) or not value.strip():
        return None
    name = value.strip().upper()
    name = name[len(PREFIX) :] if name.startswith(PREFIX) else name
    return name if name.replace("_", "").isalnum() else None


def _payload(step: Mapping[str, Any], kind: str) -> Mapping[str, Any]:
    parts = kind.lower().split("_")
    key = parts[0] + "".join(p.title() for p in parts[1:])
    value = step.get(key)
    return value if isinstance(value, Mapping) else {}


def _text_of(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        for key in ("full", "text", "content", "output"):
            if isinstance(value.get(key), str):
                return str(value[key])
    return json.dumps(value, ensure_ascii=False)


def _output(step: Mapping[str, Any], payload: Mapping[str, Any]) -> str:
    """The text a tool step gave the model: its output field, else the whole payload."""
    if isinstance(step.get("content"), str):  # the JSONL transcript's flat field
        return str(step["content"])
    for key in _OUTPUT_KEYS:
        if payload.get(key) not in (None, "", [], {}):
            return _text_of(payload[key])
    if isinstance(payload.get("stdout"), str) or isinstance(payload.get("stderr"), str):
        return "\n".join(str(payload.get(k) or "") for k in ("stdout", "stderr")).strip()
    return json.dumps(payload, ensure_ascii=False) if payload else ""


def is_step(rec: Mapping[str, Any]) -> bool:
    """A step: typed ``CORTEX_STEP_TYPE_*``, or a transcript step (a kind and a ``step_index``).

    >>> is_step({"type": "CORTEX_STEP_TYPE_CHECKPOINT"}), is_step({"type": "user"})
    (True, False)
    """
    kind = rec.get("type")
    if isinstance(kind, str) and kind.startswith(PREFIX):
        return True
    return "step_index" in rec and step_kind(kind) is not None


def _steps(path: Path, warnings: Warnings) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """Every step of the log with its position (1-based line or list index)."""
    if path.is_dir():
        raise TranscriptError(f"{path}: is a folder; give the step log file")
    with path.open("rb") as fh:
        first = fh.read(64).lstrip()
    if first.startswith(b"[") or (first.startswith(b"{") and _is_document(path)):
        doc = load_json(path)
        if isinstance(doc, Mapping):
            traj = doc.get("trajectory")
            doc = (traj if isinstance(traj, Mapping) else doc).get("steps")
        if not isinstance(doc, list):
            raise TranscriptError(f"{path}: no 'steps' list; not an Antigravity trajectory")
        for i, step in enumerate(doc):
            if isinstance(step, Mapping):
                yield i, step
        return
    yield from iter_json_objects(path, warnings, "step")


def _is_document(path: Path) -> bool:
    """One JSON document (the trajectory) rather than one step per line."""
    with path.open("rb") as fh:
        head = fh.read(4096)
    first = head.lstrip().split(b"\n", 1)[0].strip()
    if first in (b"{", b"[") or b'"steps"' in first or b'"trajectory"' in first:
        return True
    return b"\n" not in head.strip()


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    """Read one step log (one conversation)."""
    warnings = Warnings()
    skipped: Counter[str] = Counter()
    messages: list[Message] = []
    open_calls: list[str] = []
    made = 0  # tool steps no planner call named: their call is made here
    recognised = 0

    def add(role: Role, blocks: list[Block], meta: dict[str, Any]) -> None:
        parent = messages[-1].id if messages else None
        messages.append(Message(f"s{len(messages)}", parent, role, tuple(blocks), meta))

    for at, step in _steps(path, warnings):
        kind = step_kind(step.get("type"))
        if kind is None or not is_step(step):
            skipped["record that is not a step"] += 1
            continue
        recognised += 1
        payload = _payload(step, kind)
        meta: dict[str, Any] = {"step": kind}
        stamp = (
            (step.get("metadata") or {}).get("createdAt")
            if isinstance(step.get("metadata"), Mapping)
            else None
        )
        stamp = stamp or step.get("created_at")
        if stamp:
            meta["timestamp"] = stamp
        if kind == "USER_INPUT":
            text = payload.get("userResponse") or _text_of(step.get("content"))
            items = payload.get("items")
            if not text and isinstance(items, list):
                text = "".join(str(i.get("text") or "") for i in items if isinstance(i, Mapping))
            add("user", [TextBlock(str(text or ""))], meta)
        elif kind == "PLANNER_RESPONSE":
            blocks: list[Block] = []
            thinking = payload.get("thinking") or step.get("thinking")
            if isinstance(thinking, str) and thinking:
                blocks.append(ThinkingBlock(thinking))
            text = payload.get("modifiedResponse") or payload.get("response") or step.get("content")
            if isinstance(text, str) and text:
                blocks.append(TextBlock(text))
            calls = payload.get("toolCalls") or step.get("tool_calls") or []
            for j, raw in enumerate(calls if isinstance(calls, list) else []):
                call = raw.get("toolCall", raw) if isinstance(raw, Mapping) else {}
                if not isinstance(call, Mapping):
                    continue
                call_id = str(call.get("id") or f"step{at}-call{j}")
                name = str(call.get("name") or "tool")
                args_raw = call.get("argumentsJson", call.get("arguments", call.get("args")))
                args = parse_arguments(args_raw, f"{path}:{at}", [])
                blocks.append(ToolCall(call_id, name, args))
                open_calls.append(call_id)
            add("assistant", blocks, meta)
        elif kind == "ERROR_MESSAGE":
            raw_err = payload.get("error")
            err: Mapping[str, Any] = raw_err if isinstance(raw_err, Mapping) else {}
            detail = err.get("userErrorMessage") or err.get("shortError") or step.get("content")
            warnings.add(f"{path}:{at}: Antigravity reported an error: {detail or '?'}", "error")
        elif kind in BOOKKEEPING:
            skipped[kind] += 1
        else:
            tool_meta = (
                (step.get("metadata") or {}).get("toolCall")
                if isinstance(step.get("metadata"), Mapping)
                else None
            )
            named = tool_meta.get("id") if isinstance(tool_meta, Mapping) else None
            if isinstance(named, str) and named in open_calls:
                call_id = named
            elif open_calls:
                call_id = open_calls[0]
            else:
                call_id = f"step{at}"
                made += 1
                args = {k: v for k, v in payload.items() if k not in _OUTPUT_KEYS}
                add(
                    "assistant",
                    [ToolCall(call_id, kind.lower(), args)],
                    {**meta, "made_call": True},
                )
            if call_id in open_calls:
                open_calls.remove(call_id)
            failed = str(step.get("status") or "").endswith("ERROR")
            text = _output(step, payload)
            add("tool", [ToolResult(call_id, (TextBlock(text),) if text else (), failed)], meta)
    if not recognised:
        raise TranscriptError(
            f"{path}: no Antigravity steps found; force another format with --format"
        )
    if made:
        warnings.add(f"{path}: {made} tool steps named no planner call; each became its own call")
    warnings.extend_counts(
        f"{path}: skipped bookkeeping steps (the model's own history, checkpoints)", skipped
    )
    add_pairing_warnings(str(path), messages, warnings)
    conv_id = path.stem
    if not matches_select({"id": conv_id}, options.select):
        return []
    return [
        Conversation(
            id=conv_id,
            messages=tuple(messages),
            tip=messages[-1].id if messages else None,
            format=NAME,
            source=str(path),
            warnings=warnings.tuple(),
        )
    ]


def score(path: Path, head: bytes) -> float:
    """1.0 when the head holds steps typed ``CORTEX_STEP_TYPE_*``; 0.9 for a JSONL of bare
    ``USER_INPUT`` / ``PLANNER_RESPONSE`` steps with a ``step_index``; else 0.0."""
    if path.is_dir():
        return 0.0
    if b'"type":"CORTEX_STEP_TYPE_' in head.replace(b" ", b"") and b'"steps"' in head:
        return 1.0
    records = head_records(head)
    if records and all(str(r.get("type", "")).startswith(PREFIX) for r in records):
        return 1.0
    if records and all(is_step(r) for r in records):
        kinds = {step_kind(r.get("type")) for r in records}
        if kinds & {"USER_INPUT", "PLANNER_RESPONSE"}:
            return 0.9
    return 0.0


FORMAT = Format(
    name=NAME,
    description="Google Antigravity step log (Cascade trajectory steps: USER_INPUT, PLANNER_RESPONSE, tool steps)",
    score=score,
    load=load,
)
