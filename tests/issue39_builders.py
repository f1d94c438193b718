"""Builders of the small fixtures of issue 39 (written here, no third-party text).

Each returns the records of one file; :func:`write` puts them in a folder as
the harness writes them. ``tests/data/issue39/`` holds what these builders
write (test_issue39_fixtures checks the committed files are theirs).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

Rec = dict[str, Any]


def _cc(kind: str, uuid: str, parent: str | None, content: Any, **extra: Any) -> Rec:
    role = "assistant" if kind == "assistant" else "user"
    msg: Rec = {"role": role, "content": content}
    if kind == "assistant":
        msg.update(id=f"msg_{uuid}", model="claude-fixture")
    return {
        "type": kind,
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": "s-fixture",
        "version": "2.1.180",
        "timestamp": f"2026-12-01T00:00:{len(uuid):02d}Z",
        "message": msg,
        **extra,
    }


def _use(call: str, name: str, **args: Any) -> list[Rec]:
    return [{"type": "tool_use", "id": call, "name": name, "input": args}]


def _res(call: str, text: str) -> list[Rec]:
    return [{"type": "tool_result", "tool_use_id": call, "content": text}]


def claude_code_queued() -> list[Rec]:
    """A 2.1 turn with a prompt typed mid-turn and a background task's notification."""
    note = "<task-notification>\n<task-id>bg1</task-id>\n<status>completed</status>\n</task-notification>"
    return [
        _cc("user", "u1", None, "count the fixture lines"),
        _cc("assistant", "a1", "u1", _use("t1", "Bash", command="wc -l fixture.txt")),
        {"type": "queue-operation", "operation": "enqueue", "content": "no wait, count words"},
        _cc("user", "r1", "a1", _res("t1", "12 fixture.txt")),
        {
            "type": "attachment",
            "uuid": "q1",
            "parentUuid": "r1",
            "sessionId": "s-fixture",
            "attachment": {
                "type": "queued_command",
                "prompt": "no wait, count words",
                "commandMode": "prompt",
                "origin": {"kind": "human"},
            },
        },
        {
            "type": "attachment",
            "uuid": "q2",
            "parentUuid": "q1",
            "sessionId": "s-fixture",
            "attachment": {
                "type": "queued_command",
                "prompt": note,
                "commandMode": "task-notification",
                "origin": {"kind": "task-notification"},
            },
        },
        {
            "type": "attachment",
            "uuid": "x1",
            "parentUuid": "q2",
            "sessionId": "s-fixture",
            "attachment": {"type": "todo_reminder", "content": []},
        },
        _cc("assistant", "a2", "x1", [{"type": "text", "text": "Counting words instead: 40."}]),
    ]


def claude_code_compacted_twice() -> list[Rec]:
    """A Claude Code session compacted twice: boundary + isCompactSummary each time."""
    out: list[Rec] = [
        _cc("user", "u1", None, "first task: list files"),
        _cc("assistant", "a1", "u1", _use("t1", "Bash", command="ls")),
        _cc("user", "r1", "a1", _res("t1", "one.txt two.txt")),
        _cc("assistant", "a2", "r1", [{"type": "text", "text": "Two files."}]),
    ]
    parent = "a2"
    for n in (1, 2):
        out.append(
            {
                "type": "system",
                "subtype": "compact_boundary",
                "uuid": f"b{n}",
                "parentUuid": None,
                "logicalParentUuid": parent,
                "sessionId": "s-fixture",
                "content": "Conversation compacted",
                "compactMetadata": {"trigger": "auto", "preTokens": 1000 * n},
            }
        )
        out.append(
            _cc(
                "user",
                f"sum{n}",
                f"b{n}",
                f"Summary {n}: the files were listed.",
                isCompactSummary=True,
            )
        )
        out.append(_cc("user", f"u{n + 1}0", f"sum{n}", f"task {n + 1}: read one.txt"))
        out.append(
            _cc("assistant", f"a{n + 1}0", f"u{n + 1}0", _use(f"t{n + 1}", "Read", path="one.txt"))
        )
        out.append(_cc("user", f"r{n + 1}0", f"a{n + 1}0", _res(f"t{n + 1}", f"contents {n}")))
        parent = f"r{n + 1}0"
    return out


