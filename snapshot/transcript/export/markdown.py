"""A readable Markdown transcript of a conversation's path."""

from __future__ import annotations

import json
from collections.abc import Mapping

from snapshot.transcript.export.common import (
    Export,
)
from snapshot.transcript.model import (
    Conversation,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResult,
)


def _fence(text: str, lang: str = "") -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{lang}\n{text}\n{ticks}"


def _image_line(img: ImageBlock) -> str:
    size = f"{img.width}×{img.height}" if img.width and img.height else "size unknown"
    if img.path:
        return f"![{img.origin or 'image'} ({size})]({img.path})"
    return f"*[image {img.origin or 'inline'}: {img.media_type}, {size}, {img.size} bytes]*"


def export_markdown(conv: Conversation) -> Export:
    """A readable Markdown transcript of the path: roles, text, calls, results, images."""
    from snapshot.transcript.rewind_notes import with_rewind_notes

    path = with_rewind_notes(conv).path()
    lines = [f"# {conv.id}" + (f" ({conv.agent})" if conv.agent != "main" else "")]
    if conv.format or conv.source:
        lines.append(
            f"*{conv.format or 'conversation'}*" + (f" from `{conv.source}`" if conv.source else "")
        )
    notes: list[str] = []
    seen_calls: set[str] = set()
    for msg in path:
        head = f"## {msg.role} · {msg.id}"
        kind = msg.meta.get("kind") if isinstance(msg.meta, Mapping) else None
        if kind:
            head += f" · {kind}"
        lines += ["", head]
        for b in msg.blocks:
            lines.append("")
            if isinstance(b, TextBlock):
                lines.append(b.text)
            elif isinstance(b, ThinkingBlock):
                quoted = "\n".join("> " + line for line in (b.text or "(redacted)").splitlines())
                lines.append(f"> **thinking**\n{quoted}")
            elif isinstance(b, ToolCall):
                seen_calls.add(b.id)
                args = json.dumps(dict(b.input), ensure_ascii=False, indent=2)
                lines.append(f"**tool call** `{b.name}` · `{b.id}`")
                lines.append(_fence(args, "json"))
            elif isinstance(b, ToolResult):
                flag = " (error)" if b.is_error else ""
                orphan = "" if b.call_id in seen_calls else " — no matching call"
                if orphan:
                    notes.append(f"{msg.id}: result for {b.call_id} has no call on the path")
                lines.append(f"**tool result**{flag} for `{b.call_id}`{orphan}")
                lines.append(_fence(b.text()))
                lines.extend(_image_line(img) for img in b.images())
            elif isinstance(b, ImageBlock):
                lines.append(_image_line(b))
    return Export("\n".join(lines) + "\n", tuple(notes))


def to_markdown(conv: Conversation) -> str:
    text: str = export_markdown(conv).body
    return text
