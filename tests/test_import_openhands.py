"""OpenHands event streams: pairing through cause and tool_call_id, output.jsonl instances."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from snapshot.errors import TranscriptError
from snapshot.transcript.formats import detect, import_path
from snapshot.transcript.model import stats, tool_pairing


def _corpus() -> Path:
    env = os.environ.get("SNAPSHOT_CORPUS")
    root = Path(env) if env else Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
    if not (root / "benchmark.manifest.json").is_file():
        pytest.skip(f"corpus not found at {root} (set SNAPSHOT_CORPUS)")
    return root


def _fc_action(
    eid: int, call_id: str, response_id: str, command: str, content: str = ""
) -> dict[str, Any]:
    return {
        "id": eid,
        "source": "agent",
        "action": "run",
        "message": f"Running command: {command}",
        "args": {"command": command, "thought": "stale thought", "blocking": False},
        "tool_call_metadata": {
            "function_name": "execute_bash",
            "tool_call_id": call_id,
            "model_response": {
                "id": response_id,
                "choices": [
                    {
                        "message": {
                            "role": "assistant",
                            "content": content,
                            "tool_calls": [
                                {
                                    "id": c,
                                    "type": "function",
                                    "function": {
                                        "name": "execute_bash",
                                        "arguments": json.dumps({"command": f"cmd-{c}"}),
                                    },
                                }
                                for c in ("call_1", "call_2")
                            ],
                        }
                    }
                ],
            },
            "total_calls_in_response": 2,
        },
    }


def _events() -> list[dict[str, Any]]:
    return [
        {
            "id": 0,
            "source": "agent",
            "action": "system",
            "args": {
                "content": "You are OpenHands.",
                "tools": [
                    {
                        "type": "function",
                        "function": {"name": "execute_bash", "parameters": {"type": "object"}},
                    }
                ],
            },
        },
        {
            "id": 1,
            "source": "user",
            "action": "message",
            "args": {"content": "fix the bug", "image_urls": None},
        },
        {"id": 2, "source": "user", "action": "recall", "args": {"query": "fix the bug"}},
        {
            "id": 3,
            "source": "environment",
            "observation": "recall",
            "cause": 2,
            "content": "Added workspace context",
            "extras": {"repo_instructions": "Use make test."},
        },
        {
            "id": 4,
            "source": "environment",
            "observation": "agent_state_changed",
            "content": "",
            "extras": {"agent_state": "running"},
        },
        _fc_action(5, "call_1", "resp-1", "ls", content="Looking around."),
        _fc_action(6, "call_2", "resp-1", "pwd", content="Looking around."),
        {
            "id": 7,
            "source": "agent",
            "observation": "run",
            "cause": 6,
            "content": "/work",
            "extras": {"metadata": {"suffix": "\n[exit 0]"}},
        },
        {
            "id": 8,
            "source": "agent",
            "observation": "run",
            "cause": 5,
            "content": "a b",
            "extras": {},
        },
        {
            "id": 9,
            "source": "agent",
            "observation": "error",
            "content": "Parameter 'command' is expected",
            "extras": {},
        },
        {
            "id": 10,
            "source": "agent",
            "action": "read",
            "args": {"path": "/x", "thought": "read it"},
        },
        {
            "id": 11,
            "source": "agent",
            "observation": "error",
            "cause": 10,
            "content": "no such file",
        },
        {"id": 12, "source": "agent", "action": "finish", "args": {"final_thought": "done"}},
        {"id": 13, "source": "agent", "weird": True},
    ]


def test_events_become_messages_following_openhands_prompt_building(tmp_path: Path) -> None:
    p = tmp_path / "traj.json"
    p.write_text(json.dumps(_events()), encoding="utf-8")
    assert detect(p).name == "openhands-events"
    (conv,) = import_path(p)
    path = conv.path()
    roles = [m.role for m in path]
    assert roles == [
        "system",
        "user",
        "user",
        "assistant",
        "tool",
        "tool",
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    assert path[2].meta["kind"] == "recall" and "Use make test." in path[2].text()
    # Two calls of one model response: one assistant message, the model's own text and arguments.
    calls = path[3].tool_calls()
    assert [c.id for c in calls] == ["call_1", "call_2"]
    assert [dict(c.input) for c in calls] == [{"command": "cmd-call_1"}, {"command": "cmd-call_2"}]
    assert path[3].text() == "Looking around."
    # Results follow cause → action id → call id, whatever their order.
    assert path[4].tool_results()[0].call_id == "call_2"
    assert path[4].tool_results()[0].text() == "/work\n[exit 0]"
    assert path[5].tool_results()[0].call_id == "call_1"
    # An error with no cause is what OpenHands shows the model as user text.
    assert path[6].meta["kind"] == "observation"
    # Non-function-calling action: id from the event, thought as text, error flagged.
    assert path[7].tool_calls()[0].id == "oh-10" and path[7].text() == "read it"
    result = path[8].tool_results()[0]
    assert result.call_id == "oh-10" and result.is_error
    assert conv.meta["tools"][0]["function"]["name"] == "execute_bash"
    assert conv.meta["skipped"] == {
        "action recall": 1,
        "observation agent_state_changed": 1,
        "event without action or observation": 1,
    }
    assert any("event 13: neither an action nor an observation" in w for w in conv.warnings)
    # The final finish call has no result: reported, not hidden.
    assert any("without a result (oh-12)" in w for w in conv.warnings)


def _jsonl(tmp_path: Path) -> Path:
    p = tmp_path / "output.jsonl"
    lines = [
        json.dumps({"instance_id": "a__b-1", "instruction": "x", "history": _events()[:2]}),
        "{torn line",
        json.dumps({"instance_id": "a__b-2", "history": _events()}),
        json.dumps({"no_history": True}),
    ]
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


def test_output_jsonl_imports_every_instance_and_reports_bad_lines(tmp_path: Path) -> None:
    p = _jsonl(tmp_path)
    assert detect(p).name == "openhands-events"
    convs = import_path(p)
    assert [c.id for c in convs] == ["a__b-1", "a__b-2"]
    for c in convs:
        assert any(f"{p}:2: malformed JSON line skipped" in w for w in c.warnings)
        assert any(f"{p}:4: not an OpenHands instance" in w for w in c.warnings)
    (one,) = import_path(p, select={"instance_id": "a__b-2"})
    assert one.meta["line"] == 3
    (by_line,) = import_path(p, select={"line": "1"})
    assert by_line.id == "a__b-1"
    with pytest.raises(TranscriptError, match="no conversation matches"):
        import_path(p, select={"instance_id": "nope"})


def test_old_logs_without_ids_pair_by_position(tmp_path: Path) -> None:
    history = [
        [{"action": "message", "content": "task"}, {"observation": "null", "content": ""}],
        [
            {"action": "run", "command": "ls", "thought": "look"},
            {"observation": "run", "content": "a", "exit_code": 0},
        ],
        {"action": "run_ipython", "code": "print(1)", "thought": ""},
        {"observation": "run_ipython", "content": "1"},
        {"action": "finish", "outputs": {}, "thought": "bye"},
    ]
    p = tmp_path / "old.jsonl"
    p.write_text(json.dumps({"issue": {"number": 5}, "history": history}) + "\n", encoding="utf-8")
    (conv,) = import_path(p, format="openhands-events")
    roles = [m.role for m in conv.path()]
    assert roles == ["user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert conv.path()[1].tool_calls()[0].input == {"command": "ls"}
    assert conv.path()[4].tool_results()[0].call_id == conv.path()[3].tool_calls()[0].id


def test_images_in_messages_and_browser_screenshots(tmp_path: Path) -> None:
    import base64
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (12, 8)).save(buf, format="PNG")
    b64 = base64.b64encode(buf.getvalue()).decode()
    events = [
        {
            "id": 0,
            "source": "user",
            "action": "message",
            "args": {
                "content": "see",
                "image_urls": [f"data:image/png;base64,{b64}", "data:image/png;base64,AAAA"],
            },
        },
        {
            "id": 1,
            "source": "agent",
            "action": "browse",
            "args": {"url": "http://x", "thought": "open"},
        },
        {
            "id": 2,
            "source": "agent",
            "observation": "browse",
            "cause": 1,
            "content": "page text",
            "extras": {"screenshot": b64},
        },
    ]
    p = tmp_path / "browse.json"
    p.write_text(json.dumps(events), encoding="utf-8")
    (conv,) = import_path(p)
    first = conv.path()[0]
    assert [type(b).__name__ for b in first.blocks] == ["TextBlock", "ImageBlock", "TextBlock"]
    assert any("image dropped" in w for w in conv.warnings)
    (shot,) = conv.path()[2].tool_results()[0].images()
    assert (shot.width, shot.height, shot.origin) == (12, 8, "screenshot")


def test_repeated_event_ids_still_give_unique_message_ids(tmp_path: Path) -> None:
    events = [
        {"id": 1, "source": "user", "action": "message", "args": {"content": "a"}},
        {"id": 1, "source": "agent", "action": "message", "args": {"content": "b"}},
    ]
    p = tmp_path / "dup.json"
    p.write_text(json.dumps(events), encoding="utf-8")
    (conv,) = import_path(p)
    assert [m.text() for m in conv.path()] == ["a", "b"]
    assert len({m.id for m in conv.messages}) == 2


def test_not_events_is_a_clear_error(tmp_path: Path) -> None:
    p = tmp_path / "x.json"
    p.write_text(json.dumps({"hello": 1}), encoding="utf-8")
    with pytest.raises(TranscriptError, match="without a 'history' list"):
        import_path(p, format="openhands-events")
    q = tmp_path / "bad.jsonl"
    q.write_text("not json\n", encoding="utf-8")
    with pytest.raises(TranscriptError, match=r"bad\.jsonl:1: malformed JSON"):
        import_path(q, format="openhands-events")


# --- the corpus -------------------------------------------------------------------------------


@pytest.mark.corpus
def test_corpus_instances_match_the_manifest_but_for_the_recall_event() -> None:
    """Counts differ from the manifest by exactly the ``recall`` action.

    The manifest counted every event as a message and the environment's
    workspace ``recall`` action as a tool call. The model never sees that
    action (OpenHands drops it when building the prompt; only the recall
    observation's context reaches the model, kept here as user text), so it
    is skipped: one message and one tool call fewer, and its query (the task
    text repeated) is not counted in chars.
    """
    root = _corpus()
    entries = [
        e
        for e in json.loads((root / "benchmark.manifest.json").read_text())
        if e["format"] == "openhands-events"
    ]
    assert len(entries) == 3
    for e in entries:
        (conv,) = import_path(root / e["path"], select=e["select"])
        s = stats(conv.path())
        assert conv.meta["skipped"] == {"action recall": 1}
        assert s.messages == e["messages"] - 1
        assert s.tool_calls == e["tool_calls"] - 1
        assert abs(s.tool_result_chars - e["tool_result_chars"]) <= 0.03 * e["tool_result_chars"]
        assert 0.85 * e["chars"] <= s.chars <= e["chars"]
        pairing = tool_pairing(conv.path())
        assert not pairing.orphan_results
        # Only a final finish (which never gets an observation) may stay open.
        for call_id in pairing.unanswered_calls:
            last = conv.path()[-1]
            assert [c.id for c in last.tool_calls()] == [call_id] and last.tool_calls()[
                0
            ].name == "finish"


@pytest.mark.corpus
def test_every_corpus_openhands_file_imports() -> None:
    root = _corpus() / "openhands"
    total = 0
    for p in sorted(root.glob("*.json*")):
        assert detect(p).name == "openhands-events", p
        for conv in import_path(p):
            total += 1
            assert conv.path(), p
            assert not tool_pairing(conv.path()).orphan_results, p
    assert total == 9  # the README's count
