"""Round trip: every body ``snapshot export --to`` writes imports again with the same
messages, calls and results (exporting the re-import gives the same body)."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from snapshot.transcript.export import export
from snapshot.transcript.formats import detect, import_path
from snapshot.transcript.model import (
    Conversation,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResult,
    linear,
    stats,
)

# The format each body shape is read back as.
READ_BACK = {
    "anthropic": "anthropic-messages",
    "openai": "openai-chat",
    "openai-responses": "openai-responses",
    "gemini": "gemini-content",
}

REPO = Path(__file__).resolve().parents[1]
_ENV = os.environ.get("SNAPSHOT_CORPUS")
FORMATS = (Path(_ENV) if _ENV else REPO.parent / "shared" / "corpus") / "formats"


def _png() -> bytes:
    buf = io.BytesIO()
    Image.new("L", (6, 4), 0).save(buf, format="PNG")
    return buf.getvalue()


def _conv() -> Conversation:
    return linear(
        "rt",
        [
            ("s", "system", [TextBlock("You are terse.")]),
            ("u", "user", [TextBlock("What is here?"), ImageBlock("image/png", data=_png())]),
            (
                "a",
                "assistant",
                [
                    ThinkingBlock("look first"),
                    TextBlock("Checking."),
                    ToolCall("call_a", "ls", {"path": "."}),
                    ToolCall("call_b", "cat", {"file": "a.txt"}),
                ],
            ),
            (
                "r",
                "tool",
                [
                    ToolResult("call_a", (TextBlock("a.txt"),)),
                    ToolResult("call_b", (TextBlock("no such file"),), is_error=True),
                ],
            ),
            ("a2", "assistant", [TextBlock("Only a.txt, and it cannot be read.")]),
            ("u2", "user", [TextBlock("ok")]),
        ],
    )


def _round_trip(conv: Conversation, shape: str, tmp_path: Path) -> tuple[Any, Any, Conversation]:
    body = export(conv, shape).body
    path = tmp_path / f"{shape}.json"
    path.write_text(json.dumps(body), encoding="utf-8")
    assert detect(path).name == READ_BACK[shape]
    (again,) = import_path(path)
    return body, export(again, shape, model=body.get("model")).body, again


@pytest.mark.parametrize("shape", sorted(READ_BACK))
def test_every_body_reimports_to_the_same_body(shape: str, tmp_path: Path) -> None:
    conv = _conv()
    body, again_body, again = _round_trip(conv, shape, tmp_path)
    assert again_body == body
    s, t = stats(conv.path()), stats(again.path())
    assert (t.tool_calls, t.tool_results, t.images) == (s.tool_calls, s.tool_results, s.images)
    calls = [(c.name, dict(c.input)) for m in again.path() for c in m.tool_calls()]
    assert calls == [("ls", {"path": "."}), ("cat", {"file": "a.txt"})]
    results = [r for m in again.path() for r in m.tool_results()]
    assert "a.txt" in results[0].text() and "no such file" in results[1].text()


@pytest.mark.corpus
@pytest.mark.skipif(not FORMATS.is_dir(), reason="format samples not found (../shared/corpus)")
@pytest.mark.parametrize(
    "rel",
    [
        "claude-agent-sdk/tielec-aiwa-issue271-impl.jsonl",
        "gemini-content/gemini-cli-NotFollowingUserIntent.json",
        "gemini-content/gemini-cli-trajectory.json",
        "openai-responses/oh-sdk-skill-probe-request_payload.json",
        "openai-chat/oh-sdk-litellm-telemetry-haiku-4c3a.json",
        "codex-exec/tielec-aiwa-issue119-scenario-review.jsonl",
    ],
)
def test_real_files_round_trip(rel: str, tmp_path: Path) -> None:
    for conv in import_path(FORMATS / rel):
        for shape in READ_BACK:
            body, again_body, _ = _round_trip(conv, shape, tmp_path)
            assert again_body == body, (rel, conv.agent, shape)


def test_importer_and_exporter_agree_on_the_signature_key() -> None:
    from snapshot.transcript import export as exporter
    from snapshot.transcript.formats import gemini_content

    assert gemini_content.THOUGHT_SIGNATURES == exporter.THOUGHT_SIGNATURES


def _markdown_round_trip(conv: Conversation, tmp_path: Path) -> tuple[str, str, Conversation]:
    text = export(conv, "markdown").body
    path = tmp_path / "conv.md"
    path.write_text(text, encoding="utf-8", newline="")
    assert detect(path).name == "snapshot-markdown"
    (again,) = import_path(path)
    return text, export(again, "markdown").body, again


def test_markdown_reimports_to_the_same_markdown(tmp_path: Path) -> None:
    conv = _conv()
    text, again_text, again = _markdown_round_trip(conv, tmp_path)
    assert again_text == text
    calls = [(c.name, dict(c.input)) for m in again.path() for c in m.tool_calls()]
    assert calls == [("ls", {"path": "."}), ("cat", {"file": "a.txt"})]
    results = [r for m in again.path() for r in m.tool_results()]
    assert [r.is_error for r in results] == [False, True]
    assert [m.role for m in again.path()] == [m.role for m in conv.path()]


@pytest.mark.corpus
@pytest.mark.skipif(not FORMATS.is_dir(), reason="format samples not found (../shared/corpus)")
@pytest.mark.parametrize(
    "rel",
    [
        "claude-code/dkimuson-fe5e1c67.jsonl",
        "gemini-content/gemini-cli-trajectory.json",
        "mini-swe-agent/msa-github_issue.traj.json",
    ],
)
def test_real_files_round_trip_through_markdown(rel: str, tmp_path: Path) -> None:
    for conv in import_path(FORMATS / rel):
        text, again_text, again = _markdown_round_trip(conv, tmp_path)
        assert again_text == text, (rel, conv.agent)
        s, t = stats(conv.path()), stats(again.path())
        assert (t.messages, t.tool_calls, t.tool_results) == (
            s.messages,
            s.tool_calls,
            s.tool_results,
        )
