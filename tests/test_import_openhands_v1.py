"""OpenHands V1 conversation folders: base_state.json + events/, and the CLI's flat event folders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from snapshot.transcript.formats import detect, import_path
from snapshot.transcript.model import ThinkingBlock, stats, tool_pairing
from tests._format_samples import FORMATS, needs_samples, samples, within

SAMPLES = samples("openhands-v1")


@needs_samples
@pytest.mark.parametrize("sample", SAMPLES, ids=[s["path"] for s in SAMPLES])
def test_openhands_v1_samples_match_the_hand_counts(sample: dict[str, Any]) -> None:
    path = FORMATS / sample["path"]
    assert detect(path).name == "openhands-v1"
    (conv,) = import_path(path)
    want = sample["expected"]
    text = [m for m in conv.messages if m.meta.get("kind_v1") == "MessageEvent"]
    assert within(len(text), want["messages"])
    s = stats(conv.messages)
    assert within(s.tool_calls, want["tool_calls"]) and s.tool_results == s.tool_calls
    assert tool_pairing(conv.path()).ok
    assert conv.meta.get("text_kept", 1.0) >= 0.9, "the import keeps the file's text"
    assert conv.messages[0].role == "system" and conv.meta["tools"]


@needs_samples
def test_base_state_gives_the_id_and_model_but_never_the_key() -> None:
    (conv,) = import_path(FORMATS / "openhands-v1" / "oh-sdk-cd945624")
    assert conv.id == "cd945624-03b9-487e-bdd4-018e3f531dfd"
    assert conv.meta["model"] == "openai/gpt-4o-mini"
    assert "api_key" not in json.dumps(dict(conv.meta), default=str)


@needs_samples
def test_reasoning_is_kept_as_thinking() -> None:
    (conv,) = import_path(FORMATS / "openhands-v1" / "oh-cli-confirmation_mode")
    thinking = [b for m in conv.messages for b in m.blocks if isinstance(b, ThinkingBlock)]
    assert len(thinking) == 3 and all(t.signature for t in thinking)


def _event(folder: Path, i: int, ev: dict[str, Any]) -> None:
    (folder / f"event-{i:05d}-{'0' * 8}-0000-0000-0000-{i:012d}.json").write_text(
        json.dumps(ev), encoding="utf-8"
    )


def test_rejections_errors_and_unknown_events_are_results_or_warnings(tmp_path: Path) -> None:
    conv_dir = tmp_path / "c1"
    (conv_dir / "events").mkdir(parents=True)
    (conv_dir / "base_state.json").write_text(json.dumps({"id": "c1"}), encoding="utf-8")
    ev = conv_dir / "events"
    _event(
        ev,
        0,
        {
            "kind": "MessageEvent",
            "id": "m",
            "source": "user",
            "llm_message": {"role": "user", "content": [{"type": "text", "text": "go"}]},
        },
    )
    for i, (aid, call) in enumerate([("a1", "c-1"), ("a2", "c-2")], start=1):
        _event(
            ev,
            i,
            {
                "kind": "ActionEvent",
                "id": aid,
                "source": "agent",
                "tool_name": "terminal",
                "tool_call_id": call,
                "llm_response_id": "r1",
                "tool_call": {"id": call, "name": "terminal", "arguments": '{"command": "ls"}'},
            },
        )
    _event(
        ev,
        3,
        {
            "kind": "UserRejectObservation",
            "id": "o1",
            "action_id": "a1",
            "tool_name": "terminal",
            "tool_call_id": "c-1",
            "rejection_reason": "no",
        },
    )
    _event(
        ev,
        4,
        {
            "kind": "AgentErrorEvent",
            "id": "o2",
            "tool_name": "terminal",
            "tool_call_id": "c-2",
            "error": "boom",
        },
    )
    _event(ev, 5, {"kind": "ConversationStateUpdateEvent", "id": "s", "key": "x", "value": 1})
    _event(ev, 6, {"kind": "Mystery", "id": "q"})
    (conv,) = import_path(conv_dir)
    calls = [m for m in conv.messages if m.tool_calls()]
    assert len(calls) == 1 and len(calls[0].tool_calls()) == 2  # one response, two calls
    results = [r for m in conv.messages for r in m.tool_results()]
    assert [(r.call_id, r.is_error, r.text()) for r in results] == [
        ("c-1", True, "Action rejected: no"),
        ("c-2", True, "boom"),
    ]
    assert conv.meta["skipped"] == {"ConversationStateUpdateEvent": 1, "Mystery": 1}
    assert any("unknown event kind 'Mystery'" in w for w in conv.warnings)


def test_a_conversation_still_running_imports_its_complete_events(tmp_path: Path) -> None:
    folder = tmp_path / "c2"
    (folder / "events").mkdir(parents=True)
    msg = {
        "kind": "MessageEvent",
        "id": "m",
        "source": "user",
        "llm_message": {"role": "user", "content": [{"type": "text", "text": "go"}]},
    }
    _event(folder / "events", 0, msg)
    (folder / "events" / f"event-00001-{'0' * 8}-0000-0000-0000-{1:012d}.json").write_text(
        '{"kind": "MessageEvent", "id": "n", "llm_mess', encoding="utf-8"
    )
    (conv,) = import_path(folder)
    assert [m.text() for m in conv.messages] == ["go"]
    assert any("last event file is partial" in w for w in conv.warnings)
