"""The validation layer: each checker accepts what the provider accepts and names what it refuses."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from snapshot.transcript.export import export
from snapshot.transcript.model import ImageBlock, TextBlock, ToolCall, ToolResult, linear
from snapshot.transcript.validate import GEMINI_SIGNATURE_SENTINEL, export_checked, validate
from snapshot.transcript.validate.openai_spec import SPEC_ENV, SchemaUnavailable, spec_path

try:
    spec_path()
    SPEC = True
except SchemaUnavailable:
    SPEC = False
needs_spec = pytest.mark.skipif(
    not SPEC, reason="OpenAI's OpenAPI spec not found (../shared/specs/openai-openapi)"
)


def _png() -> bytes:
    buf = io.BytesIO()
    Image.new("L", (8, 8), 255).save(buf, format="PNG")
    return buf.getvalue()


def _conv() -> Any:
    return linear(
        "c",
        [
            ("s", "system", [TextBlock("be brief")]),
            ("u", "user", [TextBlock("list files"), ImageBlock("image/png", data=_png())]),
            ("a", "assistant", [TextBlock("Looking."), ToolCall("call_1", "ls", {"p": "."})]),
            ("r", "tool", [ToolResult("call_1", (TextBlock("a.txt"),))]),
            ("a2", "assistant", [TextBlock("One file.")]),
        ],
    )


def _rules(body: Any, shape: str, model: str | None = None) -> list[str]:
    return [p.rule for p in validate(body, shape, model=model).problems]


@pytest.mark.parametrize("shape", ["anthropic", "openai", "openai-responses", "gemini"])
def test_exported_bodies_validate(shape: str) -> None:
    if shape.startswith("openai") and not SPEC:
        pytest.skip("OpenAI's OpenAPI spec not found")
    _exported, checked = export_checked(_conv(), shape)
    assert checked.ok, checked.problems
    assert "documented rules" in checked.checked_by and not checked.skipped


def test_anthropic_walk_reaches_inside_messages() -> None:
    body = export(_conv(), "anthropic").body
    body["messages"][1]["content"][0]["bogus"] = 1
    body["messages"][0]["content"][0].pop("text")
    body["messages"][2]["content"][0]["type"] = "tool_reslt"
    found = validate(body, "anthropic").problems
    wheres = {p.where for p in found}
    assert {"messages[1].content[0].bogus", "messages[0].content[0]"} <= wheres
    assert any("tool_reslt" in p.message for p in found)


def test_anthropic_rules_order_pairing_empty_text() -> None:
    body = export(_conv(), "anthropic").body
    bad = json.loads(json.dumps(body))
    bad["messages"] = bad["messages"][1:]  # starts with the assistant
    assert "role-order" in _rules(bad, "anthropic")
    bad = json.loads(json.dumps(body))
    del bad["messages"][2]["content"][0]  # the result of call_1
    assert "unanswered-call" in _rules(bad, "anthropic")
    bad = json.loads(json.dumps(body))
    bad["messages"][0]["content"].append({"type": "text", "text": "  "})
    assert "empty-text" in _rules(bad, "anthropic")


def test_image_bytes_must_match_their_media_type() -> None:
    body = export(_conv(), "anthropic").body
    image = body["messages"][0]["content"][1]
    image["source"]["media_type"] = "image/jpeg"
    assert "image-media-type" in _rules(body, "anthropic")
    image["source"]["data"] = base64.b64encode(b"not an image").decode()
    image["source"]["media_type"] = "image/png"
    assert "image-media-type" in _rules(body, "anthropic")


def test_gemini_image_data_may_be_url_safe_base64() -> None:
    # google-genai's Part.from_bytes sends URL-safe base64, which Gemini's proto3 JSON takes.
    raw = _png() + bytes(range(250, 256)) * 4  # bytes whose base64 holds "-" and "_"
    safe = base64.urlsafe_b64encode(raw).decode()
    assert "-" in safe and "_" in safe
    gemini = {
        "contents": [
            {"role": "user", "parts": [{"inlineData": {"mimeType": "image/png", "data": safe}}]}
        ]
    }
    assert "image-data" not in _rules(gemini, "gemini")
    # ... and names the media type by its proto field name, which proto3 JSON takes too.
    [part] = gemini["contents"][0]["parts"]
    part["inlineData"] = {"mime_type": "image/png", "data": safe}
    assert _rules(gemini, "gemini") == []
    part["inlineData"] = {"mime_type": "image/jpeg", "data": safe}
    assert "image-media-type" in _rules(gemini, "gemini")
    body = export(_conv(), "anthropic").body
    body["messages"][0]["content"][1]["source"]["data"] = safe
    assert "image-data" in _rules(body, "anthropic")


def test_image_count_limit_is_the_providers() -> None:
    from snapshot.billing.providers import limit_facts_for

    cap = {f.field: f.value for f in limit_facts_for("anthropic")}["max_images"]
    img = ImageBlock("image/png", data=_png())
    conv = linear("c", [("u", "user", [TextBlock("look"), *[img] * (int(cap) + 1)])])
    assert "image-count" in _rules(export(conv, "anthropic").body, "anthropic")


def test_ids_and_names_follow_provider_patterns() -> None:
    body = export(_conv(), "anthropic").body
    body["messages"][1]["content"][1]["id"] = "bad id!"
    body["messages"][2]["content"][0]["tool_use_id"] = "bad id!"
    assert "call-id" in _rules(body, "anthropic")
    body = export(_conv(), "gemini").body
    body["contents"][1]["parts"][1]["functionCall"]["name"] = "9lives"
    assert "tool-name" in _rules(body, "gemini")


def test_gemini_types_forbid_extra_fields() -> None:
    body = export(_conv(), "gemini").body
    body["contents"][0]["parts"][0]["bogus"] = True
    body["generation"] = {}
    wheres = {p.where for p in validate(body, "gemini").problems}
    assert {"contents[0].parts[0].bogus", "generation"} <= wheres


def test_gemini_3_wants_a_signature_on_current_turn_calls() -> None:
    body = export(_conv(), "gemini").body
    call = body["contents"][1]["parts"][1]
    assert call["thoughtSignature"] == GEMINI_SIGNATURE_SENTINEL  # not Gemini's own call
    # A call of the current turn (after the last user text) without one is refused.
    body["contents"].append({"role": "user", "parts": [{"text": "again"}]})
    body["contents"].append(
        {"role": "model", "parts": [{"functionCall": {"name": "ls", "args": {}}}]}
    )
    assert "thought-signature" in _rules(body, "gemini", "gemini-3-pro-preview")
    assert "thought-signature" not in _rules(body, "gemini", "gemini-2.5-pro")


@needs_spec
def test_openai_spec_finds_what_the_issue_names() -> None:
    body = export(_conv(), "openai-responses").body
    body["tools"][0].pop("strict")
    body["input"].append(
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "x"}]}
    )
    found = validate(body, "openai-responses").problems
    assert any(p.where == "tools[0]" and "strict" in p.message for p in found)
    assert any(p.where.startswith(f"input[{len(body['input']) - 1}]") for p in found)


@needs_spec
def test_openai_chat_tool_message_needs_its_call() -> None:
    body = export(_conv(), "openai").body
    tool = next(m for m in body["messages"] if m["role"] == "tool")
    tool["tool_call_id"] = "nobody"
    assert "orphan-result" in _rules(body, "openai")


def test_a_missing_spec_is_skipped_with_a_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from snapshot.transcript.validate import openai_spec

    monkeypatch.setenv(SPEC_ENV, str(tmp_path / "nowhere.json"))
    openai_spec._components.cache_clear()
    openai_spec._validator.cache_clear()
    try:
        checked = validate(export(_conv(), "openai").body, "openai")
    finally:
        monkeypatch.delenv(SPEC_ENV)
        openai_spec._components.cache_clear()
        openai_spec._validator.cache_clear()
    assert checked.skipped and "SNAPSHOT_OPENAI_SPEC" in checked.skipped[0]
    assert checked.checked_by == (
        "openai SDK CompletionCreateParamsNonStreaming",
        "documented rules",
    )