def claude_code_inline_agent() -> list[Rec]:
    """A 2.1 session whose Task sub-agent is written inline as progress/agent_progress records."""
    inner_user = {
        "type": "user",
        "uuid": "iu1",
        "message": {"role": "user", "content": "find TODOs"},
    }
    inner_asst = {
        "type": "assistant",
        "uuid": "ia1",
        "message": {
            "role": "assistant",
            "id": "msg_ia1",
            "content": _use("it1", "Grep", pattern="TODO"),
        },
    }
    inner_res = {
        "type": "user",
        "uuid": "ir1",
        "message": {"role": "user", "content": _res("it1", "a.py:3: TODO")},
    }

    def progress(uuid: str, parent: str, inner: Rec) -> Rec:
        return {
            "type": "progress",
            "uuid": uuid,
            "parentUuid": parent,
            "sessionId": "s-fixture",
            "data": {"type": "agent_progress", "agentId": "ag1", "message": inner},
        }

    return [
        _cc("user", "u1", None, "look for TODOs with a sub-agent"),
        _cc("assistant", "a1", "u1", _use("task1", "Task", prompt="find TODOs")),
        progress("p1", "a1", inner_user),
        progress("p2", "p1", inner_asst),
        progress("p3", "p2", inner_res),
        _cc("user", "r1", "p3", _res("task1", "one TODO in a.py")),
        _cc("assistant", "a2", "r1", [{"type": "text", "text": "One TODO."}]),
    ]


def _codex(kind: str, payload: Rec, n: int) -> Rec:
    return {"timestamp": f"2026-12-01T00:{n:02d}:00Z", "type": kind, "payload": payload}


def _msg(role: str, text: str) -> Rec:
    part = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": part, "text": text}]}


def codex_compacted_twice() -> list[Rec]:
    """A Codex rollout compacted twice: once with a bare summary, once with replacement_history."""
    out: list[Rec] = [
        _codex("session_meta", {"id": "codex-fixture", "cwd": "/w", "cli_version": "0.140.0"}, 0),
        _codex("response_item", _msg("user", "first: list files"), 1),
        _codex(
            "response_item",
            {
                "type": "function_call",
                "name": "shell",
                "arguments": '{"command":["ls"]}',
                "call_id": "c1",
            },
            2,
        ),
        _codex(
            "response_item",
            {"type": "function_call_output", "call_id": "c1", "output": "one.txt"},
            3,
        ),
        _codex("compacted", {"message": "Summary 1: one file."}, 4),
        _codex("response_item", _msg("user", "second: read it"), 5),
        _codex(
            "response_item",
            {
                "type": "web_search_call",
                "action": {"type": "search", "query": "q1", "queries": ["q1", "q2"]},
            },
            6,
        ),
        _codex(
            "compacted",
            {
                "message": "",
                "replacement_history": [
                    _msg("user", "first: list files"),
                    _msg("user", "second: read it"),
                    {"type": "compaction", "encrypted_content": "gAAAA-fixture-opaque"},
                ],
            },
            7,
        ),
        _codex("response_item", _msg("user", "third: done?"), 8),
        _codex("response_item", _msg("assistant", "Done."), 9),
    ]
    return out


def pi_compacted_twice() -> list[Rec]:
    """A pi session compacted twice; each compaction keeps entries from its first kept one."""

    def msg(eid: str, parent: str | None, role: str, text: str) -> Rec:
        return {
            "type": "message",
            "id": eid,
            "parentId": parent,
            "timestamp": "2026-12-01T00:00:00Z",
            "message": {"role": role, "content": [{"type": "text", "text": text}]},
        }

    def compaction(eid: str, parent: str, n: int, first_kept: str) -> Rec:
        return {
            "type": "compaction",
            "id": eid,
            "parentId": parent,
            "timestamp": "2026-12-01T00:00:00Z",
            "summary": f"Summary {n}: earlier work.",
            "firstKeptEntryId": first_kept,
            "tokensBefore": 1000 * n,
        }

    return [
        {"type": "session", "version": 3, "id": "pi-fixture", "cwd": "/w"},
        msg("e1", None, "user", "first task"),
        msg("e2", "e1", "assistant", "first answer"),
        msg("e3", "e2", "user", "second task"),
        msg("e4", "e3", "assistant", "second answer"),
        compaction("c1", "e4", 1, "e3"),
        msg("e5", "c1", "user", "third task"),
        msg("e6", "e5", "assistant", "third answer"),
        compaction("c2", "e6", 2, "e5"),
        msg("e7", "c2", "user", "fourth task"),
        msg("e8", "e7", "assistant", "fourth answer"),
    ]


