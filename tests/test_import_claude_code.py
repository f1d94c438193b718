"""Claude Code session JSONL and Agent SDK stream-json importer, on small built files."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from snapshot.errors import TranscriptError
from snapshot.transcript.formats import ImportOptions, _common, detect, import_path
from snapshot.transcript.formats import claude_code as cc
from snapshot.transcript.model import (
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    stats,
    tool_pairing,
)

SESSION = "11111111-2222-3333-4444-555555555555"


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SNAPSHOT_NO_PROGRESS", "1")


def png(width: int = 3, height: int = 2) -> bytes:
    """A real (tiny) PNG, so header sniffing has something true to read."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = b"".join(b"\x00" + b"\xff" * width for _ in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def rec(kind: str, uuid: str, parent: str | None, **kw: Any) -> dict[str, Any]:
    r: dict[str, Any] = {
        "type": kind,
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": SESSION,
        "isSidechain": False,
        "timestamp": "2026-01-01T00:00:00Z",
    }
    r.update(kw)
    return r


def user(uuid: str, parent: str | None, content: Any, **kw: Any) -> dict[str, Any]:
    return rec("user", uuid, parent, message={"role": "user", "content": content}, **kw)


def asst(uuid: str, parent: str | None, api_id: str, *blocks: dict[str, Any]) -> dict[str, Any]:
    msg = {"id": api_id, "role": "assistant", "model": "claude-x", "content": list(blocks)}
    return rec("assistant", uuid, parent, message=msg)


def text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


def use(call_id: str, cmd: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": cmd}}


def result(call_id: str, out: Any, error: bool = False) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": out, "is_error": error}


def write_jsonl(path: Path, records: list[Any]) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for r in records:
            fh.write((r if isinstance(r, str) else json.dumps(r)) + "\n")
    return path


def parallel_session(tmp_path: Path) -> Path:
    """Claude Code 2.1 shape: one API message, two calls, results written between."""
    return write_jsonl(
        tmp_path / f"{SESSION}.jsonl",
        [
            {"type": "file-history-snapshot", "messageId": "x", "snapshot": {}},
            rec("progress", "p0", None, data={"type": "hook_progress"}),
            user("u1", "p0", "list two dirs"),
            asst("a1", "u1", "msg_A", {"type": "thinking", "thinking": "hm", "signature": "s"}),
            asst("a2", "a1", "msg_A", text("Looking.")),
            asst("a3", "a2", "msg_A", use("t1", "ls a")),
            rec("progress", "p1", "a3", data={"type": "hook_progress"}),
            asst("a4", "p1", "msg_A", use("t2", "ls b")),
            user("r1", "a3", [result("t1", "a.txt")], sourceToolAssistantUUID="a3"),
            user("r2", "a4", [result("t2", [text("b.txt"), text("c.txt")])]),
            asst("a5", "r2", "msg_B", text("Done.")),
            {"type": "summary", "summary": "Listing dirs", "leafUuid": "a5"},
        ],
    )


def test_records_of_one_api_message_merge_and_results_chain(tmp_path: Path) -> None:
    path = parallel_session(tmp_path)
    assert detect(path).name == "claude-code-jsonl"
    [conv] = import_path(path)
    assert conv.id == SESSION and conv.agent == "main"
    live = conv.path()
    assert [m.id for m in live] == ["u1", "a1", "r1", "r2", "a5"]
    assert len(conv.messages) == len(live)  # results are chained, not siblings
    merged = conv.get("a1")
    kinds = [type(b) for b in merged.blocks]
    assert kinds == [ThinkingBlock, TextBlock, ToolCall, ToolCall]
    assert merged.meta["api_id"] == "msg_A" and merged.meta["model"] == "claude-x"
    assert tool_pairing(live).ok
    second = conv.get("r2").tool_results()[0]
    assert second.text() == "b.txt\nc.txt"
    assert conv.meta["titles"] == ["Listing dirs"]
    assert any(
        "progress (UI only): 2" in w and "file-history-snapshot (UI only): 1" in w
        for w in conv.warnings
    )


def test_parent_links_are_kept_as_a_tree(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            user("u1", None, "first"),
            asst("a1", "u1", "m1", text("one")),
            user("u2", "a1", "try A"),
            asst("a2", "u2", "m2", text("A")),
            user("u3", "a1", "try B instead"),  # the user rewound and edited
            asst("a3", "u3", "m3", text("B")),
        ],
    )
    [conv] = import_path(path)
    assert conv.tip == "a3"
    assert [m.id for m in conv.path()] == ["u1", "a1", "u3", "a3"]
    assert {m.id for m in conv.children("a1")} == {"u2", "u3"}
    assert conv.get("a2").parent == "u2"  # the abandoned branch is kept


