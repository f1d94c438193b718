"""Sessions written as one JSON document, or as Markdown, import in bounded memory (issue 9).

Each JSON importer reads its document's long list one element at a time
(:class:`~snapshot.transcript.formats._json_stream.JSONDocument`); the Markdown
importers make each message as its lines end. Above ``SPILL_BYTES`` the
messages are kept on disk. On real samples, with spilling forced and JSON read
in 7-byte chunks, ``snapshot import --json`` writes the same summary and the
same bytes as the import held in memory.
"""

from __future__ import annotations

import pytest
from test_spill import _corpus_case, _held_then_spilled, spill_files_made

from snapshot.transcript.formats import _json_stream

# Relative to the corpus; every sample of each whole-document session format.
DOCUMENTS = [
    "formats/gemini-cli/kvsankar-gemini-session-01.json",
    *(
        f"formats/cline-roo/{task}/api_conversation_history.json"
        for task in (
            "cline-1759396187528",
            "cline-temp-api-log7",
            "roo-2025-03-187700e7",
            "roo-natural-already-condensed",
            "roo-natural-mini-uncondensed",
        )
    ),
    "formats/continue/developer-525473ea.json",
    "formats/continue/developer-67733f7c.json",
    "formats/browser-use/browser-use-2024-11-AgentHistoryList.json",
    "formats/browser-use/pentest-agent-agent_history.json",
    "formats/gemini-content/gemini-cli-NotFollowingUserIntent.json",
    "formats/gemini-content/gemini-cli-trajectory.json",
    "formats/openai-responses/oh-sdk-skill-probe-request_payload.json",
    "formats/mini-swe-agent/msa-github_issue.traj.json",
    "formats/mini-swe-agent/msa-local.traj.json",
    "formats/openai-chat/oh-sdk-litellm-telemetry-gpt4omini-f575.json",
    "formats/openai-chat/oh-sdk-litellm-telemetry-haiku-4c3a.json",
    "tau_bench/gpt-4o-airline.json",  # runs of OpenAI chat messages, every run spilled
    # SWE-agent: its "trajectory" list is read through and dropped; demonstrations and a run.
    "openhands/tests__runtime__trajs__basic_interactions.json",  # events with ids
    "openhands/tests__runtime__trajs__wrong_initial_state.json",
    "swe_agent/demonstrations__ctf__crypto__BabyEncryption.traj",
    "swe_agent/demonstrations__replay__marshmallow-code__marshmallow-1867__function_calling_"
    "replace_from_source__marshmallow-code__marshmallow-1867.traj",
    "swe_agent/tests__gpt4__swe-agent-test-repo__default_from_url__t-0.00__p-0.95__c-3.00__"
    "install-1__6e44b9__sweagenttestrepo-1c2844.traj",
]

MARKDOWN = [
    f"formats/aider-md/{name}.aider.chat.history.md"
    for name in (
        "afi-core",
        "ai-text-detector",
        "monochromatic",
        "mozgoslav",
        "zen-mcp-server",
    )
] + [
    "formats/cursor-md/gemini-cli-cursor_understanding_the_codebase_archi.md",
    *(
        f"formats/specstory-md/{name}.md"
        for name in (
            "chef-chopsky-2025-10-02_19-43Z-ai-development-playbook",
            "mcp-gateway-2025-12-18_18-43Z-intercepting-mcp-tool-calls",
            "minsky-2025-04-30_17-43-continuing-work-on-task-011",
            "munsellspace-2025-12-06_19-04-39Z-hello-claude",
            "skillz-2025-11-06_05-03Z-combine-design-documents",
        )
    ),
]


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SNAPSHOT_NO_PROGRESS", "1")


@pytest.mark.parametrize("name", DOCUMENTS + MARKDOWN)
def test_a_document_session_imports_the_same_spilled_or_held(
    name: str, tmp_path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    held, spilled = _held_then_spilled(
        _corpus_case(name),
        tmp_path,
        monkeypatch,
        capsys,
        small_chunks=(_json_stream, "CHUNK_BYTES", 7),
    )
    assert sum(len(c.messages) for c in spilled) >= 2
    assert [c.tip for c in spilled] == [c.tip for c in held]


@pytest.mark.parametrize("system_first", [False, True], ids=["after", "before"])
def test_a_system_instruction_comes_first_wherever_it_is(
    system_first: bool,
    tmp_path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The package's own ``--to gemini`` bodies put ``systemInstruction`` after ``contents``;
    an SDK's may put it before. Only the first needs the messages copied behind it."""
    import json

    from snapshot.transcript.formats import gemini_content

    copies: list[int] = []
    put_first = gemini_content.put_first

    def counting(head, messages):  # type: ignore[no-untyped-def]
        copies.append(len(head))
        return put_first(head, messages)

    monkeypatch.setattr(gemini_content, "put_first", counting)
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "list the files"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "ls", "args": {}}}]},
            {
                "role": "user",
                "parts": [{"functionResponse": {"name": "ls", "response": {"output": "a"}}}],
            },
            {"role": "model", "parts": [{"text": "one file, a"}]},
        ],
        "systemInstruction": {"parts": [{"text": "be brief"}, {"text": "be right"}]},
    }
    if system_first:
        body = {"systemInstruction": body["systemInstruction"], "contents": body["contents"]}
    path = tmp_path / "body.json"
    path.write_text(json.dumps(body))
    _, [spilled] = _held_then_spilled(
        path, tmp_path, monkeypatch, capsys, small_chunks=(_json_stream, "CHUNK_BYTES", 7)
    )
    assert [m.id for m in spilled.messages] == ["system-0", "system-1", "c0", "c1", "c2", "c3"]
    assert spilled.path_ids() == [m.id for m in spilled.messages]
    assert spilled.tip == "c3"
    assert set(copies) == ({0} if system_first else {2})  # head copied in front, or not


