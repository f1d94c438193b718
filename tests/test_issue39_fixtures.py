"""Issue 39 on small fixtures the tests' own builders write (tests/issue39_builders.py):
every result kept, queued prompts, the live context after two compactions by each
harness, the Gemini CLI stream-json and Antigravity importers. None needs ../shared."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import issue39_builders as builders

from snapshot.errors import TranscriptError
from snapshot.transcript.export import export
from snapshot.transcript.export.live import history_for_export, live_context, segments
from snapshot.transcript.export.results import emptied_results
from snapshot.transcript.formats import import_path
from snapshot.transcript.model import ThinkingBlock, tool_pairing
from snapshot.transcript.validate import export_report

DATA = Path(__file__).parent / "data" / "issue39"


@pytest.mark.parametrize("name", sorted(builders.FIXTURES))
def test_the_committed_fixture_is_what_its_builder_writes(name: str) -> None:
    assert (DATA / name).read_text(encoding="utf-8") == builders.render(name)


def _one(tmp_path: Path, name: str):  # type: ignore[no-untyped-def]
    [conv] = [c for c in import_path(builders.write(tmp_path, name)) if c.agent == "main"]
    return conv


def test_tool_output_parts_are_the_results_and_call_parts_are_not_doubled(tmp_path: Path) -> None:
    conv = _one(tmp_path, "openai-tool-output-parts.json")
    path = conv.path()
    assert [len(m.tool_calls()) for m in path] == [0, 1, 0, 0]
    [result] = [r for m in path for r in m.tool_results()]
    assert result.text() == "a.txt\nb.txt"
    assert not any("tool_output" in w or "tool_call" in w for w in conv.warnings)
    done = export_report(conv, "anthropic", check=True)
    assert not any("empty in the body" in p for p in done.problems)


def test_a_file_whose_results_are_all_in_unread_parts_is_an_error(tmp_path: Path) -> None:
    recs = builders.openai_tool_output_parts()
    recs[2]["content"] = [{"type": "mystery_output", "payload": "a.txt"}]
    path = tmp_path / "t.json"
    path.write_text(json.dumps(recs), encoding="utf-8")
    with pytest.raises(TranscriptError, match="content part 'mystery_output'"):
        import_path(path, format="openai-chat")


def test_check_flags_a_result_emptied_by_the_export(tmp_path: Path) -> None:
    conv = _one(tmp_path, "openai-tool-output-parts.json")
    body = export(conv, "openai").body
    for m in body["messages"]:
        if m["role"] == "tool":
            m["content"] = ""
    assert emptied_results(conv, body, "openai") == [
        "1 tool result(s) with text in the source are empty in the body (first: call_1)"
    ]


def test_queued_prompts_and_task_notifications_are_user_messages_in_order(tmp_path: Path) -> None:
    conv = _one(tmp_path, "claude-code-queued.jsonl")
    path = conv.path()
    assert [m.role for m in path] == ["user", "assistant", "user", "user", "user", "assistant"]
    assert path[2].tool_results()[0].text() == "12 fixture.txt"
    typed, note = path[3], path[4]
    assert typed.text() == "no wait, count words" and typed.meta["origin"] == "human"
    assert note.meta["command_mode"] == "task-notification" and "<task-id>bg1" in note.text()
    skipped = next(w for w in conv.warnings if w.startswith("skipped non-message records"))
    assert "attachment/todo_reminder (the model saw it): 1" in skipped
    assert "queue-operation (UI only): 1" in skipped


def test_inline_sub_agent_records_become_the_agent_conversation(tmp_path: Path) -> None:
    convs = import_path(builders.write(tmp_path, "claude-code-inline-agent.jsonl"))
    agents = {c.agent: c for c in convs}
    assert set(agents) == {"main", "ag1"}
    sub = agents["ag1"]
    assert [m.role for m in sub.path()] == ["user", "assistant", "user"]
    assert tool_pairing(sub.path()).ok and tool_pairing(agents["main"].path()).ok


@pytest.mark.parametrize(
    ("name", "live_first", "live_len"),
    [
        ("claude-code-compacted-twice.jsonl", "Summary 2: the files were listed.", 4),
        ("codex-compacted-twice.jsonl", "first: list files", 5),
        ("pi-compacted-twice.jsonl", "Summary 2: earlier work.", 5),
    ],
)
def test_a_session_compacted_twice_exports_its_live_context(
    tmp_path: Path, name: str, live_first: str, live_len: int
) -> None:
    conv = _one(tmp_path, name)
    assert len(segments(conv)) == 3  # the same rule for every harness
    live = live_context(conv)
    path = live.conversation.path()
    assert live.compactions == 2 and len(path) == live_len
    assert path[0].text() == live_first
    assert "Summary 1" not in json.dumps(export(live.conversation, "anthropic").body)
    whole, notes = history_for_export(conv, "anthropic", True)
    assert whole is conv and "whole history: 2 compaction(s)" in notes[0]


def test_codex_replacement_history_keeps_its_encrypted_item_only_for_responses(
    tmp_path: Path,
) -> None:
    conv = _one(tmp_path, "codex-compacted-twice.jsonl")
    live, notes = history_for_export(conv, "openai-responses", False)
    items = export(live, "openai-responses").body["input"]
    assert {"type": "compaction", "encrypted_content": "gAAAA-fixture-opaque"} in items
    _, notes = history_for_export(conv, "anthropic", False)
    assert any("encrypted Codex compaction item(s) omitted" in n for n in notes)
    searches = [m.text() for m in conv.path() if "[web search" in m.text()]
    assert searches == ["[web search: q1 | q2]"]


def test_gemini_stream_json_imports_with_exact_counts(tmp_path: Path) -> None:
    conv = _one(tmp_path, "gemini-stream.jsonl")
    assert conv.format == "gemini-cli-stream-json" and conv.id == "gem-fixture"
    path = conv.path()
    calls = [c for m in path for c in m.tool_calls()]
    results = [r for m in path for r in m.tool_results()]
    assert [c.id for c in calls] == ["run_shell_command_1", "read_file_2"]
    assert [(r.call_id, r.is_error) for r in results] == [
        ("run_shell_command_1", False),
        ("read_file_2", True),
    ]
    assert results[1].text() == "File not found: out/x"
    assert path[-1].text() == "The folder is empty."  # deltas joined
    assert conv.meta["result"]["stats"] == {"tool_calls": 2}


@pytest.mark.parametrize("name", ["antigravity-trajectory.json", "antigravity-transcript.jsonl"])
def test_antigravity_steps_import_with_exact_counts(tmp_path: Path, name: str) -> None:
    conv = _one(tmp_path, name)
    assert conv.format == "antigravity-steps"
    path = conv.path()
    calls = [c for m in path for c in m.tool_calls()]
    results = {r.call_id: r.text() for m in path for r in m.tool_results()}
    assert tool_pairing(path).ok
    if name.endswith(".json"):
        assert [c.id for c in calls] == ["tc1", "tc2", "step5"]
        assert results == {
            "tc1": "print('hi')",
            "tc2": "hi\n",
            "step5": '+"""Say hi."""',
        }
        assert isinstance(path[1].blocks[0], ThinkingBlock)
        assert any("CHECKPOINT: 1" in w for w in conv.warnings)
    else:
        assert [c.id for c in calls] == ["c1"] and results == {"c1": "main.py\nREADME"}


def test_a_forced_format_on_a_folder_skips_a_fifo(tmp_path: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("this system has no FIFOs (os.mkfifo)")
    from snapshot.transcript.discover import walk_as_format
    from snapshot.transcript.formats import get_format

    builders.write(tmp_path, "gemini-stream.jsonl")
    os.mkfifo(tmp_path / "pipe.jsonl")
    skipped: list[tuple[Path, str]] = []
    units, failures = walk_as_format(tmp_path, get_format("gemini-cli-stream-json"), skipped)
    assert [u.name for u in units] == ["gemini-stream.jsonl"] and not failures
    assert (tmp_path / "pipe.jsonl", "a FIFO (named pipe); not read") in skipped


def _has_zstd() -> bool:
    try:
        import compression.zstd  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.parametrize(("name", "crush"), [("opencode.db", False), ("crush.db", True)])
def test_opencode_and_crush_databases_built_here_import_paired(
    tmp_path: Path, name: str, crush: bool
) -> None:
    db = builders.go_agent_db(tmp_path / name, crush=crush)
    convs = {c.agent: c for c in import_path(db)}
    assert set(convs) == {"main", "call_agent"}
    main = convs["main"]
    assert main.format == ("crush-sqlite" if crush else "opencode-go-sqlite")
    assert tool_pairing(main.path()).ok
    [result] = [r for m in main.path() for r in m.tool_results()]
    assert result.call_id == "call_1" and result.text() == "a.txt"
    assert convs["call_agent"].id == "s1"


def test_zstd_parts_without_a_decoder_are_counted_by_reason(tmp_path: Path) -> None:
    if _has_zstd():
        pytest.skip("this Python has compression.zstd: the parts are read (the next test)")
    db = builders.go_agent_db(tmp_path / "crush.db", crush=True, compress=True)
    convs = {c.agent: c for c in import_path(db)}
    assert any(
        "zstd-compressed parts (need Python 3.14's compression.zstd): 1" in w
        for w in convs["main"].warnings
    )


def test_zstd_parts_are_read_where_python_has_zstd(tmp_path: Path) -> None:
    if not _has_zstd():
        pytest.skip("this Python has no compression.zstd (3.14+): zstd parts cannot be read")
    db = builders.go_agent_db(tmp_path / "crush.db", crush=True, compress=True)
    main = next(c for c in import_path(db) if c.agent == "main")
    assert [r.text() for m in main.path() for r in m.tool_results()] == ["a.txt"]


def test_kept_share_counts_model_visible_text_and_names_ui_only_text(tmp_path: Path) -> None:
    recs = builders.claude_code_queued()
    stream = "line of output from the running command, shown live in the terminal " * 20
    recs.insert(
        2,
        {
            "type": "progress",
            "uuid": "p1",
            "parentUuid": "a1",
            "data": {"type": "bash_progress", "output": stream},
        },
    )
    recs.append(_long_reply())
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    [conv] = import_path(path)
    assert conv.meta["text_kept"] == 1.0  # the progress stream is UI-only, not a loss
    assert conv.meta["ui_only_chars"]["progress/bash_progress"] > 1000


def test_kept_share_still_reads_a_loss_of_what_the_model_saw(tmp_path: Path) -> None:
    recs = builders.codex_compacted_twice()
    lost = "an answer the importer does not know how to read, " * 30
    recs.append(
        {"timestamp": "t", "type": "response_item", "payload": {"type": "novel_item", "text": lost}}
    )
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    [conv] = import_path(path)
    assert conv.meta["text_kept"] < 0.5
    assert any("model-visible text" in w for w in conv.warnings)


def _long_reply() -> dict:
    text = "The words of the model's reply are long enough to be judged by their share. " * 8
    return {
        "type": "assistant",
        "uuid": "a9",
        "parentUuid": "a2",
        "sessionId": "s-fixture",
        "message": {
            "role": "assistant",
            "id": "msg_a9",
            "content": [{"type": "text", "text": text}],
        },
    }


def test_gemini_stream_results_find_calls_logged_without_an_id(tmp_path: Path) -> None:
    t = "2026-12-01T00:00:00.000Z"
    recs = [
        {"type": "init", "timestamp": t, "session_id": "g2", "model": "m"},
        {"type": "message", "timestamp": t, "role": "user", "content": "look around"},
        {"type": "tool_use", "timestamp": t, "tool_name": "glob", "parameters": {"pattern": "*"}},
        {"type": "tool_use", "timestamp": t, "tool_name": "read_file", "parameters": {"p": "a"}},
        {
            "type": "tool_result",
            "timestamp": t,
            "tool_id": "read_file__call_2",
            "status": "success",
            "output": "A",
        },
        {
            "type": "tool_result",
            "timestamp": t,
            "tool_id": "glob__call_1",
            "status": "success",
            "output": "a",
        },
    ]
    path = tmp_path / "g.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    [conv] = import_path(path, format="gemini-cli-stream-json")
    path_ = conv.path()
    assert tool_pairing(path_).ok
    calls = {c.id: c.name for m in path_ for c in m.tool_calls()}
    answered = {calls[r.call_id]: r.text() for m in path_ for r in m.tool_results()}
    assert answered == {"read_file": "A", "glob": "a"}


def test_pi_live_context_keeps_the_entries_its_compaction_kept(tmp_path: Path) -> None:
    conv = _one(tmp_path, "pi-compacted-twice.jsonl")
    texts = [m.text() for m in live_context(conv).conversation.path()]
    assert texts == [
        "Summary 2: earlier work.",
        "third task",
        "third answer",
        "fourth task",
        "fourth answer",
    ]