def test_compact_boundary_and_real_summary_are_kept(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            user("u1", None, "work"),
            asst("a1", "u1", "m1", text("worked")),
            rec(
                "system",
                "b1",
                None,
                subtype="compact_boundary",
                content="Conversation compacted",
                logicalParentUuid="a1",
                compactMetadata={"trigger": "auto", "preTokens": 1234},
            ),
            user("s1", "b1", "This session is being continued ... summary", isCompactSummary=True),
            asst("a2", "s1", "m2", text("continuing")),
        ],
    )
    [conv] = import_path(path)
    live = conv.path()
    assert [m.id for m in live] == ["u1", "a1", "b1", "s1", "a2"]
    boundary = conv.get("b1")
    assert boundary.role == "system"
    assert boundary.meta["kind"] == "compact_boundary"
    assert boundary.meta["pre_tokens"] == 1234 and boundary.meta["logical_parent"] == "a1"
    assert conv.get("s1").meta["compact_summary"] is True


def test_boundary_whose_logical_parent_was_pruned_follows_the_previous_message(
    tmp_path: Path,
) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            user("u1", None, "work"),
            asst("a1", "u1", "m1", text("worked")),
            rec("system", "b1", None, subtype="compact_boundary", logicalParentUuid="gone"),
            user("s1", "b1", "summary", isCompactSummary=True),
        ],
    )
    [conv] = import_path(path)
    assert [m.id for m in conv.path()] == ["u1", "a1", "b1", "s1"]
    assert any("'gone'" in w for w in conv.warnings)


def test_subagent_file_is_its_own_conversation_with_the_session_id(tmp_path: Path) -> None:
    folder = tmp_path / SESSION / "subagents"
    folder.mkdir(parents=True)
    sub = rec("user", "s1", "outside-parent", isSidechain=True, agentId="abc123")
    sub["message"] = {"role": "user", "content": "explore"}
    reply = asst("s2", "s1", "m9", text("found it"))
    reply["isSidechain"] = True
    path = write_jsonl(folder / "agent-abc123.jsonl", [sub, reply])
    [conv] = import_path(path)
    assert conv.id == SESSION
    assert conv.agent == "abc123"
    assert [m.id for m in conv.path()] == ["s1", "s2"]
    assert conv.get("s1").meta["sidechain"] is True


def test_sidechain_records_inside_a_session_file_split_per_agent(tmp_path: Path) -> None:
    side = user("s1", None, "sub task", isSidechain=True, agentId="ag7")
    side_reply = asst("s2", "s1", "m8", text("sub answer"))
    side_reply.update(isSidechain=True, agentId="ag7")
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [user("u1", None, "main task"), side, side_reply, asst("a1", "u1", "m1", text("ok"))],
    )
    convs = import_path(path)
    assert [(c.agent, [m.id for m in c.path()]) for c in convs] == [
        ("main", ["u1", "a1"]),
        ("ag7", ["s1", "s2"]),
    ]
    assert {c.id for c in convs} == {SESSION}
    assert any("split into 2 conversations" in w for w in convs[0].warnings)


def test_malformed_lines_are_reported_with_file_and_line_and_the_rest_imported(
    tmp_path: Path,
) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            user("u1", None, "hello"),
            '{"type": "assistant", "uuid": "broken", ',
            "[1, 2, 3]",
            asst("a1", "u1", "m1", text("hi")),
        ],
    )
    [conv] = import_path(path)
    assert [m.id for m in conv.path()] == ["u1", "a1"]
    assert any(f"{path}:2: malformed JSON" in w for w in conv.warnings)
    assert any(f"{path}:3:" in w and "not a JSON object" in w for w in conv.warnings)


