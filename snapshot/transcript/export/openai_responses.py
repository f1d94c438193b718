"""OpenAI Responses API request bodies (``input`` items)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from snapshot.transcript.export.common import (
    DEFAULT_MODEL,
    Export,
    ExportImages,
    data_url,
    images_after_results,
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


def export_openai_responses(conv: Conversation, *, model: str | None = None) -> Export:
    """An OpenAI Responses API request body (``input`` items) for the conversation's path."""
    plan = plan_path(conv)
    notes = plan.notes
    images = ExportImages(notes, conv)
    items: list[dict[str, Any]] = []
    thinking = 0
    # A Codex compaction item stands in the path as a text naming it; this API
    # reads the item itself, so it goes back as it was recorded.
    compactions = _compaction_items(conv)

    def content(blocks: Sequence[Block], where: str) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        for b in blocks:
            if isinstance(b, TextBlock):
                parts.append({"type": "input_text", "text": b.text})
            elif isinstance(b, ImageBlock):
                p = images.payload(b, where)
                if p is None:
                    parts.append({"type": "input_text", "text": images.placeholder(b)})
                else:
                    parts.append(
                        {"type": "input_image", "image_url": data_url(p), "detail": "auto"}
                    )
        return parts

    for turn in plan.turns:
        if isinstance(turn, Window):
            for r in turn.results:
                items.append(
                    {
                        "type": "function_call_output",
                        "call_id": r.call_id,
                        "output": result_text(r),
                    }
                )
            returned = images_after_results(turn.results, "the function outputs", notes)
            if returned:
                items.append(
                    {"type": "message", "role": "user", "content": content(returned, "tool images")}
                )
            for role, blocks in turn.items:
                parts = content(blocks, "user message")
                only = str(parts[0].get("text")) if len(parts) == 1 else None
                if role == "user" and only in compactions:
                    items.append(compactions[str(only)])
                    continue
                items.append({"type": "message", "role": role, "content": parts})
        else:
            # The turn's text first, then its calls: nothing may come between a
            # call and its output, and the outputs follow the turn.
            texts: list[str] = []
            calls: list[dict[str, Any]] = []
            for b in turn.blocks:
                if isinstance(b, TextBlock):
                    texts.append(b.text)
                elif isinstance(b, ImageBlock):
                    texts.append(images.in_assistant(b, turn.ids[0]))
                elif isinstance(b, ThinkingBlock):
                    thinking += 1
                elif isinstance(b, ToolCall):
                    calls.append(
                        {
                            "type": "function_call",
                            "call_id": b.id,
                            "name": b.name,
                            "arguments": json.dumps(dict(b.input), ensure_ascii=False),
                        }
                    )
            if texts:
                items.append(_responses_assistant("\n\n".join(texts)))
            items.extend(calls)
    if thinking:
        notes.append(f"{thinking} thinking block(s) left out (reasoning items need provider ids)")
    if not items:
        raise nothing_to_export(conv)
    body: dict[str, Any] = {"model": model or DEFAULT_MODEL["openai-responses"]}
    if plan.system:
        body["instructions"] = "\n\n".join(plan.system)
    body["input"] = items
    if plan.tool_names:
        body["tools"] = [
            # strict is required; True would demand a closed schema the history's
            # recovered definitions do not have.
            {"type": "function", "name": n, "description": d, "parameters": s, "strict": False}
            for n, d, s in tool_definitions(conv, plan.tool_names)
        ]
    return Export(body, tuple(notes), tuple(plan.synthetic))


def _compaction_items(conv: Conversation) -> dict[str, dict[str, Any]]:
    """The encrypted compaction items on the path, by the text standing in for each."""
    out: dict[str, dict[str, Any]] = {}
    for m in conv.iter_path():
        item = m.meta.get("encrypted_compaction")
        if isinstance(item, dict) and item.get("encrypted_content"):
            kept = {"type": "compaction", "encrypted_content": str(item["encrypted_content"])}
            out[m.text()] = kept
    return out


def _responses_assistant(text: str) -> dict[str, Any]:
    # An input item, not an output message (that one needs the id, status and
    # annotations only the API itself assigns).
    return {"type": "message", "role": "assistant", "content": text}


def to_openai_responses(conv: Conversation, **kwargs: Any) -> dict[str, Any]:
    body: dict[str, Any] = export_openai_responses(conv, **kwargs).body
    return body