def test_instructions_after_the_input_list_still_come_first(
    tmp_path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Responses request whose ``instructions`` follow ``input``, with a logged reply."""
    import json

    body = {
        "input": [
            {"role": "user", "content": "list the files"},
            {"type": "function_call", "call_id": "c1", "name": "ls", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "a"},
        ],
        "instructions": "be brief",
        "response": {"output": [{"role": "assistant", "content": "one file, a"}]},
    }
    path = tmp_path / "request.json"
    path.write_text(json.dumps(body))
    _, [spilled] = _held_then_spilled(
        path, tmp_path, monkeypatch, capsys, small_chunks=(_json_stream, "CHUNK_BYTES", 7)
    )
    assert [m.role for m in spilled.messages] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    assert spilled.path_ids() == [f"r{n}" for n in range(5)]


def test_an_anthropic_system_prompt_after_the_messages_still_comes_first(
    tmp_path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    body = {
        "model": "claude-sonnet-4-5",
        "messages": [
            {"role": "user", "content": "list the files"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "ls", "input": {}}],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a"}],
            },
        ],
        "system": [{"type": "text", "text": "be brief"}],
    }
    path = tmp_path / "body.json"
    path.write_text(json.dumps(body))
    _, [spilled] = _held_then_spilled(
        path, tmp_path, monkeypatch, capsys, small_chunks=(_json_stream, "CHUNK_BYTES", 7)
    )
    assert spilled.format == "anthropic-messages"
    assert spilled.path_ids() == ["system", "m0", "m1", "m2"]
    assert spilled.meta["model"] == "claude-sonnet-4-5"


def test_every_session_of_a_spilled_aider_history_shares_one_file(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A history of thousands of sessions must not hold a file descriptor per session."""
    from snapshot.transcript import spill
    from snapshot.transcript.formats import import_path

    path = tmp_path / ".aider.chat.history.md"
    path.write_text(
        "".join(
            f"\n# aider chat started at 2025-07-15 11:{n:02d}:00\n\n#### task {n}\n\nreply {n}\n"
            for n in range(5)
        )
    )
    made = spill_files_made(monkeypatch)
    convs = import_path(path)
    assert [c.messages[0].text() for c in convs] == [f"task {n}" for n in range(5)]
    assert all(isinstance(c.messages, spill.SpilledMessages) for c in convs)
    assert len(made) == 1


def test_text_lines_split_as_the_whole_text_splits(tmp_path) -> None:
    """Read a line at a time, a file splits where ``str.splitlines`` splits all of it."""
    from snapshot.transcript.formats._common import Warnings, text_lines

    raw = "a\r\nb\rc\x0cd\u2028e\x85f\n\n".encode() + b"caf\xe9 \xe2\x82\n" + b"end"
    path = tmp_path / "t.md"
    path.write_bytes(raw)
    warnings = Warnings()
    assert list(text_lines(path, warnings)) == raw.decode("utf-8", "replace").splitlines()
    assert warnings.items == [f"{path}: invalid UTF-8 at byte 20; replaced with U+FFFD"]


def test_a_gemini_cli_jsonl_recording_replaces_and_rewrites_records_on_disk(
    tmp_path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The JSONL form (v0.40+): a record repeating an id replaces it, "$set" rewrites the list."""
    import json

    def gemini(mid: str, text: str, **extra: object) -> dict[str, object]:
        return {"id": mid, "type": "gemini", "content": text, **extra}

    call = {"id": "c1", "name": "ls", "args": {}, "result": [{"text": "a"}], "status": "success"}
    lines = [
        {"sessionId": "s1", "projectHash": "h", "startTime": "2026-11-30T10:00:00Z"},
        {"id": "u0", "type": "user", "content": "old prompt"},
        {"$set": {"messages": [{"id": "u1", "type": "user", "content": "list the files"}]}},
        gemini("g1", "looking"),
        gemini("g1", "looking \ud83d", toolCalls=[call]),  # the same id, finished: replaces it
        {"id": "u2", "type": "user", "content": "thanks"},
        {"$set": {"lastUpdated": "2026-11-30T10:05:00Z"}},
    ]
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    _, [spilled] = _held_then_spilled(path, tmp_path, monkeypatch, capsys)
    assert [m.id for m in spilled.messages] == ["u1", "g1", "g1-results", "u2"]
    assert spilled.meta["lastUpdated"] == "2026-11-30T10:05:00Z"
    assert any("rewritten 1 time" in w for w in spilled.warnings)
