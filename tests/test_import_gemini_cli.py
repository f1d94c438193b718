"""Gemini CLI chat-recording importer: the real sample, and the shapes Gemini CLI's types define."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import pytest
from format_samples import SKIP, assert_exports, assert_linked, imported, load_as, sample

from snapshot.transcript.formats import gemini_cli
from snapshot.transcript.model import ImageBlock, ThinkingBlock, ToolCall, ToolResult

FMT = gemini_cli.NAME


@SKIP
def test_real_recording_counts_and_thoughts() -> None:
    path, expected = sample("gemini-cli/kvsankar-gemini-session-01.json")
    (conv,) = imported(path, FMT)
    assert len(conv.path()) == expected["messages"]
    thinking = [b for m in conv.path() for b in m.blocks if isinstance(b, ThinkingBlock)]
    assert len(thinking) == expected["thoughts"]
    assert conv.path()[-1].meta["model"] == "gemini-2.5-flash"
    assert_exports(conv)


def _png() -> str:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (4, 4)).save(buf, format="PNG")
    return base64.b64encode(buf.getvalue()).decode()


def _record() -> dict[str, Any]:
    return {
        "sessionId": "s1",
        "projectHash": "h",
        "startTime": "t0",
        "messages": [
            {
                "id": "u1",
                "type": "user",
                "content": [
                    {"text": "look"},
                    {"inlineData": {"mimeType": "image/png", "data": _png()}},
                ],
            },
            {"id": "i1", "type": "info", "content": "Switched model"},
            {
                "id": "g1",
                "type": "gemini",
                "content": [{"text": "hmm", "thought": True}, {"text": "Reading it."}],
                "thoughts": [{"subject": "Plan", "description": "read the file"}],
                "toolCalls": [
                    {
                        "id": "read-1",
                        "name": "read_file",
                        "args": {"path": "a.py"},
                        "status": "success",
                        "result": [
                            {
                                "functionResponse": {
                                    "id": "read-1",
                                    "name": "read_file",
                                    "response": {"output": "x = 1"},
                                }
                            }
                        ],
                    },
                    {
                        "id": "sh-1",
                        "name": "run_shell_command",
                        "args": {"command": "false"},
                        "status": "error",
                        "result": [
                            {
                                "functionResponse": {
                                    "id": "sh-1",
                                    "name": "run_shell_command",
                                    "response": {"error": "exit 1"},
                                }
                            }
                        ],
                    },
                ],
            },
        ],
    }


def test_calls_are_answered_by_the_results_they_hold(tmp_path: Path) -> None:
    path = tmp_path / "session-1.json"
    path.write_text(json.dumps(_record()), encoding="utf-8")
    (conv,) = load_as(path, FMT)
    user, reply, results = conv.path()
    assert isinstance(user.blocks[1], ImageBlock)
    assert isinstance(reply.blocks[0], ThinkingBlock) and "read the file" in reply.blocks[0].text
    assert reply.blocks[1] == ThinkingBlock("hmm") and reply.text() == "Reading it."
    calls = [b for b in reply.blocks if isinstance(b, ToolCall)]
    answers = [b for b in results.blocks if isinstance(b, ToolResult)]
    assert [c.id for c in calls] == [a.call_id for a in answers] == ["read-1", "sh-1"]
    assert answers[0].text() == "x = 1" and not answers[0].is_error
    assert answers[1].text() == "exit 1" and answers[1].is_error
    assert any("info message" in w for w in conv.warnings)
    assert_linked(conv)
    assert_exports(conv)


def test_jsonl_recording_with_set_records_and_a_partial_line(tmp_path: Path) -> None:
    rec = _record()
    msgs = rec.pop("messages")
    lines = [json.dumps(rec), *(json.dumps(m) for m in msgs)]
    lines.append(json.dumps({"$set": {"lastUpdated": "t9"}}))
    lines.append(json.dumps({**msgs[0], "content": "look again"}))  # same id: replaces
    path = tmp_path / "session-1.jsonl"
    path.write_text("\n".join(lines) + '\n{"id": "u2", "type": "us', encoding="utf-8")
    (conv,) = load_as(path, FMT)
    assert conv.path()[0].text() == "look again"
    assert conv.meta["lastUpdated"] == "t9"
    assert any("the last line is partial" in w for w in conv.warnings)
    assert gemini_cli.score(path, path.read_bytes()[:4096]) == 1.0


def test_gemini_content_lists_are_not_claimed(tmp_path: Path) -> None:
    head = b'[{"role": "user", "parts": [{"text": "hi"}]}]'
    assert gemini_cli.score(tmp_path / "x.json", head) == 0.0


@pytest.mark.parametrize("kind", ["main", "subagent"])
def test_subagent_recordings_are_their_own_agent(tmp_path: Path, kind: str) -> None:
    rec = {**_record(), "kind": kind}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(rec), encoding="utf-8")
    (conv,) = load_as(path, FMT)
    assert conv.agent == kind
