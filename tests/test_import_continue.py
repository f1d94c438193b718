"""Continue.dev sessions: chat history with attached context items, tool calls and their outputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from format_samples import FORMATS, manifest, needs_samples, within

from snapshot.errors import TranscriptError
from snapshot.transcript.formats import detect, import_path
from snapshot.transcript.model import stats, tool_pairing

SAMPLES = manifest("continue")


@needs_samples
@pytest.mark.parametrize("sample", SAMPLES, ids=[s["path"] for s in SAMPLES])
def test_continue_samples_match_the_hand_counts(sample: dict[str, Any]) -> None:
    path = FORMATS / sample["path"]
    assert detect(path).name == "continue"
    (conv,) = import_path(path)
    want = sample["expected"]
    s = stats(conv.messages)
    assert within(s.messages, want["messages"]) and s.tool_calls == want["tool_calls"]
    roles = [m.role for m in conv.messages]
    assert roles.count("user") == want["user"] and roles.count("assistant") == want["assistant"]
    with_context = [m for m in conv.messages if m.meta.get("context_items")]
    assert len(with_context) == want["context_items"]
    assert conv.meta["text_kept"] >= 0.9


def test_tool_calls_pair_with_tool_messages_or_their_stored_output(tmp_path: Path) -> None:
    call = {
        "id": "t1",
        "type": "function",
        "function": {"name": "read_file", "arguments": '{"path": "a.py"}'},
    }
    call2 = {**call, "id": "t2"}
    session = {
        "sessionId": "s",
        "title": "t",
        "workspaceDirectory": "/w",
        "history": [
            {"message": {"role": "user", "content": "read it", "id": "u"}, "contextItems": []},
            {
                "message": {"role": "assistant", "content": "", "toolCalls": [call], "id": "a"},
                "contextItems": [],
            },
            {
                "message": {"role": "tool", "content": "print(1)", "toolCallId": "t1", "id": "r"},
                "contextItems": [],
            },
            {
                "message": {"role": "assistant", "content": "", "toolCalls": [call2], "id": "b"},
                "contextItems": [],
                "toolCallState": {
                    "toolCallId": "t2",
                    "status": "done",
                    "output": [{"name": "a.py", "content": "print(2)"}],
                },
            },
        ],
    }
    p = tmp_path / "s.json"
    p.write_text(json.dumps(session), encoding="utf-8")
    (conv,) = import_path(p)
    assert tool_pairing(conv.path()).ok
    assert [r.text() for m in conv.messages for r in m.tool_results()] == ["print(1)", "print(2)"]


def test_the_sessions_index_is_refused_with_its_reason(tmp_path: Path) -> None:
    p = tmp_path / "sessions.json"
    p.write_text(
        json.dumps([{"sessionId": "s", "title": "t", "workspaceDirectory": "/w"}]), encoding="utf-8"
    )
    with pytest.raises(TranscriptError, match="index of sessions"):
        import_path(p, format="continue")
