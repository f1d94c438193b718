"""The plan every request body is written from: the path cut into assistant turns and the
windows answering them, with each repair the providers' rules need noted.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from snapshot.transcript.export.common import SYNTHETIC_RESULT, THOUGHT_SIGNATURES
from snapshot.transcript.model import (
    Block,
    Conversation,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResult,
)

# Ids and names every provider accepts: Anthropic's tool_use id charset, OpenAI's
# 40-character limit on tool_call ids, and the common 64-character function-name rule.
_ID_OK = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
_NAME_OK = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@dataclass
class Assistant:
    blocks: list[Block]
    ids: list[str]


@dataclass
class Window:
    """What the user/tool/system side says between two assistant turns.

    ``results``: one per tool call of the preceding assistant turn, in call
    order (synthetic where the log has none). ``items``: the rest, in order,
    as ``(role, blocks)`` with role ``user`` or ``system``.
    """

    results: list[ToolResult] = field(default_factory=list)
    items: list[tuple[Literal["user", "system"], list[Block]]] = field(default_factory=list)

    def empty(self) -> bool:
        return not self.results and not any(blocks for _, blocks in self.items)


@dataclass
class ExportPlan:
    system: list[str]
    turns: list[Assistant | Window]
    notes: list[str]
    tool_names: dict[str, None]  # exported names, first-use order
    call_names: dict[str, str]  # exported call id -> exported tool name
    # exported call id -> the Gemini thoughtSignature the source recorded for it
    signatures: dict[str, str] = field(default_factory=dict)
    synthetic: list[str] = field(default_factory=list)


def _nonempty(block: Block) -> bool:
    return not isinstance(block, TextBlock) or bool(block.text.strip())


class _Planner:
    def __init__(self, conv: Conversation) -> None:
        self.conv = conv
        self.notes: list[str] = []
        self.used_ids: set[str] = set()
        self.name_map: dict[str, str] = {}
        self.tool_names: dict[str, None] = {}
        self.call_names: dict[str, str] = {}
        self.signatures: dict[str, str] = {}
        self.synthetic: list[str] = []
        self.dropped_empty = 0

    def export_id(self, orig: str, where: str) -> str:
        new = orig
        if not _ID_OK.match(orig) or orig in self.used_ids:
            n = 0
            while True:
                digest = hashlib.sha1(f"{orig}|{n}".encode()).hexdigest()[:24]
                new = f"call_{digest}"
                if new not in self.used_ids:
                    break
                n += 1
            why = (
                "is used twice"
                if orig in self.used_ids
                else "has characters or a length providers reject"
            )
            self.notes.append(f"{where}: tool call id {orig!r} {why}; exported as {new}")
        self.used_ids.add(new)
        return new

    def export_name(self, name: str) -> str:
        if name in self.name_map:
            return self.name_map[name]
        new = name
        if not _NAME_OK.match(name):
            new = re.sub(r"[^A-Za-z0-9_-]", "_", name)[:64] or "tool"
            self.notes.append(
                f"tool name {name!r} is not a valid function name; exported as {new!r}"
            )
        self.name_map[name] = new
        self.tool_names[new] = None
        return new

    def plan(self) -> ExportPlan:
        path = self.conv.path()
        system: list[str] = []
        turns: list[Assistant | Window] = []
        window = Window()
        turns.append(window)
        # orig call id -> exported ids still waiting for a result (FIFO for duplicates)
        open_calls: dict[str, list[str]] = {}
        call_order: list[str] = []
        answered: dict[str, ToolResult] = {}
        last_assistant: Assistant | None = None
        reordered = False
        start = 0
        while start < len(path) and path[start].role == "system":
            for b in path[start].blocks:
                if isinstance(b, TextBlock) and b.text.strip():
                    system.append(b.text)
                elif _nonempty(b):
                    self.notes.append(
                        f"{path[start].id}: a {type(b).__name__} in a system message cannot be "
                        "exported there; left out"
                    )
            start += 1

        def close_window() -> None:
            nonlocal reordered
            if last_assistant is None:
                return
            for cid in call_order:
                result = answered.get(cid)
                if result is None:
                    name = self.call_names.get(cid, "?")
                    self.notes.append(
                        f"{last_assistant.ids[-1]}: tool call {cid} ({name}) has no result; "
                        "answered with a synthetic error result"
                    )
                    result = ToolResult(cid, (TextBlock(SYNTHETIC_RESULT),), is_error=True)
                    self.synthetic.append(cid)
                window.results.append(result)
            reordered = False

        for msg in path[start:]:
            if msg.role == "assistant":
                blocks = self.assistant_blocks(msg)
                if not blocks:
                    self.notes.append(f"{msg.id}: assistant message with no content left out")
                    continue
                if (
                    last_assistant is not None
                    and turns[-1] is window
                    and window.empty()
                    and not answered
                ):
                    # Nothing was said since the previous assistant turn: it is the same
                    # turn (a response logged in pieces); its calls stay open.
                    turns.pop()
                    target = last_assistant
                else:
                    close_window()
                    target = Assistant([], [])
                    turns.append(target)
                    open_calls, call_order, answered = {}, [], {}
                signed = msg.meta.get(THOUGHT_SIGNATURES)
                for b in blocks:
                    if isinstance(b, ToolCall):
                        new = self.export_id(b.id, msg.id)
                        name = self.export_name(b.name)
                        self.call_names[new] = name
                        if isinstance(signed, Mapping) and isinstance(signed.get(b.id), str):
                            self.signatures[new] = signed[b.id]
                        open_calls.setdefault(b.id, []).append(new)
                        call_order.append(new)
                        b = ToolCall(new, name, dict(b.input))
                    target.blocks.append(b)
                target.ids.append(msg.id)
                last_assistant = target
                window = Window()
                turns.append(window)
                continue
            role: Literal["user", "system"] = "system" if msg.role == "system" else "user"
            item: list[Block] = []
            for b in msg.blocks:
                if isinstance(b, ToolResult):
                    waiting = open_calls.get(b.call_id)
                    if waiting:
                        cid = waiting.pop(0)
                        answered[cid] = ToolResult(cid, b.content, b.is_error)
                        if (window.items or item) and not reordered:
                            reordered = True
                            self.notes.append(
                                f"{msg.id}: tool results moved before other content of the turn "
                                "(providers want results first)"
                            )
                        continue
                    self.notes.append(
                        f"{msg.id}: tool result for {b.call_id} has no call in the preceding "
                        "assistant turn; exported as text"
                    )
                    item.extend(_orphan_blocks(b))
                elif isinstance(b, ThinkingBlock):
                    self.notes.append(
                        f"{msg.id}: thinking in a {msg.role} message exported as text"
                    )
                    item.append(TextBlock(b.text))
                elif isinstance(b, ToolCall):
                    self.notes.append(
                        f"{msg.id}: tool call {b.id} in a {msg.role} message cannot be sent as a "
                        "call; exported as text"
                    )
                    item.append(TextBlock(f"[tool call {b.name}: {b.arguments_json()}]"))
                elif _nonempty(b):
                    item.append(b)
                else:
                    self.dropped_empty += 1
            if item:
                window.items.append((role, item))
        close_window()
        if self.dropped_empty:
            self.notes.append(f"{self.dropped_empty} empty text block(s) left out")
        return ExportPlan(
            system,
            turns,
            self.notes,
            self.tool_names,
            self.call_names,
            self.signatures,
            self.synthetic,
        )

    def assistant_blocks(self, msg: Message) -> list[Block]:
        out: list[Block] = []
        for b in msg.blocks:
            if isinstance(b, ToolResult):
                self.notes.append(
                    f"{msg.id}: tool result for {b.call_id} inside an assistant message; "
                    "exported as text"
                )
                out.extend(_orphan_blocks(b))
            elif _nonempty(b):
                out.append(b)
            else:
                self.dropped_empty += 1
        return out


def _orphan_blocks(result: ToolResult) -> list[Block]:
    label = "error result" if result.is_error else "result"
    out: list[Block] = [TextBlock(f"[tool {label} for call {result.call_id}]\n{result.text()}")]
    out.extend(result.images())
    return out


def plan_path(conv: Conversation) -> ExportPlan:
    from snapshot.transcript.rewind_notes import with_rewind_notes

    return _Planner(with_rewind_notes(conv)).plan()
