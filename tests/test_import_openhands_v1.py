"""OpenHands V1 conversation folders: base_state.json + events/, and the CLI's flat event folders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from format_samples import FORMATS, manifest, needs_samples, within

from snapshot.transcript.formats import detect, import_path
from snapshot.transcript.model import ThinkingBlock, stats, tool_pairing

SAMPLES = manifest("openhands-v1")


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


def _user(eid: str, text: str) -> dict[str, Any]:
    return {
        "kind": "MessageEvent",
        "id": eid,
        "source": "user",
        "llm_message": {"role": "user", "content": [{"type": "text", "text": text}]},
    }


def _call(eid: str, call: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": "ActionEvent",
        "id": eid,
        "source": "agent",
        "tool_name": tool,
        "tool_call_id": call,
        "llm_response_id": f"r-{eid}",
        "tool_call": {"id": call, "name": tool, "arguments": json.dumps(args)},
    }


def _result(eid: str, action: str, call: str, tool: str, text: str, **obs: Any) -> dict[str, Any]:
    return {
        "kind": "ObservationEvent",
        "id": eid,
        "source": "environment",
        "tool_name": tool,
        "tool_call_id": call,
        "action_id": action,
        "observation": {"content": [{"type": "text", "text": text}], "is_error": False, **obs},
    }


def test_task_sub_conversations_are_their_own_agents_and_delegations_are_reported(
    tmp_path: Path,
) -> None:
    """The SDK's layouts (software-agent-sdk tools/task/manager.py, tools/delegate/impl.py).

    A ``task`` call's sub-agent lives in ``subagents/<conversation id hex>/``
    and starts with the call's prompt; a ``delegate`` call's sub-agents are
    never written, and a task run without persistence leaves no folder.
    """
    parent = tmp_path / "8f1c"
    (parent / "events").mkdir(parents=True)
    (parent / "base_state.json").write_text(json.dumps({"id": "8f1c"}), encoding="utf-8")
    prompt = "Find where the config file is parsed and report the function name."
    task_obs = {"task_id": "task_00000001", "subagent": "code-explorer", "status": "completed"}
    for i, ev in enumerate(
        [
            _user("u", "fix the config bug"),
            _call("a1", "c-task", "task", {"prompt": prompt, "subagent_type": "code-explorer"}),
            _result("o1", "a1", "c-task", "task", "parse_config in cfg.py", **task_obs),
            _call("a2", "c-del", "delegate", {"command": "delegate", "tasks": {"tests": "run"}}),
            _result("o2", "a2", "c-del", "delegate", "Completed delegation of 1 tasks"),
            _call("a3", "c-lost", "task", {"prompt": "a task run in a temp dir"}),
            _result("o3", "a3", "c-lost", "task", "done", **task_obs),
        ]
    ):
        _event(parent / "events", i, ev)
    sub = parent / "subagents" / "0b2e7f0c9d1a4c3e8f6a5b4c3d2e1f00"
    (sub / "events").mkdir(parents=True)
    (sub / "base_state.json").write_text(json.dumps({"id": "0b2e7f0c"}), encoding="utf-8")
    for i, ev in enumerate(
        [
            _user("su", prompt),
            _call("sa", "s-1", "terminal", {"command": "grep -rn parse cfg.py"}),
            _result("so", "sa", "s-1", "terminal", "12: def parse_config(path):"),
        ]
    ):
        _event(sub / "events", i, ev)

    main, child = import_path(parent)
    assert (main.agent, child.agent) == ("main", sub.name)
    assert child.id == main.id == "8f1c"
    assert child.meta["task_call"] == "c-task" and child.meta["parent_conversation"] == "8f1c"
    assert tool_pairing(child.path()).ok and stats(child.messages).tool_calls == 1
    assert stats(main.messages).tool_calls == 3  # the calls themselves stay in the parent
    assert main.meta["unlinked_delegations"] == 2
    assert any("delegate call c-del (sub-agents tests)" in w for w in main.warnings)
    assert any("task call c-lost" in w for w in main.warnings)
    assert not any("c-task" in w for w in main.warnings)


def test_a_sub_conversation_no_call_started_is_imported_and_reported(tmp_path: Path) -> None:
    parent = tmp_path / "p"
    (parent / "events").mkdir(parents=True)
    _event(parent / "events", 0, _user("u", "hello"))
    sub = parent / "subagents" / "ab12"
    (sub / "events").mkdir(parents=True)
    _event(sub / "events", 0, _user("su", "an orphan task"))
    _, child = import_path(parent)
    assert "task_call" not in child.meta
    assert any("imported unlinked" in w for w in child.warnings)
