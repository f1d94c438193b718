"""OpenAI chat-completions request bodies."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from snapshot.transcript.export.common import (
    DEFAULT_MODEL,
    THINKING_LEFT_OUT,
    Export,
    ExportImages,
    data_url,
    images_after_results,
    joined_text,
    nothing_to_export,
    result_text,
    tool_definitions,
)
from snapshot.transcript.export.plan import Window, plan_path
from snapshot.transcript.model import (
    Block,
    Conversation,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolCall,
)


def export_openai(conv: Conversation, *, model: str | None = None) -> Export:
    """An OpenAI chat-completions request body for the conversation's path.

    Tool results become ``role: tool`` messages right after the assistant
    message with ``tool_calls``; the chat API has no error flag, so an error
    result's text starts with ``[error]``. Tool messages take only text, so
    images a tool returned follow in a user message (noted).
    """
    plan = plan_path(conv)
    notes = plan.notes
    images = ExportImages(notes, conv)
    messages: list[dict[str, Any]] = []
    thinking = 0
    if plan.system:
        messages.append({"role": "system", "content": "\n\n".join(plan.system)})

    def user_content(blocks: Sequence[Block], where: str) -> str | list[dict[str, Any]]:
        if all(isinstance(b, TextBlock) for b in blocks):
            return joined_text(blocks)
        parts: list[dict[str, Any]] = []
        for b in blocks:
            if isinstance(b, TextBlock):
                parts.append({"type": "text", "text": b.text})
            elif isinstance(b, ImageBlock):
                p = images.payload(b, where)
                if p is None:
                    parts.append({"type": "text", "text": images.placeholder(b)})
                else:
                    parts.append({"type": "image_url", "image_url": {"url": data_url(p)}})
        return parts

    for turn in plan.turns:
        if isinstance(turn, Window):
            for r in turn.results:
                messages.append(
                    {"role": "tool", "tool_call_id": r.call_id, "content": result_text(r)}
                )
            returned = images_after_results(
                turn.results, "the tool messages (tool messages take only text)", notes
            )
            if returned:
                messages.append({"role": "user", "content": user_content(returned, "tool images")})
            for role, blocks in turn.items:
                if role == "system":
                    messages.append({"role": "system", "content": joined_text(blocks)})
                else:
                    messages.append(
                        {"role": "user", "content": user_content(blocks, "user message")}
                    )
        else:
            texts: list[str] = []
            calls: list[dict[str, Any]] = []
            for b in turn.blocks:
                if isinstance(b, TextBlock):
                    texts.append(b.text)
                elif isinstance(b, ThinkingBlock):
                    thinking += 1
                elif isinstance(b, ToolCall):
                    calls.append(
                        {
                            "id": b.id,
                            "type": "function",
                            "function": {
                                "name": b.name,
                                "arguments": json.dumps(dict(b.input), ensure_ascii=False),
                            },
                        }
                    )
                elif isinstance(b, ImageBlock):
                    texts.append(images.in_assistant(b, turn.ids[0]))
            if not texts and not calls:
                # A turn that held only thinking: chat has no field for it, and an
                # empty assistant message is refused; the same stand-in the
                # Anthropic and Gemini exporters write keeps the turn order.
                texts.append(THINKING_LEFT_OUT)
            msg: dict[str, Any] = {
                "role": "assistant",
                "content": "\n\n".join(texts) if texts else None,
            }
            if calls:
                msg["tool_calls"] = calls
            messages.append(msg)
    if thinking:
        notes.append(
            f"{thinking} thinking block(s) left out (chat completions has no field for them)"
        )
    if not any(m["role"] != "system" for m in messages):
        raise nothing_to_export(conv)
    body: dict[str, Any] = {"model": model or DEFAULT_MODEL["openai"], "messages": messages}
    if plan.tool_names:
        body["tools"] = [
            {"type": "function", "function": {"name": n, "description": d, "parameters": s}}
            for n, d, s in tool_definitions(conv, plan.tool_names)
        ]
    return Export(body, tuple(notes), tuple(plan.synthetic))


def to_openai(conv: Conversation, **kwargs: Any) -> dict[str, Any]:
    body: dict[str, Any] = export_openai(conv, **kwargs).body
    return body
