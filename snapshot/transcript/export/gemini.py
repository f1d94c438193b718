"""Gemini ``generateContent`` request bodies."""

from __future__ import annotations

from typing import Any

from snapshot.transcript.export.common import (
    THINKING_LEFT_OUT,
    Export,
    ExportImages,
    add_turn,
    nothing_to_export,
    tool_definitions,
)
from snapshot.transcript.export.plan import Window, plan_path
from snapshot.transcript.model import Conversation, ImageBlock, TextBlock, ThinkingBlock, ToolCall
from snapshot.transcript.validate.rules import GEMINI_SIGNATURE_SENTINEL


def export_gemini(conv: Conversation) -> Export:
    """A Gemini ``generateContent`` request body for the conversation's path.

    Function declarations carry no parameter schema: Gemini takes only an
    OpenAPI subset, and the history's calls do not need one to be sent.
    """
    plan = plan_path(conv)
    notes = plan.notes
    images = ExportImages(notes, conv)
    contents: list[dict[str, Any]] = []
    thinking = 0
    sentinels = 0

    def inline(img: ImageBlock, where: str) -> dict[str, Any]:
        p = images.payload(img, where)
        if p is None:
            return {"text": images.placeholder(img)}
        return {"inlineData": {"mimeType": p[0], "data": p[1]}}

    for turn in plan.turns:
        if isinstance(turn, Window):
            parts: list[dict[str, Any]] = []
            extra: list[dict[str, Any]] = []
            for r in turn.results:
                key = "error" if r.is_error else "output"
                parts.append(
                    {
                        "functionResponse": {
                            "id": r.call_id,
                            "name": plan.call_names.get(r.call_id, "tool"),
                            "response": {key: r.text()},
                        }
                    }
                )
                extra.extend(inline(img, f"result {r.call_id}") for img in r.images())
            parts.extend(extra)
            for role, blocks in turn.items:
                prefix = "[system] " if role == "system" else ""
                for b in blocks:
                    if isinstance(b, TextBlock):
                        parts.append({"text": prefix + b.text})
                    elif isinstance(b, ImageBlock):
                        parts.append(inline(b, "user message"))
            add_turn(contents, "user", "parts", parts)
        else:
            parts = []
            first_call = True
            for b in turn.blocks:
                if isinstance(b, TextBlock):
                    parts.append({"text": b.text})
                elif isinstance(b, ThinkingBlock):
                    thinking += 1
                elif isinstance(b, ToolCall):
                    part: dict[str, Any] = {
                        "functionCall": {"id": b.id, "name": b.name, "args": dict(b.input)}
                    }
                    signature = plan.signatures.get(b.id)
                    if signature is None and first_call:
                        # Gemini 3 refuses an unsigned call in the current turn; a call
                        # it did not make gets the sentinel Google documents for that.
                        signature = GEMINI_SIGNATURE_SENTINEL
                        sentinels += 1
                    if signature is not None:
                        part["thoughtSignature"] = signature
                    first_call = False
                    parts.append(part)
                elif isinstance(b, ImageBlock):
                    parts.append(inline(b, turn.ids[0]))
            add_turn(contents, "model", "parts", parts or [{"text": THINKING_LEFT_OUT}])
    if thinking:
        notes.append(
            f"{thinking} thinking block(s) left out (Gemini thought signatures are its own)"
        )
    if sentinels:
        notes.append(
            f"{sentinels} model turn(s) with function calls Gemini did not sign carry the "
            f"documented {GEMINI_SIGNATURE_SENTINEL!r} signature"
        )
    if not contents:
        raise nothing_to_export(conv)
    if contents[0]["role"] != "user":
        notes.append("the path starts with a model turn; a placeholder user turn was added")
        contents.insert(0, {"role": "user", "parts": [{"text": "(continued)"}]})
    body: dict[str, Any] = {"contents": contents}
    if plan.system:
        body["systemInstruction"] = {"parts": [{"text": t} for t in plan.system]}
    if plan.tool_names:
        body["tools"] = [
            {
                "functionDeclarations": [
                    {"name": n, "description": d}
                    for n, d, _ in tool_definitions(conv, plan.tool_names)
                ]
            }
        ]
    return Export(body, tuple(notes), tuple(plan.synthetic))


def to_gemini(conv: Conversation) -> dict[str, Any]:
    body: dict[str, Any] = export_gemini(conv).body
    return body