def test_json_python_cannot_hold_is_a_warning_not_a_crash(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            user("u1", None, "hello"),
            "[" * 200_000 + "]" * 200_000,
            '{"n": ' + "9" * 10_000 + "}",
            asst("a1", "u1", "m1", text("still here")),
        ],
    )
    [conv] = import_path(path)
    assert [m.id for m in conv.messages] == ["u1", "a1"]
    assert any(f"{path}:2: unreadable JSON (nested too deeply)" in w for w in conv.warnings)
    assert any(f"{path}:3: unreadable JSON" in w for w in conv.warnings)


def test_invalid_utf8_is_reported_and_replaced(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    good = json.dumps(user("u1", None, "caf\u00e9")).encode()
    bad = json.dumps(user("u2", "u1", "XX")).encode().replace(b"XX", b"\xff\xfe")
    path.write_bytes(good + b"\n" + bad + b"\n")
    [conv] = import_path(path, format="claude-code-jsonl")
    assert conv.get("u2").text() == "\ufffd\ufffd"
    assert any(f"{path}:2: invalid UTF-8" in w for w in conv.warnings)


def test_unknown_record_types_and_blocks_are_counted_not_lost(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            user("u1", None, "hi"),
            rec("brand-new-kind", "n1", "u1"),
            rec("brand-new-kind", "n2", "n1"),
            asst("a1", "n2", "m1", {"type": "fancy_block", "payload": 7}),
        ],
    )
    [conv] = import_path(path)
    assert conv.get("a1").parent == "u1"  # linked through the skipped records
    assert any("brand-new-kind (the model may have seen it): 2" in w for w in conv.warnings)
    kept = conv.get("a1").blocks[0]
    assert isinstance(kept, TextBlock) and '"fancy_block"' in kept.text
    assert any("'fancy_block' kept as JSON text" in w for w in conv.warnings)


def test_orphan_results_and_unanswered_calls_are_reported(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            user("u1", None, "go"),
            asst("a1", "u1", "m1", use("t1", "ls")),
            user("r0", "a1", [result("ghost", "who called me?")]),
        ],
    )
    [conv] = import_path(path)
    assert any("'ghost' has no earlier call" in w for w in conv.warnings)
    assert any("'t1' has no result" in w for w in conv.warnings)


def test_giant_record_is_skipped_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_common, "MAX_RECORD_BYTES", 10_000)
    huge = user("u2", "u1", "x" * 50_000)
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [user("u1", None, "small"), huge, asst("a1", "u1", "m1", text("after"))],
    )
    [conv] = import_path(path)
    assert [m.id for m in conv.messages] == ["u1", "a1"]
    assert any(f"{path}:2: record of" in w and "skipped" in w for w in conv.warnings)


def test_large_record_under_the_limit_imports_whole(tmp_path: Path) -> None:
    big = "y" * 3_000_000
    path = write_jsonl(tmp_path / "s.jsonl", [user("u1", None, big)])
    [conv] = import_path(path)
    assert conv.get("u1").text() == big


def test_inline_images_become_bytes_and_non_images_are_dropped_loudly(tmp_path: Path) -> None:
    good = base64.b64encode(png(7, 5)).decode()
    not_image = base64.b64encode(b"this is plain text, not pixels").decode()
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            user(
                "u1",
                None,
                [
                    text("look"),
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/png", "data": good},
                    },
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/png", "data": not_image},
                    },
                    {"type": "image", "source": {"type": "base64", "data": "@@not base64@@"}},
                ],
            ),
        ],
    )
    [conv] = import_path(path)
    blocks = conv.get("u1").blocks
    img = blocks[1]
    assert isinstance(img, ImageBlock)
    assert img.data == png(7, 5) and (img.width, img.height) == (7, 5)
    assert img.media_type == "image/png"
    assert isinstance(blocks[2], TextBlock) and "not an image" in blocks[2].text
    assert isinstance(blocks[3], TextBlock) and "image omitted" in blocks[3].text
    assert sum("not a PNG, JPEG, GIF or WebP" in w for w in conv.warnings) == 1
    assert sum("not valid base64" in w or "not a PNG" in w for w in conv.warnings) == 2
    assert stats(conv.messages).images == 1


