"""Anthropic Messages content blocks (and their base64 images) → model blocks.

Shared by Claude Code session files and Agent SDK logs, which carry the same API messages.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Mapping
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript.formats._common import (
    ImageTooLarge,
    Warnings,
    image_header,
)
from snapshot.transcript.model import (
    Block,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResult,
)

# --- images in Anthropic content blocks -------------------------------------------


def decode_image(
    b64: Any, declared: str | None, origin: str, where: str, warnings: Warnings
) -> ImageBlock | TextBlock:
    """A base64 image → ImageBlock; anything that is not an image → a visible placeholder.

    The placeholder keeps the spot in the transcript (a reader sees an image
    was there) and the warning says why it was dropped.
    """
    if not isinstance(b64, str):
        warnings.add(f"{where}: image without base64 data; replaced by a placeholder", "image")
        return TextBlock("[image omitted: no data]")
    try:
        data = base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError):
        try:
            # Some writers wrap lines or drop padding; be lenient before giving up.
            data = base64.b64decode(re.sub(r"\s+", "", b64) + "==", validate=False)
        except (binascii.Error, ValueError):
            warnings.add(f"{where}: image data is not valid base64; dropped", "image")
            return TextBlock("[image omitted: data is not valid base64]")
    try:
        media, width, height = image_header(data)  # the one header reader (images.py)
    except ImageTooLarge as exc:
        warnings.add(f"{where}: {exc}; dropped", "image")
        return TextBlock(f"[image omitted: {exc}]")
    except TranscriptError:
        warnings.add(
            f"{where}: image data ({len(data)} bytes, declared {declared or 'no type'}) "
            "is not a PNG, JPEG, GIF or WebP image; dropped",
            "image",
        )
        return TextBlock(f"[image omitted: {len(data)} bytes that are not an image]")
    if declared and declared != media:
        warnings.add(f"{where}: image declared {declared} but is {media}; using {media}", "image")
    return ImageBlock(media_type=media, data=data, width=width, height=height, origin=origin)


# --- Anthropic content blocks → model blocks -------------------------------------


def _tool_result_content(
    content: Any, where: str, warnings: Warnings
) -> tuple[TextBlock | ImageBlock, ...]:
    if content is None:
        return ()
    if isinstance(content, str):
        return (TextBlock(content),)
    if not isinstance(content, list):
        return (TextBlock(json.dumps(content, ensure_ascii=False)),)
    out: list[TextBlock | ImageBlock] = []
    for item in content:
        if not isinstance(item, dict):
            out.append(TextBlock(str(item)))
            continue
        kind = item.get("type")
        if kind == "text":
            out.append(TextBlock(str(item.get("text", ""))))
        elif kind == "image":
            out.append(_image_block(item, "tool_result", where, warnings))
        elif kind == "tool_reference":
            # Tool-search results name a tool the model may now call.
            out.append(TextBlock(str(item.get("tool_name", ""))))
        else:
            warnings.add(f"{where}: tool result part {kind!r} kept as JSON text", "part")
            out.append(TextBlock(json.dumps(item, ensure_ascii=False)))
    return tuple(out)


def _image_block(
    item: Mapping[str, Any], origin: str, where: str, warnings: Warnings
) -> ImageBlock | TextBlock:
    source = item.get("source")
    if not isinstance(source, dict):
        warnings.add(f"{where}: image block without a source; replaced by a placeholder", "image")
        return TextBlock("[image omitted: no source]")
    if source.get("type") == "base64":
        return decode_image(source.get("data"), source.get("media_type"), origin, where, warnings)
    if source.get("type") == "url":
        # Not a file and never fetched (no network): the placeholder keeps the URL.
        warnings.add(f"{where}: image given by URL is not fetched; kept as a placeholder", "image")
        return TextBlock(f"[image at {source.get('url')}]")
    warnings.add(
        f"{where}: image source {source.get('type')!r} not supported; placeholder", "image"
    )
    return TextBlock(f"[image omitted: {source.get('type')} source]")


def content_blocks(content: Any, where: str, warnings: Warnings) -> list[Block]:
    """Anthropic Messages content (a string or a list of blocks) → model blocks."""
    if content is None:
        return []
    if isinstance(content, str):
        return [TextBlock(content)]
    if not isinstance(content, list):
        warnings.add(f"{where}: message content of type {type(content).__name__}; kept as text")
        return [TextBlock(json.dumps(content, ensure_ascii=False))]
    out: list[Block] = []
    for item in content:
        if isinstance(item, str):
            out.append(TextBlock(item))
            continue
        if not isinstance(item, dict):
            warnings.add(f"{where}: content item {item!r:.40} is not an object; skipped", "item")
            continue
        kind = item.get("type")
        if kind == "text":
            out.append(TextBlock(str(item.get("text", ""))))
        elif kind == "thinking":
            out.append(ThinkingBlock(str(item.get("thinking", "")), item.get("signature")))
        elif kind == "redacted_thinking":
            out.append(ThinkingBlock("", item.get("data")))
        elif kind in ("tool_use", "server_tool_use"):
            raw_input = item.get("input")
            tool_input = raw_input if isinstance(raw_input, dict) else {"input": raw_input}
            out.append(ToolCall(str(item.get("id", "")), str(item.get("name", "")), tool_input))
        elif kind == "tool_result" or (isinstance(kind, str) and kind.endswith("_tool_result")):
            call_id = str(item.get("tool_use_id", ""))
            parts = _tool_result_content(item.get("content"), where, warnings)
            out.append(ToolResult(call_id, parts, bool(item.get("is_error", False))))
        elif kind == "image":
            out.append(_image_block(item, "inline", where, warnings))
        else:
            # Never drop content silently: keep it readable and say so.
            warnings.add(f"{where}: content block {kind!r} kept as JSON text", "block")
            out.append(TextBlock(json.dumps(item, ensure_ascii=False)))
    return out