def openai_tool_output_parts() -> list[Rec]:
    """An OpenAI-chat trajectory whose results are tool_output parts and calls repeated as parts."""
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "shell", "arguments": '{"cmd":"ls"}'},
    }
    return [
        {"role": "user", "content": "list the folder"},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_call", "id": "call_1", "name": "shell", "arguments": '{"cmd":"ls"}'}
            ],
            "tool_calls": [call],
        },
        {
            "role": "tool",
            "tool_call_id": "call_1",
            "content": [{"type": "tool_output", "text": "a.txt\nb.txt"}],
        },
        {"role": "assistant", "content": "Two files."},
    ]


def gemini_stream_json() -> list[Rec]:
    """A Gemini CLI headless --output-format stream-json run: two calls, one failed."""
    t = "2026-12-01T00:00:00.000Z"
    return [
        {"type": "init", "timestamp": t, "session_id": "gem-fixture", "model": "gemini-fixture"},
        {"type": "message", "timestamp": t, "role": "user", "content": "make a folder and read it"},
        {
            "type": "tool_use",
            "timestamp": t,
            "tool_name": "run_shell_command",
            "tool_id": "run_shell_command_1",
            "parameters": {"command": "mkdir out"},
        },
        {
            "type": "tool_result",
            "timestamp": t,
            "tool_id": "run_shell_command_1",
            "status": "success",
            "output": "",
        },
        {
            "type": "tool_use",
            "timestamp": t,
            "tool_name": "read_file",
            "tool_id": "read_file_2",
            "parameters": {"file_path": "out/x"},
        },
        {
            "type": "tool_result",
            "timestamp": t,
            "tool_id": "read_file_2",
            "status": "error",
            "output": "File not found: out/x",
            "error": {"type": "file_not_found", "message": "File not found: out/x"},
        },
        {
            "type": "message",
            "timestamp": t,
            "role": "assistant",
            "content": "The folder ",
            "delta": True,
        },
        {
            "type": "message",
            "timestamp": t,
            "role": "assistant",
            "content": "is empty.",
            "delta": True,
        },
        {"type": "result", "timestamp": t, "status": "success", "stats": {"tool_calls": 2}},
    ]


def antigravity_steps() -> Rec:
    """An Antigravity trajectory: a user input, a planner response with two calls, their steps."""
    done = "CORTEX_STEP_STATUS_DONE"
    return {
        "steps": [
            {
                "type": "CORTEX_STEP_TYPE_USER_INPUT",
                "status": done,
                "userInput": {"userResponse": "show main.py"},
            },
            {
                "type": "CORTEX_STEP_TYPE_PLANNER_RESPONSE",
                "status": done,
                "plannerResponse": {
                    "thinking": "Look at the file, then run it.",
                    "response": "Reading it.",
                    "toolCalls": [
                        {
                            "id": "tc1",
                            "name": "view_file",
                            "argumentsJson": '{"AbsolutePath":"/w/main.py"}',
                        },
                        {
                            "id": "tc2",
                            "name": "run_command",
                            "argumentsJson": '{"CommandLine":"python main.py"}',
                        },
                    ],
                },
            },
            {
                "type": "CORTEX_STEP_TYPE_CHECKPOINT",
                "status": done,
                "checkpoint": {"intentOnly": True},
            },
            {
                "type": "CORTEX_STEP_TYPE_VIEW_FILE",
                "status": done,
                "metadata": {"toolCall": {"id": "tc1", "name": "view_file"}},
                "viewFile": {"absoluteUri": "file:///w/main.py", "content": "print('hi')"},
            },
            {
                "type": "CORTEX_STEP_TYPE_RUN_COMMAND",
                "status": done,
                "metadata": {"toolCall": {"id": "tc2", "name": "run_command"}},
                "runCommand": {"commandLine": "python main.py", "combinedOutput": {"full": "hi\n"}},
            },
            {
                "type": "CORTEX_STEP_TYPE_CODE_ACTION",
                "status": done,
                "codeAction": {"description": "add a docstring", "diff": '+"""Say hi."""'},
            },
            {
                "type": "CORTEX_STEP_TYPE_PLANNER_RESPONSE",
                "status": done,
                "plannerResponse": {"response": "It prints hi."},
            },
        ]
    }


def antigravity_transcript() -> list[Rec]:
    """The same kind of log as a JSONL transcript of flat steps (no prefix)."""
    return [
        {"step_index": 0, "type": "USER_INPUT", "status": "DONE", "content": "list the folder"},
        {
            "step_index": 1,
            "type": "PLANNER_RESPONSE",
            "status": "DONE",
            "content": "",
            "thinking": "List it.",
            "tool_calls": [{"id": "c1", "name": "list_dir", "args": {"DirectoryPath": "/w"}}],
        },
        {"step_index": 2, "type": "LIST_DIRECTORY", "status": "DONE", "content": "main.py\nREADME"},
        {"step_index": 3, "type": "PLANNER_RESPONSE", "status": "DONE", "content": "Two entries."},
    ]


