"""Anthropic Messages request bodies."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from snapshot.errors import TranscriptError
from snapshot.transcript.formats import detect, import_path
from snapshot.transcript.formats.anthropic_messages import conversation_from_body
from snapshot.transcript.model import (
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResult,
    tool_pairing,
)


def _png_b64(w: int, h: int) -> str:
    buf = io.BytesIO()
    Image.new("RGB", (w, h)).save(buf, format="PNG")
    return base64.b64encode(buf.getvalue()).decode()


def _body() -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "system": [
            {"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}
        ],
        "tools": [
            {"name": "screenshot", "description": "take one", "input_schema": {"type": "object"}}
        ],
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "what is on screen?"},
                    {
                        "type": "image",
                        "source": {
                            "type": "base64",
                            "media_type": "image/jpeg",
                            "data": _png_b64(9, 4),
                        },
                    },
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "look closer", "signature": "EqQB"},
                    {"type": "redacted_thinking", "data": "opaque"},
                    {
                        "type": "tool_use",
                        "id": "toolu_01",
                        "name": "screenshot",
                        "input": {"zoom": 2},
                    },
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_01",
                        "is_error": False,
                        "content": [
                            {"type": "text", "text": "captured"},
                            {
                                "type": "image",
                                "source": {
                                    "type": "base64",
                                    "media_type": "image/png",
                                    "data": _png_b64(3, 3),
                                },
                            },
                        ],
                    },
                    {"type": "text", "text": "and?"},
                ],
            },
            {"role": "assistant", "content": "A window."},
        ],
    }


def test_request_body_blocks_map_to_the_model(tmp_path: Path) -> None:
    p = tmp_path / "req.json"
    p.write_text(json.dumps(_body()), encoding="utf-8")
    assert detect(p).name == "anthropic-messages"
    (conv,) = import_path(p)
    path = conv.path()
    assert [m.role for m in path] == ["system", "user", "assistant", "user", "assistant"]
    assert path[0].text() == "You are terse."
    img = path[1].blocks[1]
    # The header decides the type: the body mislabelled a PNG as JPEG.
    assert isinstance(img, ImageBlock) and (img.media_type, img.width, img.height) == (
        "image/png",
        9,
        4,
    )
    assert path[2].blocks[0] == ThinkingBlock("look closer", "EqQB")
    assert path[2].blocks[1] == ThinkingBlock("", "opaque")
    assert path[2].blocks[2] == ToolCall("toolu_01", "screenshot", {"zoom": 2})
    result = path[3].blocks[0]
    assert (
        isinstance(result, ToolResult) and result.text() == "captured" and len(result.images()) == 1
    )
    assert path[3].blocks[1] == TextBlock("and?")
    assert (
        conv.meta["model"] == "claude-sonnet-4-5" and conv.meta["tools"][0]["name"] == "screenshot"
    )
    assert tool_pairing(path).ok and not conv.warnings


def test_bad_blocks_are_reported_not_lost_silently() -> None:
    body = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/png", "data": "aGVsbG8="},
                    }
                ],
            },
            {
                "role": "user",
                "content": [{"type": "image", "source": {"type": "url", "url": "https://x/y.png"}}],
            },
            {
                "role": "user",
                "content": [
                    {"type": "document", "source": {}},
                    {"type": "tool_result", "tool_use_id": "gone", "content": "late"},
                ],
            },
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t9", "name": "ls", "input": {}}],
            },
            {"role": "robot", "content": "beep"},
        ]
    }
    conv = conversation_from_body(body, conv_id="bad", where="body.json")
    text = "\n".join(conv.warnings)
    assert "body.json: message 0 block 0: image dropped: not an image" in text
    assert "image URL kept as text" in text
    assert "1 × block 'document'" in text and "1 × role 'robot'" in text
    assert "without a call (gone)" in text and "without a result (t9)" in text
    assert isinstance(conv.path()[0].blocks[0], TextBlock)


def test_plain_text_body_is_left_to_openai_chat_and_reads_the_same(tmp_path: Path) -> None:
    p = tmp_path / "plain.json"
    p.write_text(
        json.dumps({"model": "x", "messages": [{"role": "user", "content": "hi"}]}),
        encoding="utf-8",
    )
    assert detect(p).name == "openai-chat"
    (a,) = import_path(p, format="anthropic-messages")
    (o,) = import_path(p)
    assert [(m.role, m.text()) for m in a.path()] == [(m.role, m.text()) for m in o.path()]


def test_jsonl_of_bodies_and_malformed_files(tmp_path: Path) -> None:
    p = tmp_path / "reqs.jsonl"
    p.write_text(json.dumps(_body()) + "\n{oops\n" + json.dumps(_body()) + "\n", encoding="utf-8")
    convs = import_path(p, format="anthropic-messages")
    assert [c.id for c in convs] == ["reqs#1", "reqs#3"]
    assert any(f"{p}:2: malformed JSON line skipped" in w for w in convs[0].warnings)
    (third,) = import_path(p, format="anthropic-messages", select={"line": "3"})
    assert third.id == "reqs#3"
    bad = tmp_path / "bad.json"
    bad.write_text('{"messages": [\n  {"role": "user",\n   "content": }\n]}', encoding="utf-8")
    with pytest.raises(TranscriptError, match=r"bad\.json:3:\d+: malformed JSON"):
        import_path(bad, format="anthropic-messages")
    with pytest.raises(TranscriptError, match="without a 'messages' list"):
        conversation_from_body({"model": "x"}, conv_id="x")
