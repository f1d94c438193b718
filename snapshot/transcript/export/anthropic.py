"""Anthropic Messages API request bodies."""

from __future__ import annotations

from typing import Any

from snapshot.transcript.export.common import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_MODEL,
    THINKING_LEFT_OUT,
    Export,
    ExportImages,
    add_turn,
    nothing_to_export,
    tool_definitions,
)
from snapshot.transcript.export.plan import Window, plan_path
from snapshot.transcript.model import Conversation, ImageBlock, TextBlock, ThinkingBlock, ToolCall


def export_anthropic(
    conv: Conversation, *, model: str | None = None, max_tokens: int = DEFAULT_MAX_TOKENS
) -> Export:
    """An Anthropic Messages API request body for the conversation's path."""
    plan = plan_path(conv)
    notes = plan.notes
    images = ExportImages(notes, conv)
    messages: list[dict[str, Any]] = []
    unsigned = 0

    def image_block(img: ImageBlock, where: str) -> dict[str, Any]:
        p = images.payload(img, where)
        if p is None:
            return {"type": "text", "text": images.placeholder(img)}
        return {"type": "image", "source": {"type": "base64", "media_type": p[0], "data": p[1]}}

    system_items = 0
    for turn in plan.turns:
        if isinstance(turn, Window):
            content: list[dict[str, Any]] = []
            for r in turn.results:
                block: dict[str, Any] = {"type": "tool_result", "tool_use_id": r.call_id}
                parts: list[dict[str, Any]] = []
                for c in r.content:
                    if isinstance(c, TextBlock):
                        if c.text.strip():
                            parts.append({"type": "text", "text": c.text})
                    else:
                        parts.append(image_block(c, f"result {r.call_id}"))
                if parts:
                    block["content"] = parts
                if r.is_error:
                    block["is_error"] = True
                content.append(block)
            for role, blocks in turn.items:
                prefix = ""
                if role == "system":
                    system_items += 1
                    prefix = "[system] "
                for b in blocks:
                    if isinstance(b, TextBlock):
                        content.append({"type": "text", "text": prefix + b.text})
                    elif isinstance(b, ImageBlock):
                        content.append(image_block(b, "user message"))
            add_turn(messages, "user", "content", content)
        else:
            content = []
            for b in turn.blocks:
                if isinstance(b, ThinkingBlock):
                    if b.signature and not b.text:
                        content.append({"type": "redacted_thinking", "data": b.signature})
                    elif b.signature:
                        content.append(
                            {"type": "thinking", "thinking": b.text, "signature": b.signature}
                        )
                    else:
                        unsigned += 1
                elif isinstance(b, TextBlock):
                    content.append({"type": "text", "text": b.text})
                elif isinstance(b, ToolCall):
                    content.append(
                        {"type": "tool_use", "id": b.id, "name": b.name, "input": dict(b.input)}
                    )
                elif isinstance(b, ImageBlock):
                    content.append({"type": "text", "text": images.in_assistant(b, turn.ids[0])})
            if not content:
                content = [{"type": "text", "text": THINKING_LEFT_OUT}]
            add_turn(messages, "assistant", "content", content)
    if unsigned:
        notes.append(
            f"{unsigned} thinking block(s) without a signature left out "
            "(Anthropic accepts only its own signed thinking)"
        )
    if system_items:
        notes.append(f"{system_items} system message(s) after the start sent as user text")
    if not messages:
        raise nothing_to_export(conv)
    if messages[0]["role"] != "user":
        notes.append("the path starts with an assistant turn; a placeholder user turn was added")
        messages.insert(0, {"role": "user", "content": [{"type": "text", "text": "(continued)"}]})
    last = messages[-1]
    if last["role"] == "assistant" and last["content"][-1].get("type") == "text":
        # The API rejects a final assistant turn that ends in whitespace.
        last["content"][-1]["text"] = last["content"][-1]["text"].rstrip() or "(empty)"
    body: dict[str, Any] = {
        "model": model or DEFAULT_MODEL["anthropic"],
        "max_tokens": max_tokens,
    }
    if plan.system:
        body["system"] = [{"type": "text", "text": t} for t in plan.system]
    body["messages"] = messages
    if plan.tool_names:
        body["tools"] = [
            {"name": n, "description": d, "input_schema": s}
            for n, d, s in tool_definitions(conv, plan.tool_names)
        ]
    return Export(body, tuple(notes), tuple(plan.synthetic))


def to_anthropic(conv: Conversation, **kwargs: Any) -> dict[str, Any]:
    body: dict[str, Any] = export_anthropic(conv, **kwargs).body
    return body
