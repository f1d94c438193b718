"""Codex exec --json, mini-swe-agent and SWE-agent importers, on small built files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from snapshot.errors import TranscriptError
from snapshot.transcript.formats import ImportOptions, detect, import_path
from snapshot.transcript.formats import mini_swe_agent as msa
from snapshot.transcript.formats import swe_agent as swe
from snapshot.transcript.model import TextBlock, ThinkingBlock, ToolCall, ToolResult, tool_pairing


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SNAPSHOT_NO_PROGRESS", "1")


def write_jsonl(path: Path, records: list[Any]) -> Path:
    path.write_text(
        "".join(
            (r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in records
        ),
        encoding="utf-8",
    )
    return path


# --- Codex exec --json -----------------------------------------------------------------


def cmd(event: str, item_id: str, command: str, **kw: Any) -> dict[str, Any]:
    item = {"id": item_id, "type": "command_execution", "command": command, **kw}
    return {"type": event, "item": item}


def codex_log(tmp_path: Path, *events: Any) -> Path:
    return write_jsonl(
        tmp_path / "run_agent_log_raw.txt",
        [{"type": "thread.started", "thread_id": "th-1"}, {"type": "turn.started"}, *events],
    )


def test_codex_item_is_call_and_result_linked_by_id(tmp_path: Path) -> None:
    (tmp_path / "run_prompt.txt").write_text("fix the bug", encoding="utf-8")
    log = codex_log(
        tmp_path,
        cmd("item.started", "item_0", "ls", aggregated_output="", status="in_progress"),
        cmd("item.started", "item_1", "cat x", aggregated_output="", status="in_progress"),
        cmd(
            "item.completed",
            "item_1",
            "cat x",
            aggregated_output="no x",
            exit_code=1,
            status="failed",
        ),
        cmd(
            "item.completed",
            "item_0",
            "ls",
            aggregated_output="a\nb\n",
            exit_code=0,
            status="completed",
        ),
        {"type": "item.completed", "item": {"id": "item_2", "type": "reasoning", "text": "think"}},
        {
            "type": "item.completed",
            "item": {
                "id": "item_3",
                "type": "file_change",
                "status": "completed",
                "changes": [{"path": "x.py", "kind": "add"}],
            },
        },
        {
            "type": "item.completed",
            "item": {"id": "item_4", "type": "agent_message", "text": "done"},
        },
        {"type": "turn.completed", "usage": {"input_tokens": 10, "output_tokens": 2}},
    )
    assert detect(log).name == "codex-exec-jsonl"
    [conv] = import_path(log)
    assert conv.id == "th-1"
    live = conv.path()
    assert live[0].role == "user" and live[0].text() == "fix the bug"
    calls = [b for m in live for b in m.blocks if isinstance(b, ToolCall)]
    results = [b for m in live for b in m.blocks if isinstance(b, ToolResult)]
    assert [c.id for c in calls] == ["item_0", "item_1", "item_3"]
    assert calls[0].input == {"command": "ls"}
    # Results sit where the items completed: item_1 before item_0.
    assert [r.call_id for r in results] == ["item_1", "item_0", "item_3"]
    assert results[0].is_error and not results[1].is_error
    assert results[1].text() == "a\nb\n"
    assert results[2].text() == "add x.py"
    thinking = [b for m in live for b in m.blocks if isinstance(b, ThinkingBlock)]
    assert thinking == [ThinkingBlock("think")]
    assert live[-1].text() == "done"
    assert tool_pairing(live).ok
    assert conv.meta["usage"] == [{"input_tokens": 10, "output_tokens": 2}]


def test_codex_started_item_without_completion_is_an_unanswered_call(tmp_path: Path) -> None:
    log = codex_log(
        tmp_path,
        cmd("item.started", "item_0", "sleep 999", aggregated_output="", status="in_progress"),
        '{"type": "item.completed", "item": ',
        {"type": "mystery.event"},
    )
    [conv] = import_path(log, format="codex-exec-jsonl")
    assert any("'item_0' has no result" in w for w in conv.warnings)
    assert any(f"{log}:4: malformed JSON" in w for w in conv.warnings)
    assert any("mystery.event: 1" in w for w in conv.warnings)
    assert any("first user turn is missing" in w for w in conv.warnings)


def test_codex_item_ids_restarting_in_a_second_turn_stay_distinct(tmp_path: Path) -> None:
    log = codex_log(
        tmp_path,
        cmd(
            "item.completed", "item_0", "ls", aggregated_output="1", exit_code=0, status="completed"
        ),
        {"type": "turn.started"},
        cmd(
            "item.completed",
            "item_0",
            "pwd",
            aggregated_output="/",
            exit_code=0,
            status="completed",
        ),
    )
    [conv] = import_path(log)
    ids = [m.id for m in conv.messages]
    assert len(ids) == len(set(ids))
    assert tool_pairing(conv.path()).ok
    assert len([b for m in conv.messages for b in m.tool_calls()]) == 2


def test_codex_mcp_and_web_search_items(tmp_path: Path) -> None:
    mcp = {
        "id": "item_0",
        "type": "mcp_tool_call",
        "server": "fs",
        "tool": "read",
        "arguments": {"path": "/x"},
        "result": None,
        "error": None,
        "status": "in_progress",
    }
    done = {**mcp, "error": {"message": "File not found"}, "status": "failed"}
    search = {"id": "item_1", "type": "web_search", "query": "rust async"}
    log = codex_log(
        tmp_path,
        {"type": "item.started", "item": mcp},
        {"type": "item.completed", "item": done},
        {"type": "item.completed", "item": search},
    )
    [conv] = import_path(log)
    calls = [b for m in conv.messages for b in m.tool_calls()]
    assert [(c.name, dict(c.input)) for c in calls] == [
        ("fs.read", {"path": "/x"}),
        ("web_search", {"query": "rust async"}),
    ]
    results = [b for m in conv.messages for b in m.tool_results()]
    assert results[0].is_error and results[0].text() == "File not found"
    assert tool_pairing(conv.path()).ok


def test_codex_refuses_a_file_without_codex_events(tmp_path: Path) -> None:
    log = write_jsonl(tmp_path / "x.jsonl", [{"type": "user", "message": {}}])
    with pytest.raises(TranscriptError, match="no Codex exec events"):
        import_path(log, format="codex-exec-jsonl")


# --- mini-swe-agent -----------------------------------------------------------------------


def mini_traj(tmp_path: Path, messages: list[dict[str, Any]], **extra: Any) -> Path:
    doc = {
        "info": {"exit_status": "Submitted", "submission": "diff"},
        "messages": messages,
        "trajectory_format": "mini-swe-agent-1",
        "instance_id": "repo__repo-1",
        **extra,
    }
    path = tmp_path / "repo__repo-1.traj.json"
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return path


def bash(thought: str, command: str) -> str:
    return f"THOUGHT: {thought}\n\n```bash\n{command}\n```"


def test_mini_swe_agent_pairs_each_bash_block_with_the_next_user_message(tmp_path: Path) -> None:
    reasoning = {"response": {"choices": [{"message": {"reasoning": "**Plan** look first"}}]}}
    path = mini_traj(
        tmp_path,
        [
            {"role": "system", "content": "You are a shell agent."},
            {"role": "user", "content": "<pr_description>fix</pr_description>"},
            {"role": "assistant", "content": bash("list", "ls -R"), "extra": reasoning},
            {"role": "user", "content": "<returncode>0</returncode>\n<output>\na\n</output>"},
            {"role": "assistant", "content": "Two!\n```bash\nls\n```\n```bash\npwd\n```"},
            {"role": "user", "content": "Please always provide EXACTLY ONE action"},
            {"role": "assistant", "content": bash("check", "cat missing")},
            {"role": "user", "content": "<returncode>1</returncode>\n<output>\nnope\n</output>"},
        ],
    )
    assert detect(path).name == "mini-swe-agent-1"
    [conv] = import_path(path)
    assert conv.id == "repo__repo-1"
    live = conv.path()
    first = live[2]
    assert isinstance(first.blocks[0], ThinkingBlock)
    assert first.blocks[1] == TextBlock(bash("list", "ls -R"))  # text kept whole
    assert first.blocks[2] == ToolCall("call-1", "bash", {"command": "ls -R"})
    [res] = live[3].tool_results()
    assert res.call_id == "call-1" and not res.is_error
    assert live[4].tool_calls() == () and live[4].meta["bash_blocks"] == 2
    assert live[5].tool_results() == () and live[5].text().startswith("Please")
    assert live[6].tool_calls()[0].id == "call-2"
    assert live[7].tool_results()[0].is_error  # returncode 1
    assert conv.meta["format_errors"] == 1 and conv.meta["exit_status"] == "Submitted"
    assert tool_pairing(live).ok
    assert conv.warnings == ()


def test_mini_swe_agent_marker_at_the_end_is_found(tmp_path: Path) -> None:
    huge = [{"role": "user", "content": "z" * 200_000}]
    path = mini_traj(tmp_path, huge)
    head = path.read_bytes()[:65536]
    assert b"trajectory_format" not in head
    assert msa.score(path, head) == 1.0


def test_mini_swe_agent_last_call_without_output_is_reported(tmp_path: Path) -> None:
    path = mini_traj(
        tmp_path,
        [{"role": "user", "content": "task"}, {"role": "assistant", "content": bash("go", "make")}],
    )
    [conv] = import_path(path)
    assert any("'call-1' has no result" in w for w in conv.warnings)


def test_mini_swe_agent_malformed_document_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.traj.json"
    path.write_text('{"messages": [\n  {"role": "user",\n  "content": }\n]}', encoding="utf-8")
    with pytest.raises(TranscriptError, match=r"bad\.traj\.json:3: malformed JSON"):
        import_path(path, format="mini-swe-agent-1")


def test_mini_swe_agent_invalid_utf8_is_reported(tmp_path: Path) -> None:
    path = mini_traj(tmp_path, [{"role": "user", "content": "QQ"}])
    path.write_bytes(path.read_bytes().replace(b"QQ", b"\xc3\x28"))
    [conv] = import_path(path)
    assert "\ufffd" in conv.messages[0].text()
    assert any("invalid UTF-8" in w for w in conv.warnings)


def test_mini_swe_agent_wrong_shape_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "x.traj.json"
    path.write_text('{"trajectory_format": "mini-swe-agent-1"}', encoding="utf-8")
    with pytest.raises(TranscriptError, match="'messages' list"):
        import_path(path)


# --- SWE-agent ------------------------------------------------------------------------------


def traj(tmp_path: Path, history: list[dict[str, Any]], name: str = "run.traj") -> Path:
    path = tmp_path / name
    doc = {"environment": "x", "trajectory": [], "history": history, "info": {"exit_status": "ok"}}
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_swe_agent_old_runs_pair_action_and_next_user_message(tmp_path: Path) -> None:
    path = traj(
        tmp_path,
        [
            {"role": "system", "content": "SETTING", "agent": "primary"},
            {"role": "user", "content": "demo text", "agent": "primary", "is_demo": True},
            {"role": "user", "content": "ISSUE: fix it", "agent": "primary"},
            {
                "role": "assistant",
                "content": "look\n```\nls\n```",
                "thought": "look",
                "action": "ls\n",
                "agent": "primary",
            },
            {"role": "user", "content": "a.py\n(Open file: n/a)", "agent": "primary"},
            {
                "role": "assistant",
                "content": "done\n```\nsubmit\n```",
                "thought": "done",
                "action": "submit\n",
                "agent": "primary",
            },
        ],
    )
    assert detect(path).name == "swe-agent-traj"
    [conv] = import_path(path)
    assert conv.id == "run" and conv.agent == "main"
    live = conv.path()
    assert live[1].meta["demo"] is True and live[1].tool_results() == ()
    assert live[2].tool_results() == ()  # the task, not a result
    assert live[3].tool_calls() == (ToolCall("call-1", "bash", {"command": "ls\n"}),)
    assert live[3].text() == "look\n```\nls\n```"
    assert live[4].tool_results()[0].call_id == "call-1"
    # The final submit has no observation in the history: reported, not invented.
    assert any("'call-2' has no result" in w for w in conv.warnings)
    assert conv.meta["exit_status"] == "ok"


def test_swe_agent_function_calling_runs_pair_by_id(tmp_path: Path) -> None:
    call = {
        "function": {"arguments": '{"filename":"r.py"}', "name": "create"},
        "id": "call_abc",
        "type": "function",
    }
    path = traj(
        tmp_path,
        [
            {
                "role": "system",
                "content": "SETTING",
                "agent": "main",
                "message_type": "system_prompt",
            },
            {"role": "user", "content": "ISSUE", "agent": "main", "message_type": "observation"},
            {
                "role": "assistant",
                "content": "create it",
                "thought": "create it",
                "action": "create r.py",
                "agent": "main",
                "tool_calls": [call],
            },
            {
                "role": "tool",
                "content": "[File: r.py]",
                "agent": "main",
                "tool_call_ids": ["call_abc"],
            },
            # Some versions write these lists as Python reprs.
            {
                "role": "assistant",
                "content": "again",
                "agent": "main",
                "tool_calls": repr([{**call, "id": "call_def"}]),
                "action": "create r.py",
            },
            {
                "role": "tool",
                "content": "[exists]",
                "agent": "main",
                "tool_call_ids": "['call_def']",
            },
        ],
    )
    [conv] = import_path(path)
    live = conv.path()
    assert live[2].tool_calls() == (ToolCall("call_abc", "create", {"filename": "r.py"}),)
    assert live[3].role == "tool" and live[3].tool_results()[0].call_id == "call_abc"
    assert live[4].tool_calls()[0].id == "call_def"
    assert live[5].tool_results()[0].text() == "[exists]"
    assert tool_pairing(live).ok and conv.warnings == ()


def test_swe_agent_two_agents_become_two_conversations(tmp_path: Path) -> None:
    path = traj(
        tmp_path,
        [
            {"role": "system", "content": "main sys", "agent": "primary"},
            {"role": "system", "content": "summarizer sys", "agent": "summarizer"},
            {"role": "user", "content": "sum this", "agent": "summarizer"},
        ],
    )
    convs = import_path(path)
    assert [c.agent for c in convs] == ["main", "summarizer"]
    assert {c.id for c in convs} == {"run"}
    assert swe.load(path, ImportOptions(select={"agent": "summarizer"}))[0].agent == "summarizer"


def test_swe_agent_sniffs_only_traj_files(tmp_path: Path) -> None:
    path = traj(tmp_path, [{"role": "user", "content": "x"}], name="run.json")
    assert swe.score(path, path.read_bytes()) == 0.0
    with pytest.raises(TranscriptError, match="'history' list"):
        import_path(write_jsonl(tmp_path / "y.traj", [{"a": 1}]), format="swe-agent-traj")
