"""Rung 2, image dropping: old images become a placeholder with their size and origin. Free."""

from __future__ import annotations

from snapshot.ladder.record import RungRecord, StrategyResult, linear_copy, recent_start
from snapshot.ladder.serialize import describe_image
from snapshot.transcript.model import (
    Block,
    Conversation,
    ImageBlock,
    Message,
    TextBlock,
    ToolResult,
)


def image_placeholder(image: ImageBlock, ref: str = "", conv_id: str = "CONV") -> TextBlock:
    """The text standing for a dropped image: what it was, and how to get it back
    (``snapshot show`` with the conversation's own id and the block's reference)."""
    kb = image.size / 1024
    back = f"; ref {ref}: `snapshot show {conv_id} {ref} > FILE` writes it" if ref else ""
    return TextBlock(f"[image dropped: {describe_image(image)[1:-1]}, {kb:,.0f} KB{back}]")


def _drop(block: Block, ref: str, notes: list[str], conv_id: str) -> Block:
    if isinstance(block, ImageBlock):
        notes.append(describe_image(block))
        return image_placeholder(block, ref, conv_id)
    if isinstance(block, ToolResult) and block.images():
        content = tuple(
            image_placeholder(b, f"{ref}.{k}", conv_id) if isinstance(b, ImageBlock) else b
            for k, b in enumerate(block.content)
        )
        notes.extend(describe_image(b) for b in block.images())
        return ToolResult(block.call_id, content, block.is_error)
    return block


def drop_images(conv: Conversation, *, keep_turns: int = 1) -> StrategyResult:
    """Replace images older than the last ``keep_turns`` turns with placeholders.

    Snapshot pages are never dropped: they hold the imaged history, and a later
    snapshot pass redraws them from their source text.

    >>> from snapshot.transcript.model import linear, ImageBlock, TextBlock
    >>> conv = linear("c", [
    ...     ("u1", "user", [ImageBlock("image/png", b"\\x89PNG...", width=4, height=3)]),
    ...     ("a1", "assistant", [TextBlock("ok")]),
    ... ])
    >>> drop_images(conv, keep_turns=0).conversation.path()[0].blocks[0].text
    '[image dropped: image image/png 4x3, 0 KB; ref u1#0: `snapshot show c u1#0 > FILE` writes it]'
    """
    path = conv.path()
    keep_from = recent_start(path, keep_turns)
    out: list[Message] = []
    notes: list[str] = []
    for i, m in enumerate(path):
        if i >= keep_from or not m.images() or m.meta.get("kind") == "snapshot":
            # Snapshot pages are the history itself: a later pass redraws them, never drops them.
            out.append(m)
            continue
        blocks = tuple(_drop(b, f"{m.id}#{j}", notes, conv.id) for j, b in enumerate(m.blocks))
        out.append(Message(id=m.id, parent=m.parent, role=m.role, blocks=blocks, meta=m.meta))
    record = RungRecord("drop_images", changed=len(notes), notes=tuple(notes))
    return StrategyResult(linear_copy(conv, out), record)
