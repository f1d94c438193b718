"""Messages → the plain text a snapshot draws on its pages.

Each message becomes a role line (``[user]``, ``[assistant]``, ``[tool call
bash #id]``, ``[tool result #id]``, ...) followed by its text. The same
messages always give the same text, so redrawn pages stay byte-identical and a
provider's prompt cache keeps hitting.

>>> from snapshot.transcript.model import Message, TextBlock
>>> print(serialize([Message("m1", None, "user", (TextBlock("fix the bug"),))]))
[user #m1]
fix the bug
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from snapshot.transcript.model import (
    Block,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResult,
)

# The role markers a reading guide explains to the reader.
ROLE_MARKERS = {
    "system": "[system #ID]",
    "user": "[user #ID]",
    "assistant": "[assistant #ID]",
    "tool": "[tool #ID]",
    "thinking": "[thinking]",
    "tool_call": "[tool call NAME #CALL]",
    "tool_result": "[tool result #CALL]",
    "tool_error": "[tool error #CALL]",
    "image": "[image TYPE WxH ORIGIN]",
}


def describe_image(image: ImageBlock) -> str:
    size = f"{image.width}x{image.height}" if image.width and image.height else "size unknown"
    origin = f" {image.origin}" if image.origin else ""
    return f"[image {image.media_type} {size}{origin}]"


def serialize_block(block: Block) -> str:
    if isinstance(block, TextBlock):
        return block.text
    if isinstance(block, ThinkingBlock):
        return f"[thinking]\n{block.text}"
    if isinstance(block, ToolCall):
        args = json.dumps(block.input, ensure_ascii=False, sort_keys=True)
        return f"[tool call {block.name} #{short_id(block.id)}]\n{args}"
    if isinstance(block, ToolResult):
        head = "tool error" if block.is_error else "tool result"
        parts = [f"[{head} #{short_id(block.call_id)}]"]
        for b in block.content:
            parts.append(b.text if isinstance(b, TextBlock) else describe_image(b))
        return "\n".join(parts)
    return describe_image(block)


def short_id(identifier: str) -> str:
    """Tool-call ids are long and random; the last 8 characters are enough to pair."""
    return identifier[-8:]


def serialize_message(message: Message) -> str:
    lines = [f"[{message.role} #{short_id(message.id)}]"]
    lines.extend(serialize_block(b) for b in message.blocks)
    return "\n".join(lines)


def serialize(messages: Iterable[Message]) -> str:
    return "\n".join(serialize_message(m) for m in messages)
