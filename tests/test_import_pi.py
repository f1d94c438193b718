"""pi session JSONL: v1 linear files and v3 trees, compaction, partial last lines, bounded memory."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from format_samples import FORMATS, manifest, needs_samples, within

from snapshot.transcript.formats import detect, import_path
from snapshot.transcript.model import ThinkingBlock, stats

SAMPLES = manifest("pi")


@needs_samples
@pytest.mark.parametrize("sample", SAMPLES, ids=[s["path"] for s in SAMPLES])
def test_pi_samples_match_the_hand_counts(sample: dict[str, Any]) -> None:
    path = FORMATS / sample["path"]
    assert detect(path).name == "pi"
    (conv,) = import_path(path)
    want = sample["expected"]
    s = stats(conv.messages)
    compactions = want.get("compaction", 0)
    # Each compaction entry is two messages here: the boundary and the summary.
    assert within(s.messages - 2 * compactions, want["messages"]), s
    assert within(s.tool_calls, want.get("tool_calls", 0)), s
    unanswered = want.get("tool_calls_without_result", 0)
    if unanswered:
        assert sum("has no result" in w for w in conv.warnings) == unanswered
    assert conv.meta.get("text_kept", 1.0) >= 0.9, "the import keeps the file's text"
    boundaries = [m for m in conv.messages if m.meta.get("kind") == "compact_boundary"]
    assert len(boundaries) == compactions
    assert all(conv.index[m.id].role == "system" for m in boundaries)


@needs_samples
def test_pi_thinking_is_kept_as_thinking_blocks() -> None:
    (conv,) = import_path(FORMATS / "pi" / "pi-mono-before-compaction.jsonl")
    thinking = [b for m in conv.messages for b in m.blocks if isinstance(b, ThinkingBlock)]
    assert len(thinking) == 49


def _write(path: Path, records: list[dict[str, Any]], tail: str = "") -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records) + tail, encoding="utf-8")
    return path


HEADER = {"type": "session", "version": 3, "id": "s1", "cwd": "/w"}


def _msg(i: str, parent: str | None, role: str, content: Any, **extra: Any) -> dict[str, Any]:
    return {
        "type": "message",
        "id": i,
        "parentId": parent,
        "message": {"role": role, "content": content, **extra},
    }


def test_v3_tree_branches_stay_branches_and_the_tip_is_the_last_entry(tmp_path: Path) -> None:
    records = [
        HEADER,
        _msg("u1", None, "user", "first question"),
        {"type": "model_change", "id": "mc", "parentId": "u1", "provider": "p", "modelId": "m"},
        _msg(
            "a1",
            "mc",
            "assistant",
            [{"type": "toolCall", "id": "t1", "name": "read", "arguments": {"path": "x"}}],
        ),
        _msg(
            "r1",
            "a1",
            "toolResult",
            [{"type": "text", "text": "file body"}],
            toolCallId="t1",
            isError=False,
        ),
        _msg("u2", "u1", "user", "a second try from the first question"),
    ]
    (conv,) = import_path(_write(tmp_path / "s.jsonl", records))
    assert [m.id for m in conv.path()] == ["u1", "u2"]
    assert conv.index["a1"].parent == "u1"  # the settings entry is transparent
    assert conv.meta["model_changes"] == ["p/m"]
    assert {m.id for m in conv.children("u1")} == {"a1", "u2"}


def test_a_session_being_written_imports_its_complete_records(tmp_path: Path) -> None:
    records = [
        HEADER,
        _msg("u1", None, "user", "hello"),
        _msg("a1", "u1", "assistant", [{"type": "text", "text": "hi"}]),
    ]
    cut = json.dumps(_msg("u2", "a1", "user", "never finished"))[:25]
    (conv,) = import_path(_write(tmp_path / "s.jsonl", records, tail=cut))
    assert [m.id for m in conv.path()] == ["u1", "a1"]
    assert any(":4: the last line is partial" in w for w in conv.warnings), conv.warnings


def test_a_large_session_imports_in_bounded_memory(tmp_path: Path) -> None:
    """20 MB of records the model never sees must not be held: the file is read line by line."""
    blob = "x" * 10_000
    path = tmp_path / "big.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        fh.write(json.dumps(HEADER) + "\n")
        fh.write(json.dumps(_msg("u1", None, "user", "start")) + "\n")
        for i in range(2000):
            fh.write(
                json.dumps({"type": "custom", "id": f"c{i}", "parentId": "u1", "data": blob}) + "\n"
            )
    tracemalloc.start()
    try:
        (conv,) = import_path(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(conv.messages) == 1
    assert peak < 8 * 1024 * 1024, f"peak {peak / 1e6:.1f} MB for a 20 MB file"


def test_images_in_user_messages_and_tool_results_are_kept(tmp_path: Path) -> None:
    import base64
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (7, 5), "white").save(buf, format="PNG")
    png = base64.b64encode(buf.getvalue()).decode()
    image = {"type": "image", "data": png, "mimeType": "image/jpeg"}  # the header wins
    records = [
        HEADER,
        _msg("u1", None, "user", [{"type": "text", "text": "look"}, image]),
        _msg(
            "a1",
            "u1",
            "assistant",
            [{"type": "toolCall", "id": "t1", "name": "screenshot", "arguments": {}}],
        ),
        _msg("r1", "a1", "toolResult", [image], toolCallId="t1", isError=False),
    ]
    (conv,) = import_path(_write(tmp_path / "s.jsonl", records))
    images = [img for m in conv.messages for img in m.images()]
    assert [(i.media_type, i.width, i.height) for i in images] == [("image/png", 7, 5)] * 2