def test_image_inside_a_tool_result_is_kept(tmp_path: Path) -> None:
    shot = {
        "type": "image",
        "source": {
            "type": "base64",
            "media_type": "image/jpeg",
            "data": base64.b64encode(png()).decode(),
        },
    }
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            user("u1", None, "screenshot please"),
            asst("a1", "u1", "m1", use("t1", "shot")),
            user("r1", "a1", [result("t1", [text("here"), shot])]),
        ],
    )
    [conv] = import_path(path)
    [res] = conv.get("r1").tool_results()
    [img] = res.images()
    # Declared JPEG but the bytes are PNG: the bytes win, and that is said.
    assert img.media_type == "image/png" and img.origin == "tool_result"
    assert any("declared image/jpeg but is image/png" in w for w in conv.warnings)


def test_summary_only_file_is_an_empty_conversation(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [{"type": "summary", "summary": "t", "leafUuid": "x"}])
    [conv] = import_path(path)
    assert conv.messages == () and conv.tip is None
    assert any("conversation is empty" in w for w in conv.warnings)


def test_a_file_of_other_json_is_refused_clearly(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [{"hello": "world"}, {"n": 1}])
    with pytest.raises(TranscriptError, match="no Claude Code records"):
        import_path(path, format="claude-code-jsonl")


def test_select_by_agent(tmp_path: Path) -> None:
    path = parallel_session(tmp_path)
    assert cc.load(path, ImportOptions(select={"agent": "main"}))
    assert cc.load(path, ImportOptions(select={"agent": "other"})) == []


# --- Agent SDK stream-json ----------------------------------------------------------


def sdk(kind: str, **kw: Any) -> dict[str, Any]:
    r: dict[str, Any] = {"type": kind, "session_id": "sdk-session", "parent_tool_use_id": None}
    r.update(kw)
    return r


def sdk_asst(api_id: str, *blocks: dict[str, Any], parent: str | None = None) -> dict[str, Any]:
    msg = {"id": api_id, "role": "assistant", "model": "claude-y", "content": list(blocks)}
    return sdk("assistant", message=msg, parent_tool_use_id=parent, uuid=f"u-{id(blocks)}")


def sdk_user(*blocks: dict[str, Any], parent: str | None = None, **kw: Any) -> dict[str, Any]:
    msg = {"role": "user", "content": list(blocks)}
    return sdk("user", message=msg, parent_tool_use_id=parent, **kw)


def test_agent_sdk_log_with_prompt_file_compaction_and_subagent(tmp_path: Path) -> None:
    log = tmp_path / "issue-1__design__agent_log_raw.txt"
    (tmp_path / "issue-1__design__prompt.txt").write_bytes("設計してください\r\n".encode())
    write_jsonl(
        log,
        [
            {"type": "system", "subtype": "init", "session_id": "sdk-session", "model": "claude-y"},
            sdk_asst("m1", text("まず確認します")),
            sdk_asst("m1", use("t1", "ls")),
            sdk_asst("m1", {"type": "tool_use", "id": "task1", "name": "Task", "input": {}}),
            sdk_asst("s1", text("sub says hi"), parent="task1"),
            sdk_user(result("t1", "ok")),
            sdk_user(result("task1", "sub done")),
            {
                "type": "system",
                "subtype": "compact_boundary",
                "session_id": "sdk-session",
                "compact_metadata": {"trigger": "auto", "pre_tokens": 99},
            },
            sdk_user(text("This session is being continued ..."), isSynthetic=True),
            sdk_asst("m2", text("完了")),
            {"type": "result", "subtype": "success", "session_id": "sdk-session", "num_turns": 3},
        ],
    )
    assert detect(log).name == "claude-code-jsonl"
    convs = import_path(log)
    main = next(c for c in convs if c.agent == "main")
    sub = next(c for c in convs if c.agent == "task1")
    assert main.id == sub.id == "sdk-session"
    live = main.path()
    assert live[0].text() == "設計してください\r\n"
    assert [len(m.tool_calls()) for m in live[:2]] == [0, 2]  # one merged API message
    assert tool_pairing(live).ok
    kinds = [m.meta.get("kind") for m in live]
    i = kinds.index("compact_boundary")
    assert live[i + 1].meta["compact_summary"] is True
    assert main.meta["model"] == "claude-y" and main.meta["num_turns"] == 3
    assert sub.path()[0].text() == "sub says hi"