FIXTURES: dict[str, Any] = {
    "claude-code-queued.jsonl": claude_code_queued,
    "claude-code-compacted-twice.jsonl": claude_code_compacted_twice,
    "claude-code-inline-agent.jsonl": claude_code_inline_agent,
    "codex-compacted-twice.jsonl": codex_compacted_twice,
    "pi-compacted-twice.jsonl": pi_compacted_twice,
    "openai-tool-output-parts.json": openai_tool_output_parts,
    "gemini-stream.jsonl": gemini_stream_json,
    "antigravity-trajectory.json": antigravity_steps,
    "antigravity-transcript.jsonl": antigravity_transcript,
}


def render(name: str) -> str:
    """The text of fixture ``name`` as its builder writes it."""
    value = FIXTURES[name]()
    if name.endswith(".jsonl"):
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in value)
    return json.dumps(value, ensure_ascii=False, indent=1) + "\n"


def write(folder: Path, name: str) -> Path:
    path = folder / name
    path.write_text(render(name), encoding="utf-8")
    return path


# --- opencode (Go) and Crush databases ---------------------------------------------


def zstd_raw_frame(data: bytes) -> bytes:
    """``data`` as a zstd frame of raw (stored) blocks: valid zstd, written without a library.

    Frame header: single segment, a 4-byte content size, no checksum; then
    blocks of at most 128 KiB, the last one flagged.
    """
    out = bytearray(b"\x28\xb5\x2f\xfd")
    out.append((2 << 6) | (1 << 5))  # FCS 4 bytes, single segment
    out += len(data).to_bytes(4, "little")
    step = 128 * 1024
    chunks = [data[i : i + step] for i in range(0, len(data), step)] or [b""]
    for i, chunk in enumerate(chunks):
        last = 1 if i == len(chunks) - 1 else 0
        out += (last | (0 << 1) | (len(chunk) << 3)).to_bytes(3, "little")
        out += chunk
    return bytes(out)


def _parts(*parts: tuple[str, Rec]) -> str:
    return json.dumps([{"type": t, "data": d} for t, d in parts])


def go_agent_db(path: Path, *, crush: bool, compress: bool = False) -> Path:
    """A small opencode (``crush=False``) or Crush database: one session with a call and its
    result, and a child session the agent tool started. ``compress``: Crush's zstd parts."""
    import sqlite3

    extra = ", provider TEXT, is_summary_message INTEGER" if crush else ""
    con = sqlite3.connect(path)
    con.executescript(
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT, "
        "message_count INTEGER, prompt_tokens INTEGER, completion_tokens INTEGER, cost REAL, "
        "created_at INTEGER);"
        "CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT, role TEXT, parts TEXT, "
        f"model TEXT, created_at INTEGER, finished_at INTEGER{extra});"
    )
    con.execute("INSERT INTO sessions VALUES ('s1', NULL, 'fixture', 4, 10, 5, 0.01, 1)")
    con.execute("INSERT INTO sessions VALUES ('call_agent', 's1', 'sub', 2, 1, 1, 0.0, 2)")
    rows = [
        ("m1", "s1", "user", _parts(("text", {"text": "list the folder"}))),
        (
            "m2",
            "s1",
            "assistant",
            _parts(
                ("reasoning", {"thinking": "Use ls."}),
                ("tool_call", {"id": "call_1", "name": "bash", "input": '{"command":"ls"}'}),
                ("finish", {"reason": "tool_use"}),
            ),
        ),
        (
            "m3",
            "s1",
            "tool",
            _parts(("tool_result", {"tool_call_id": "call_1", "name": "bash", "content": "a.txt"})),
        ),
        ("m4", "s1", "assistant", _parts(("text", {"text": "One file: a.txt."}))),
        ("c1", "call_agent", "user", _parts(("text", {"text": "sub task"}))),
        ("c2", "call_agent", "assistant", _parts(("text", {"text": "sub done"}))),
    ]
    for n, (mid, sid, role, parts) in enumerate(rows):
        value: str | bytes = parts
        if compress and mid == "m3":
            value = zstd_raw_frame(parts.encode())
        cols = [mid, sid, role, value, "model-fixture", n, n]
        if crush:
            cols += ["provider-fixture", 0]
        con.execute(f"INSERT INTO messages VALUES ({', '.join('?' * len(cols))})", cols)
    con.commit()
    con.close()
    return path
