"""Codex CLI rollout JSONL importer, on the real rollouts in ../shared/corpus/formats."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from format_samples import (
    SKIP,
    assert_exports,
    assert_linked,
    imported,
    load_as,
    near,
    sample,
    samples,
    truncated_copy,
)

from snapshot.errors import TranscriptError
from snapshot.transcript.formats import codex_rollout
from snapshot.transcript.model import ImageBlock, TextBlock, ThinkingBlock, ToolCall, ToolResult

FMT = codex_rollout.NAME
pytestmark = SKIP


@pytest.mark.parametrize("entry", samples("codex-rollout"))
def test_rollout_counts_match_the_manifest(entry: str) -> None:
    path, expected = sample(entry)
    (conv,) = imported(path, FMT)
    path_msgs = conv.path()
    items = [m for m in path_msgs if m.meta.get("item") == "message"]
    roles = Counter(m.meta.get("openai_role", m.role) for m in items)
    assert near(len(items), expected["messages"])
    for role in ("user", "assistant", "developer"):
        if role in expected:
            assert near(roles[role], expected[role]), (role, roles)
    calls = sum(len(m.tool_calls()) for m in path_msgs)
    results = sum(len(m.tool_results()) for m in path_msgs)
    assert near(calls, expected["tool_calls"])
    assert near(results, expected.get("tool_results", 0))
    assert_linked(conv)
    assert_exports(conv)
    # event_msg lines repeat the response items: never counted twice.
    assert any("event_msg" in w for w in conv.warnings)


def test_reasoning_summaries_are_thinking_and_custom_calls_keep_raw_input() -> None:
    path, _ = sample("codex-rollout/moonmind-rollout-2025-11-13T18-21-11-019a802a.jsonl")
    (conv,) = imported(path, FMT)
    blocks = [b for m in conv.path() for b in m.blocks]
    thinking = [b for b in blocks if isinstance(b, ThinkingBlock)]
    assert thinking and all(b.text for b in thinking)
    patch = next(b for b in blocks if isinstance(b, ToolCall) and b.name == "apply_patch")
    assert str(patch.input["input"]).startswith("*** Begin Patch")
    answer = next(b for b in blocks if isinstance(b, ToolResult) and b.call_id == patch.id)
    assert "Success" in answer.text()
    assert conv.meta["cli_version"] == "0.58.0" and "instructions" in conv.meta


def test_oldest_schema_without_turn_context() -> None:
    path, _ = sample("codex-rollout/openprintkit-rollout-2025-11-01T11-34-37-97b66f6c.jsonl")
    (conv,) = imported(path, FMT)
    assert conv.meta["cli_version"] == "0.34.0"
    assert "models" not in conv.meta  # 0.34 wrote no turn_context
    assert any("encrypted" in w for w in conv.warnings)


def test_partial_last_line_imports_the_complete_records(tmp_path: Path) -> None:
    path, _ = sample("codex-rollout/parking-lot-rollout-2025-12-06T15-11-37-019af581.jsonl")
    cut = truncated_copy(path, tmp_path)
    (full,) = load_as(path, FMT)
    (conv,) = load_as(cut, FMT)
    complete = cut.read_bytes().count(b"\n")
    assert 0 < len(conv.messages) < len(full.messages)
    assert all(int(m.id[1:]) <= complete for m in conv.messages)
    assert any("the last line is partial" in w for w in conv.warnings)
    assert not any("malformed JSON" in w for w in conv.warnings)


def _rollout(tmp_path: Path, *payloads: dict[str, object]) -> Path:
    lines = [
        {"timestamp": "t", "type": "session_meta", "payload": {"id": "s1", "cli_version": "x"}}
    ]
    lines += [{"timestamp": "t", "type": "response_item", "payload": p} for p in payloads]
    path = tmp_path / "rollout-x.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def test_images_and_structured_outputs(tmp_path: Path) -> None:
    import base64
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (3, 2)).save(buf, format="PNG")
    url = "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()
    path = _rollout(
        tmp_path,
        {"type": "message", "role": "user", "content": [{"type": "input_image", "image_url": url}]},
        {"type": "function_call", "name": "view", "arguments": "{}", "call_id": "c1"},
        {
            "type": "function_call_output",
            "call_id": "c1",
            "output": {"content": "no", "success": False},
        },
        {"type": "local_shell_call", "call_id": "c2", "action": {"command": ["ls"]}},
        {"type": "local_shell_call_output", "call_id": "c2", "output": "a\nb"},
    )
    (conv,) = load_as(path, FMT)
    image = conv.path()[0].blocks[0]
    assert isinstance(image, ImageBlock) and (image.width, image.height) == (3, 2)
    r1, r2 = [b for m in conv.path() for b in m.blocks if isinstance(b, ToolResult)]
    assert r1.is_error and r1.text() == "no"
    assert not r2.is_error and r2.content == (TextBlock("a\nb"),)
    assert_linked(conv)


def test_not_a_rollout_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text('{"role": "user", "content": "hi"}\n', encoding="utf-8")
    assert codex_rollout.score(path, path.read_bytes()) == 0.0
    with pytest.raises(TranscriptError, match="no Codex rollout records"):
        load_as(path, FMT)


def test_detected_when_the_instructions_outgrow_the_sniff_window(tmp_path: Path) -> None:
    from snapshot.transcript.formats import SNIFF_BYTES, detect

    meta = {"id": "s1", "base_instructions": {"text": "x" * (2 * SNIFF_BYTES)}}
    path = tmp_path / "rollout-long.jsonl"
    path.write_text(
        json.dumps(
            {"timestamp": "t", "type": "session_meta", "payload": meta}, separators=(",", ":")
        )
        + "\n",
        encoding="utf-8",
    )
    assert detect(path).name == FMT
    (conv,) = load_as(path, FMT)
    assert conv.meta["instructions"] == "x" * (2 * SNIFF_BYTES)


def test_compaction_is_a_boundary_then_the_real_summary(tmp_path: Path) -> None:
    path = _rollout(
        tmp_path,
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]},
    )
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"timestamp": "t", "type": "compacted", "payload": {"message": "S"}}))
        fh.write("\n")
    (conv,) = load_as(path, FMT)
    _, boundary, summary = conv.path()
    assert boundary.role == "system" and boundary.meta["kind"] == "compact_boundary"
    assert summary.meta["compact_summary"] and summary.text() == "S"