def test_agent_sdk_log_without_prompt_file_warns(tmp_path: Path) -> None:
    log = write_jsonl(
        tmp_path / "x_agent_log_raw.txt",
        [{"type": "system", "subtype": "init", "session_id": "s"}, sdk_asst("m1", text("hi"))],
    )
    [conv] = import_path(log)
    assert any("first user turn is missing" in w for w in conv.warnings)


def test_score_rejects_other_jsonl(tmp_path: Path) -> None:
    codex = write_jsonl(tmp_path / "c.jsonl", [{"type": "thread.started", "thread_id": "t"}])
    assert cc.score(codex, codex.read_bytes()) == 0.0
    assert cc.score(tmp_path, b"") == 0.0
    assert cc.score(parallel_session(tmp_path), parallel_session(tmp_path).read_bytes()) >= 0.9


TURNS = 250
LISTING = "drwxr-xr-x 2 root root 4096 Jan  1 00:00 src/module.py\n" * 90  # 5 KB


def _big_session(path: Path, turns: int) -> Path:
    """A Claude Code 2.1-shaped session where most bytes are what the model never sees.

    Each turn: one Bash call, a ``progress`` record streaming its output, and
    the result, whose ``toolUseResult`` repeats the output for the UI (plus a
    file copy), as real sessions do. The conversation needs about a sixteenth
    of the bytes (the result; 5 KB a turn).
    """
    listing = LISTING
    with path.open("w", encoding="utf-8") as fh:
        parent = None
        for i in range(turns):
            u, a, p, r = (f"u{i}", f"a{i}", f"p{i}", f"r{i}")
            records = [
                user(u, parent, f"turn {i}: list the files again"),
                asst(a, u, f"msg_{i}", use(f"t{i}", f"ls -l {i}")),
                rec("progress", p, a, data={"type": "bash_progress", "output": listing * 8}),
                user(
                    r,
                    p,
                    [result(f"t{i}", f"turn {i}\n{listing}")],
                    toolUseResult={"stdout": listing, "stderr": "", "file": listing * 6},
                ),
            ]
            for x in records:
                fh.write(json.dumps(x) + "\n")
            parent = r
    return path


def test_a_large_session_imports_in_bounded_memory(tmp_path: Path) -> None:
    """The file is read a line at a time and only what the conversation needs is kept.

    20 MB of session, of which the conversation holds about 1.3 MB: the
    import's peak of Python allocations (detection, the importer, the
    text-kept check, the encodability check) stays under a sixth of the
    file. Reading the file whole (``read()``, ``readlines()``, one
    ``json.loads`` of it), keeping the records, or serializing the whole
    conversation at once would exceed that on its own.
    """
    import tracemalloc

    import_path(_big_session(tmp_path / "warm.jsonl", 2))  # lazy imports are not the import
    path = _big_session(tmp_path / f"{SESSION}.jsonl", TURNS)
    size = path.stat().st_size
    assert size > 19_000_000
    tracemalloc.start()
    try:
        (conv,) = import_path(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    s = stats(conv.messages)
    assert (s.messages, s.tool_calls, s.tool_results) == (3 * TURNS, TURNS, TURNS)
    last = conv.messages[-1].tool_results()[0].text()
    assert last == f"turn {TURNS - 1}\n{LISTING}"
    assert peak < size / 6, f"peak {peak / 1e6:.1f} MB for a {size / 1e6:.0f} MB file"
