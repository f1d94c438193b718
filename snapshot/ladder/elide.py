"""Rung 1, elision: old, uneventful tool results become a one-line placeholder.

A result is uneventful when it succeeded, is not among the last turns, and is
not referenced later (none of its distinctive tokens — paths, ids, hashes,
numbers — shows up in a later assistant message or tool call). Errors and
recent results stay. Free: no model call.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from snapshot.ladder.record import RungRecord, StrategyResult, linear_copy, recent_start
from snapshot.transcript.model import (
    Conversation,
    Message,
    TextBlock,
    ToolResult,
    block_chars,
)

# Tokens that identify something specific: paths, file names, ids, hashes, numbers.
_DISTINCTIVE = re.compile(r"[\w./-]*[\d/_.][\w./-]*")
_MIN_TOKEN = 6


def distinctive_tokens(text: str) -> set[str]:
    return {
        t.strip("./-")
        for t in _DISTINCTIVE.findall(text)
        if len(t.strip("./-")) >= _MIN_TOKEN and any(c.isalpha() for c in t)
    }


def _later_text(message: Message) -> Iterable[str]:
    if message.role == "assistant":
        yield message.text()
        for call in message.tool_calls():
            yield call.arguments_json()
    elif message.role == "user" and not message.tool_results():
        yield message.text()


def placeholder(tool: str, result: ToolResult) -> TextBlock:
    text = result.text()
    return TextBlock(
        f"[elided: uneventful {tool} result, {len(text):,} chars, "
        f"{text.count(chr(10)) + 1 if text else 0} lines]"
    )


def elide(conv: Conversation, *, keep_turns: int = 3, min_chars: int = 200) -> StrategyResult:
    """Replace old, uneventful tool results on the conversation's path.

    >>> from snapshot.transcript.model import linear, TextBlock, ToolCall, ToolResult
    >>> conv = linear("c", [
    ...     ("u1", "user", [TextBlock("list files")]),
    ...     ("a1", "assistant", [ToolCall("t1", "bash", {"cmd": "ls"})]),
    ...     ("r1", "tool", [ToolResult("t1", (TextBlock("x" * 500),))]),
    ...     ("a2", "assistant", [TextBlock("done")]),
    ... ])
    >>> out = elide(conv, keep_turns=0)
    >>> out.conversation.path()[2].blocks[0].content[0].text
    '[elided: uneventful bash result, 500 chars, 1 lines]'
    """
    path = conv.path()
    keep_from = recent_start(path, keep_turns)
    tool_names = {c.id: c.name for m in path for c in m.tool_calls()}

    # Walk backwards so "referenced later" is one set lookup, not a rescan.
    later_tokens: set[str] = set()
    referenced: set[tuple[int, int]] = set()
    for i in range(len(path) - 1, -1, -1):
        m = path[i]
        for j, block in enumerate(m.blocks):
            if isinstance(block, ToolResult) and distinctive_tokens(block.text()) & later_tokens:
                referenced.add((i, j))
        for text in _later_text(m):
            later_tokens |= distinctive_tokens(text)

    out: list[Message] = []
    changed = removed = 0
    notes: list[str] = []
    for i, m in enumerate(path):
        if i >= keep_from or m.role not in ("tool", "user"):
            out.append(m)
            continue
        blocks = list(m.blocks)
        touched = False
        for j, block in enumerate(blocks):
            if (
                not isinstance(block, ToolResult)
                or block.is_error
                or (i, j) in referenced
                or block.images()
                or block_chars(block) < min_chars
            ):
                continue
            tool = tool_names.get(block.call_id, "tool")
            new = ToolResult(block.call_id, (placeholder(tool, block),), is_error=False)
            removed += block_chars(block) - block_chars(new)
            blocks[j] = new
            changed += 1
            touched = True
            notes.append(f"{tool} result #{block.call_id[-8:]}: {block_chars(block):,} chars")
        out.append(
            Message(id=m.id, parent=m.parent, role=m.role, blocks=tuple(blocks), meta=m.meta)
            if touched
            else m
        )
    record = RungRecord("elide", changed=changed, chars_removed=removed, notes=tuple(notes))
    return StrategyResult(linear_copy(conv, out), record)
