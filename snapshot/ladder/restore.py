"""What compaction cut, brought back: a placeholder's reference → the original bytes.

Every elided result and dropped image names a reference ``MESSAGE#BLOCK`` (or
``MESSAGE#BLOCK.ITEM`` for an image inside a tool result). The message is looked
up among all the conversation's messages, not only its path: after
``compact --save`` the originals sit one branch away from the compacted tip.

>>> from snapshot.transcript.model import linear, TextBlock, ToolCall, ToolResult
>>> conv = linear("c", [("u", "user", [TextBlock("go")]),
...                     ("a", "assistant", [ToolCall("t1", "bash", {"cmd": "ls"})]),
...                     ("r", "tool", [ToolResult("t1", (TextBlock("a.py b.py"),))])])
>>> original(conv, "r#0")
b'a.py b.py'
"""

from __future__ import annotations

from snapshot.errors import InputError
from snapshot.transcript.images import image_roots, read_image
from snapshot.transcript.model import Conversation, ImageBlock, TextBlock, ToolResult


def parse_reference(ref: str) -> tuple[str, int, int | None]:
    """``MESSAGE#BLOCK[.ITEM]`` → (message id, block index, item index or None).

    >>> parse_reference("r1#0"), parse_reference("m#2.1")
    (('r1', 0, None), ('m', 2, 1))
    """
    message, hash_, where = ref.rpartition("#")
    block, dot, item = where.partition(".")
    if not hash_ or not message or not block.isdigit() or (dot and not item.isdigit()):
        raise InputError(
            f"reference {ref!r}: expected MESSAGE#BLOCK or MESSAGE#BLOCK.ITEM, as a "
            "placeholder prints it"
        )
    return message, int(block), int(item) if dot else None


def original(conv: Conversation, ref: str) -> bytes:
    """The original bytes a reference names: a result's text (UTF-8) or an image's bytes.

    Raises :class:`~snapshot.errors.InputError` (a reference that does not parse or
    names nothing) or :class:`~snapshot.errors.TranscriptError` (no such message).
    """
    message_id, index, item = parse_reference(ref)
    message = conv.get(message_id)
    if index >= len(message.blocks):
        raise InputError(
            f"reference {ref!r}: message {message_id!r} has {len(message.blocks)} blocks"
        )
    block = message.blocks[index]
    if isinstance(block, ToolResult) and item is not None:
        if item >= len(block.content):
            raise InputError(f"reference {ref!r}: the result has {len(block.content)} parts")
        block = block.content[item]
    if isinstance(block, ImageBlock):
        return read_image(block, image_roots(conv))
    if isinstance(block, ToolResult):
        return block.text().encode("utf-8")
    if isinstance(block, TextBlock):
        return block.text.encode("utf-8")
    raise InputError(f"reference {ref!r} names a {type(block).__name__}, not a result or image")
