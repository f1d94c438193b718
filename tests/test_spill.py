"""Messages kept on disk (issue 9, bounded memory): the spill, and imports that use it.

A large Claude Code session imports into a :class:`SpilledMessages`; every
result must be the same as when the messages are held in memory. The corpus
cases force spilling (and a window of one open draft, so records of an API
message arrive after it was written) on real sessions and compare the saved
document and the ``--json`` summary byte for byte.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from test_import_openhands_v1 import _event, _user

from snapshot.cli import main
from snapshot.errors import TranscriptError
from snapshot.transcript import spill
from snapshot.transcript.encodable import encodable_conversation
from snapshot.transcript.formats import claude_code as cc
from snapshot.transcript.formats import import_path
from snapshot.transcript.formats.claude_code import session as cc_session
from snapshot.transcript.importing import (
    OUT_FORMAT,
    OUT_VERSION,
    import_conversations,
    write_conversations,
)
from snapshot.transcript.model import (
    Conversation,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResult,
    conversation_to_dict,
)
from snapshot.transcript.spill import SpilledMessages, message_texts

REPO = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("SNAPSHOT_CORPUS") or REPO.parent / "shared" / "corpus")
# Real sessions: Claude Code 2.1 with compactions and interleaved parallel tool
# results; two 1.0.x files with Task sidechains inline (split per agent).
SESSIONS = [
    "claude_code_spotter/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl",
    "formats/claude-code/dkimuson-fe5e1c67.jsonl",
    "formats/claude-code/dkimuson-5c0375b4.jsonl",
]
# Codex CLI rollouts and pi sessions (JSONL that grows with the session) spill too.
CODEX = [
    "formats/codex-rollout/moonmind-rollout-2025-11-13T18-21-11-019a802a.jsonl",
    "formats/codex-rollout/youtube-mcp-rollout-2026-03-01T17-24-42-019cabb7.jsonl",
    "formats/pi/pi-mono-large-session.jsonl",
    "formats/pi/pi-mono-before-compaction.jsonl",
]


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SNAPSHOT_NO_PROGRESS", "1")


def _messages() -> list[Message]:
    return [
        Message("m1", None, "user", (TextBlock("hi \ud83d half an emoji"),), {"t": 1}),
        Message(
            "m2",
            "m1",
            "assistant",
            (ThinkingBlock("hm", "sig"), ToolCall("c1", "Bash", {"command": "ls", "n": 1.5})),
            {"usage": {"input_tokens": 3}},
        ),
        Message(
            "m3",
            "m2",
            "user",
            (ToolResult("c1", (TextBlock("a.txt"), ImageBlock("image/png", b"\x89PNG")), True),),
        ),
    ]


# --- the spill itself ----------------------------------------------------------------


def test_spilled_messages_read_back_equal_what_was_stored() -> None:
    msgs = _messages()
    s = SpilledMessages(msgs)
    assert len(s) == 3
    assert list(s) == msgs and s == msgs and s == tuple(msgs)
    assert s[-1] == msgs[2] and s[1:] == tuple(msgs[1:])
    assert s[0].blocks[0].text == "hi \ud83d half an emoji"  # a lone surrogate survives
    assert s[2].blocks[0].content[1].data == b"\x89PNG"  # type: ignore[union-attr]
    with pytest.raises(IndexError):
        s[3]
    assert [s.parent_id(i) for i in range(3)] == [None, "m1", "m2"]
    assert list(message_texts(s)) == list(message_texts(msgs))
    s.close()


def test_a_replaced_message_is_read_in_its_place() -> None:
    s = SpilledMessages(_messages())
    longer = Message("m2", "m1", "assistant", (TextBlock("x" * 5000),))
    s[1] = longer
    assert [m.id for m in s] == ["m1", "m2", "m3"]
    assert s[1] == longer and s[2].id == "m3"
    with pytest.raises(ValueError, match="is not 'm2'"):
        s[1] = Message("other", None, "user", ())


def test_a_conversation_on_disk_finds_messages_and_walks_its_path() -> None:
    msgs = [
        *_messages(),
        Message("b1", "m1", "assistant", (TextBlock("a branch"),)),
        # A parent that comes later in the sequence, and one that is not there.
        Message("late", "m9", "user", ()),
        Message("m9", None, "user", ()),
    ]
    s = SpilledMessages(msgs)
    spilled = Conversation(id="c", messages=s, tip="m3")
    held = Conversation(id="c", messages=tuple(msgs), tip="m3")
    assert spilled == held
    for tip in ("m3", "b1", "late"):
        assert spilled.path_ids(tip) == held.path_ids(tip)
        assert spilled.path(tip) == held.path(tip)
    assert "b1" in spilled.index and "nope" not in spilled.index
    assert spilled.get("b1") == msgs[3] and len(spilled.index) == len(msgs)
    with pytest.raises(TranscriptError, match="has no message 'nope'"):
        spilled.get("nope")
    with pytest.raises(TranscriptError, match="tip 'nope' is not a message"):
        Conversation(id="c", messages=s, tip="nope")
    orphan = SpilledMessages([Message("x", "gone", "user", ())])
    with pytest.raises(TranscriptError, match="has no message 'gone'"):
        Conversation(id="c", messages=orphan, tip="x").path()
    cycle = SpilledMessages([Message("p", "q", "user", ()), Message("q", "p", "user", ())])
    with pytest.raises(TranscriptError, match="parent cycle"):
        Conversation(id="c", messages=cycle, tip="q").path_ids()


def test_an_unencodable_spilled_conversation_is_cleaned_and_stays_on_disk() -> None:
    msgs = _messages()
    held = encodable_conversation(Conversation(id="c", messages=tuple(msgs), tip="m3"))
    spilled = encodable_conversation(Conversation(id="c", messages=SpilledMessages(msgs), tip="m3"))
    assert isinstance(spilled.messages, SpilledMessages)
    assert spilled == held and spilled.warnings == held.warnings
    assert held.warnings[-1].startswith("1 unencodable character(s)")
    assert spilled.messages[0].text() == "hi \ufffd half an emoji"


def test_the_saved_document_is_what_json_dump_writes(tmp_path: Path) -> None:
    """The document is written a message at a time; the bytes are one ``json.dump`` of it."""
    clean = _messages()[1:]
    convs = [
        Conversation(id="c1", messages=tuple(clean), tip="m3", meta={"é": [1, None]}),
        Conversation(id="c2", messages=(), tip=None, warnings=("w",)),
        Conversation(id="c3", messages=SpilledMessages(clean), tip="m2", agent="sub"),
    ]
    for subset in (convs, convs[1:2], []):
        target = tmp_path / "out.json"
        write_conversations(target, subset)
        doc = {
            "format": OUT_FORMAT,
            "version": OUT_VERSION,
            "conversations": [conversation_to_dict(c) for c in subset],
        }
        assert target.read_text(encoding="utf-8") == json.dumps(doc, ensure_ascii=False)


# --- the Claude Code importer, spilling ------------------------------------------------


def _late_session(tmp_path: Path) -> Path:
    """One API message whose records are far apart: two calls, results between them."""
    session = "11111111-2222-3333-4444-555555555555"

    def rec(kind: str, uuid: str, parent: str | None, message: dict[str, object]) -> str:
        return json.dumps(
            {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": session}
            | {"message": message}
        )

    def asst(api: str, block: dict[str, object], **extra: object) -> dict[str, object]:
        return {"id": api, "role": "assistant", "content": [block], **extra}

    def use(cid: str) -> dict[str, object]:
        return {"type": "tool_use", "id": cid, "name": "Bash", "input": {"command": cid}}

    def res(cid: str) -> dict[str, object]:
        return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": cid}]}

    lines = [
        rec("user", "u1", None, {"role": "user", "content": "go"}),
        rec("assistant", "a1", "u1", asst("msg_A", use("t1"), usage={"output_tokens": 1})),
        rec("user", "r1", "a1", res("t1")),
        rec("user", "u2", "r1", {"role": "user", "content": "and?"}),
        rec(
            "assistant",
            "a2",
            "a1",
            asst("msg_A", use("t2"), usage={"output_tokens": 2}, stop_reason="tool_use"),
        ),
        rec("user", "r2", "a2", res("t2")),
    ]
    path = tmp_path / f"{session}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("spilled", [False, True])
def test_a_record_of_an_api_message_already_written_rewrites_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spilled: bool
) -> None:
    path = _late_session(tmp_path)
    [held] = import_path(path)
    monkeypatch.setattr(cc_session, "OPEN_DRAFTS", 1)  # a1 is written before its second record
    monkeypatch.setattr(spill, "SPILL_BYTES", 0 if spilled else 1 << 40)
    [late] = import_path(path)
    assert isinstance(late.messages, SpilledMessages) is spilled
    merged = late.get("a1")
    assert [c.id for c in merged.tool_calls()] == ["t1", "t2"]
    assert merged.meta["usage"] == {"output_tokens": 2}
    assert merged.meta["stop_reason"] == "tool_use"
    assert late == held and late.warnings == held.warnings


def _corpus_case(name: str) -> Path:
    path = CORPUS / name
    if not path.is_file():
        pytest.skip(f"corpus session {name} not found under {CORPUS} (set SNAPSHOT_CORPUS)")
    return path


def _cli(path: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["import", str(path), "--out", str(out), "--json"]) == 0
    return capsys.readouterr().out


def spill_files_made(monkeypatch: pytest.MonkeyPatch) -> list[spill.SpillFile]:
    """Force spilling and collect every SpillFile made from now on (one per import is the aim)."""
    made: list[spill.SpillFile] = []
    init = spill.SpillFile.__init__

    def counting(self: spill.SpillFile) -> None:
        init(self)
        made.append(self)

    monkeypatch.setattr(spill.SpillFile, "__init__", counting)
    monkeypatch.setattr(spill, "SPILL_BYTES", 0)
    return made


def _held_then_spilled(
    path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    **spilling: Any,
) -> tuple[list[Conversation], list[Conversation]]:
    """Import ``path`` in memory, then with spilling forced: the same summary, bytes and warnings.

    ``spilling``: ``label=(object, attribute, value)`` patches applied for the spilled
    import only.
    """
    held_summary = _cli(path, tmp_path / "held.json", capsys)
    held = import_conversations(path).conversations
    assert all(isinstance(c.messages, tuple) for c in held)
    for target, attribute, value in spilling.values():
        monkeypatch.setattr(target, attribute, value)
    monkeypatch.setattr(spill, "SPILL_BYTES", 0)
    spilled_summary = _cli(path, tmp_path / "spilled.json", capsys)
    spilled = import_conversations(path).conversations
    assert all(isinstance(c.messages, SpilledMessages) for c in spilled)
    assert spilled_summary == held_summary
    assert (tmp_path / "spilled.json").read_bytes() == (tmp_path / "held.json").read_bytes()
    assert [c.warnings for c in spilled] == [c.warnings for c in held]
    assert len(held) == len(json.loads(held_summary)["conversations"])
    return held, spilled


@pytest.mark.parametrize("name", SESSIONS)
def test_a_real_session_imports_the_same_spilled_or_held(
    name: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``snapshot import --out --json`` writes the same bytes with its messages on disk."""
    rewrites: list[int] = []
    setitem = SpilledMessages.__setitem__

    def counting(self: SpilledMessages, i: int, message: Message) -> None:
        rewrites.append(i)
        setitem(self, i, message)

    held, _ = _held_then_spilled(
        _corpus_case(name),
        tmp_path,
        monkeypatch,
        capsys,
        count=(SpilledMessages, "__setitem__", counting),
        one_open_draft=(cc_session, "OPEN_DRAFTS", 1),  # so API messages really are rewritten
    )
    if name.startswith("claude_code_spotter"):
        # Parallel tool calls with results between their records: merged late.
        assert rewrites
    else:
        assert len(held) > 1  # main and sidechains split


def test_a_large_file_spills_and_a_small_one_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _late_session(tmp_path)
    size = path.stat().st_size
    monkeypatch.setattr(spill, "SPILL_BYTES", size + 1)
    [small] = import_path(path)
    monkeypatch.setattr(spill, "SPILL_BYTES", size)
    [large] = import_path(path)
    assert isinstance(small.messages, tuple)
    assert isinstance(large.messages, SpilledMessages)


def test_threads_reading_one_spill_each_get_their_own_message() -> None:
    """The page pipeline's threads may read one conversation at once: a seek and its read are one step."""
    from concurrent.futures import ThreadPoolExecutor

    msgs = [
        Message(f"m{i}", None, "user", (TextBlock(f"text {i} " * (i % 50)),)) for i in range(300)
    ]
    s = SpilledMessages(msgs)

    def read(start: int) -> bool:
        return all(s[(start + k) % len(msgs)] == msgs[(start + k) % len(msgs)] for k in range(600))

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(read, range(0, 300, 25)))


@pytest.mark.parametrize("name", CODEX)
def test_a_codex_or_pi_session_imports_the_same_spilled_or_held(
    name: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    [held], [spilled] = _held_then_spilled(_corpus_case(name), tmp_path, monkeypatch, capsys)
    assert len(spilled.messages) > 10 and spilled.tip == held.tip


# --- Kimi CLI contexts and Agent SDK stream-json spill too ------------------------------

# Kimi CLI contexts (OpenAI chat records converted one at a time): two main
# agents and a subagent file.
KIMI = [
    "formats/kimi-cli/kimi-sklearn-26323-531d195b.jsonl",
    "formats/kimi-cli/kimi-sklearn-26323-d8447fa8.jsonl",
    "formats/kimi-cli/kimi-sklearn-26323-d8447fa8_read_1.jsonl",
]
# Agent SDK stream-json: a subagent (its own conversation) and a repeated uuid;
# a compaction; a run log with its sibling prompt file and a repeated uuid.
AGENT_SDK = [
    "formats/claude-agent-sdk/tielec-aiwa-issue558-planning.jsonl",
    "formats/claude-agent-sdk/tielec-aiwa-issue271-impl.jsonl",
    "tielec_ja_agent_sdk/logs/issue-461__05_test_implementation__execute__agent_log_raw.txt",
]


@pytest.mark.parametrize("name", KIMI)
def test_a_kimi_context_imports_the_same_spilled_or_held(
    name: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    [held], [spilled] = _held_then_spilled(_corpus_case(name), tmp_path, monkeypatch, capsys)
    assert len(spilled.messages) > 10 and spilled.tip == held.tip


def test_a_synthetic_kimi_context_keeps_thinking_and_warnings_when_spilled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bookkeeping, unknown roles and parts, a tool call without its result: same either way."""
    records: list[dict[str, Any]] = [
        {"role": "_checkpoint", "id": 0},
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "audio"}]},
        {"role": "_usage", "token_count": 12},
        {
            "role": "assistant",
            "content": [{"type": "think", "think": "hm"}, {"type": "text", "text": "ok"}],
            "tool_calls": [{"id": "c1", "function": {"name": "ls", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "a b"},
        {"role": "_checkpoint", "id": 1},
        {"role": "assistant", "tool_calls": [{"id": "c2", "function": {"name": "rm"}}]},
        {"role": "ghost"},  # past the head the format is detected by
    ]
    path = tmp_path / "s1.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    [held], [spilled] = _held_then_spilled(path, tmp_path, monkeypatch, capsys)
    assert [m.id for m in spilled.messages] == ["m0", "m1", "m2", "m3", "m4"]
    assert spilled.tip == held.tip == "m4"
    assert isinstance(spilled.messages[2].blocks[0], ThinkingBlock)
    assert any("'c2'" in w for w in spilled.warnings)  # pairing, read back from the spill
    assert spilled.meta["context_tokens"] == 12


@pytest.mark.parametrize("name", AGENT_SDK)
def test_an_agent_sdk_log_imports_the_same_spilled_or_held(
    name: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    held, spilled = _held_then_spilled(_corpus_case(name), tmp_path, monkeypatch, capsys)
    assert [c.agent for c in spilled] == [c.agent for c in held]
    assert [c.tip for c in spilled] == [c.tip for c in held]
    assert len(spilled[0].messages) > 10
    if "issue558" in name:
        assert len(held) == 2  # main and its subagent


def _sdk(agent: str | None, kind: str, **rest: Any) -> dict[str, Any]:
    return {"type": kind, "session_id": "s1", "parent_tool_use_id": agent, **rest}


def test_a_synthetic_agent_sdk_log_merges_only_adjacent_records_when_spilled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A subagent's records between two of one main API response; a later reuse of its id."""
    records = [
        _sdk(None, "system", subtype="init", model="claude"),
        _sdk(None, "assistant", uuid="a1", message={"id": "r1", "content": "looking"}),
        _sdk("t1", "user", uuid="s1", message={"content": "sub task"}),
        _sdk("t1", "assistant", uuid="s2", message={"id": "r9", "content": "sub done"}),
        _sdk(
            None,
            "assistant",
            uuid="a2",
            message={
                "id": "r1",
                "content": [{"type": "tool_use", "id": "t1", "name": "Task", "input": {}}],
                "usage": {"output_tokens": 3},
            },
        ),
        _sdk(
            None,
            "user",
            uuid="u1",
            message={"content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x"}]},
        ),
        _sdk(None, "assistant", uuid="a1", message={"id": "r1", "content": "again"}),
        _sdk(None, "system", subtype="compact_boundary", compact_metadata={"trigger": "auto"}),
        _sdk(None, "user", isSynthetic=True, message={"content": "the summary"}),
        _sdk(None, "result", subtype="success", num_turns=2),
    ]
    path = tmp_path / "run_agent_log_raw.txt"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    (tmp_path / "run_prompt.txt").write_text("do it", encoding="utf-8")
    [main_held, _], [main, sub] = _held_then_spilled(path, tmp_path, monkeypatch, capsys)
    assert [m.id for m in main.messages] == ["prompt", "a1", "u1", "a1-7", "line-8", "line-9"]
    assert [m.parent for m in main.messages][:3] == [None, "prompt", "a1"]
    assert len(main.messages[1].blocks) == 2 and main.messages[1].meta["usage"]
    assert main.messages[5].meta["compact_summary"] is True
    assert (main.tip, sub.agent, sub.tip) == (main_held.tip, "t1", "s2") == ("line-9", "t1", "s2")
    assert [m.text() for m in sub.messages] == ["sub task", "sub done"]


def test_every_agent_of_a_spilled_agent_sdk_log_shares_one_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A log with thousands of subagents must not hold a file descriptor per agent."""
    from snapshot.transcript.formats import ImportOptions

    records = [_sdk(None, "system", subtype="init")]
    for n in range(5):
        records.append(_sdk(f"t{n}", "user", uuid=f"s{n}", message={"content": f"task {n}"}))
    path = tmp_path / "many.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    made = spill_files_made(monkeypatch)
    convs = cc.load(path, ImportOptions())
    assert [c.agent for c in convs] == [f"t{n}" for n in range(5)]
    assert all(isinstance(c.messages, SpilledMessages) for c in convs)
    assert len(made) == 1
    assert [c.messages[0].text() for c in convs] == [f"task {n}" for n in range(5)]


# --- the OpenHands V1 importer, spilling ---------------------------------------------
# A V1 conversation is a folder (base_state.json + events/, or the CLI's flat event
# files) and imports by the folder's path; it spills when its event files' bytes,
# summed, reach SPILL_BYTES.

OPENHANDS_V1 = [
    "formats/openhands-v1/oh-sdk-cd945624",
    "formats/openhands-v1/oh-cli-confirmation_mode",
    "formats/openhands-v1/oh-cli-cli447_hi_followup_case_a",
    "formats/openhands-v1/oh-cli-creating_agent_plan",
]


def _corpus_folder(name: str) -> Path:
    path = CORPUS / name
    if not path.is_dir():
        pytest.skip(
            f"corpus conversation folder {name} not found under {CORPUS} (set SNAPSHOT_CORPUS)"
        )
    return path


@pytest.mark.parametrize("name", OPENHANDS_V1)
def test_an_openhands_v1_folder_imports_the_same_spilled_or_held(
    name: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    [held], [spilled] = _held_then_spilled(_corpus_folder(name), tmp_path, monkeypatch, capsys)
    assert len(spilled.messages) > 3 and spilled.tip == held.tip


def _v1_event(folder: Path, i: int, ev: dict[str, Any] | str) -> None:
    """An event file (``ev`` as text: a file cut short, as one still being written)."""
    if isinstance(ev, str):
        name = f"event-{i:05d}-{'0' * 8}-0000-0000-0000-{i:012d}.json"
        (folder / name).write_text(ev, encoding="utf-8")
    else:
        _event(folder, i, ev)


def _v1_call(eid: str, call: str, response: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": "ActionEvent",
        "id": eid,
        "source": "agent",
        "tool_name": "task" if "prompt" in args else "terminal",
        "tool_call_id": call,
        "llm_response_id": response,
        "thought": [{"type": "text", "text": f"thinking about {call}"}],
        "tool_call": {"id": call, "name": "terminal", "arguments": json.dumps(args)},
    }


def _v1_result(eid: str, action: str, call: str, text: str) -> dict[str, Any]:
    return {
        "kind": "ObservationEvent",
        "id": eid,
        "source": "environment",
        "tool_call_id": call,
        "action_id": action,
        "observation": {"content": [{"type": "text", "text": text}], "is_error": False},
    }


def _v1_folder(tmp_path: Path) -> Path:
    """Parallel calls of one response, a repeated event id, a task sub-agent, a partial last file."""
    parent = tmp_path / "c0ffee"
    events = parent / "events"
    events.mkdir(parents=True)
    (parent / "base_state.json").write_text(json.dumps({"id": "c0ffee"}), encoding="utf-8")
    prompt = "look for the parser"
    for i, ev in enumerate(
        [
            _user("u1", "go \ud83d"),  # a lone surrogate, as a JavaScript writer leaves
            _v1_call("a1", "c1", "r1", {"command": "ls"}),
            _v1_call("a2", "c2", "r1", {"command": "pwd"}),  # joins a1's message
            _v1_call("a3", "c3", "r1", {"prompt": prompt}),
            _v1_result("o1", "a1", "c1", "a.txt"),
            _v1_result("o2", "a2", "c2", "/w"),
            _v1_result("o3", "a3", "c3", "found it"),
            _user("o2", "an event id seen two events before"),
            _v1_call("a4", "c4", "r2", {"command": "exit"}),  # never answered
            '{"kind": "MessageEvent", "id": "cut',  # still being written
        ]
    ):
        _v1_event(events, i, ev)
    sub = parent / "subagents" / "5ab"
    (sub / "events").mkdir(parents=True)
    _v1_event(sub / "events", 0, _user("su", prompt))
    _v1_event(sub / "events", 1, _v1_call("sa", "s1", "rs", {"command": "grep parse"}))
    _v1_event(sub / "events", 2, _v1_result("so", "sa", "s1", "def parse"))
    return parent


def test_a_synthetic_openhands_v1_folder_imports_the_same_spilled_or_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _v1_folder(tmp_path)
    rewrites: list[int] = []
    setitem = SpilledMessages.__setitem__

    def counting(self: SpilledMessages, i: int, message: Message) -> None:
        rewrites.append(i)
        setitem(self, i, message)

    held, spilled = _held_then_spilled(
        folder, tmp_path, monkeypatch, capsys, count=(SpilledMessages, "__setitem__", counting)
    )
    main, child = spilled
    assert [c.agent for c in spilled] == ["main", "5ab"] and child.meta["task_call"] == "c3"
    a1 = main.get("a1")
    assert [c.id for c in a1.tool_calls()] == ["c1", "c2", "c3"]
    assert "o2-5" in main.index and main.tip == "a4" == held[0].tip
    assert any("last event file is partial" in w for w in main.warnings)
    # A message is stored once its parallel calls have joined it: never rewritten.
    assert not rewrites


def test_an_openhands_v1_folder_spills_when_its_event_files_reach_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _v1_folder(tmp_path)
    size = sum(f.stat().st_size for f in (folder / "events").iterdir())
    monkeypatch.setattr(spill, "SPILL_BYTES", size + 1)
    small = import_path(folder)
    monkeypatch.setattr(spill, "SPILL_BYTES", size)
    large = import_path(folder)
    assert isinstance(small[0].messages, tuple) and isinstance(large[0].messages, SpilledMessages)
    # The sub-agent's folder is far smaller: it is measured on its own and stays held.
    assert isinstance(large[1].messages, tuple)
    assert large == small


# --- pickling, map_images and the store over a spill (no whole list in memory) ---------


def test_a_spilled_conversation_pickles_into_a_spill_of_its_own() -> None:
    import copy
    import pickle

    msgs = [*_messages(), Message("late", "m9", "user", ()), Message("m9", None, "user", ())]
    s = SpilledMessages(msgs)
    s[1] = Message("m2", "m1", "assistant", (TextBlock("replaced " * 100),))
    conv = Conversation(id="c", messages=s, tip="m3", warnings=("w",), meta={"k": [1]})
    for back in (pickle.loads(pickle.dumps(conv)), copy.deepcopy(conv)):
        assert isinstance(back.messages, SpilledMessages)
        assert back.messages._file is not s._file
        assert back == conv and back.messages == list(s)
        assert list(message_texts(back.messages)) == list(message_texts(s))
        assert back.path_ids("late") == conv.path_ids("late") == ["m9", "late"]
        assert back.get("m2").text().startswith("replaced ")
    copied = pickle.loads(pickle.dumps(s))
    s.close()  # the original's file gone: the copy reads its own
    assert copied[2] == msgs[2] and copied[0].blocks[0].text == "hi \ud83d half an emoji"


def _imaged() -> list[Message]:
    """Messages with an image, one inside a tool result, and one whose meta only looks like one."""
    return [
        *_messages(),
        Message("m4", "m3", "user", (ImageBlock("image/png", path="shot.png", origin="f"),)),
        Message("m5", "m4", "assistant", (TextBlock('"type": "image"'),), {"type": "image"}),
    ]


def test_map_images_over_a_spill_writes_a_new_spill_message_by_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from dataclasses import replace

    from snapshot.transcript import spill as spill_module
    from snapshot.transcript.model import map_images

    msgs = _imaged()
    held = Conversation(id="c", messages=tuple(msgs), tip="m5")
    spilled = Conversation(id="c", messages=SpilledMessages(msgs), tip="m5")
    parsed: list[str] = []
    parse = spill_module.message_from_dict
    monkeypatch.setattr(
        spill_module, "message_from_dict", lambda d: parsed.append(d["id"]) or parse(d)
    )

    def moved(img: ImageBlock) -> ImageBlock:
        return replace(img, path=f"moved/{img.path or 'inline'}")

    out = map_images(spilled, moved)
    assert isinstance(out.messages, SpilledMessages) and out.messages is not spilled.messages
    assert out == map_images(held, moved) and out.tip == "m5"
    assert out.get("m4").blocks[0].path == "moved/shot.png"  # type: ignore[union-attr]
    assert out.messages[2].images()[0].path == "moved/inline"
    # Only messages whose text may hold an image are parsed; the rest are copied as stored.
    assert parsed[:3] == ["m3", "m4", "m5"]
    assert list(message_texts(out.messages))[:2] == list(message_texts(spilled.messages))[:2]
    # No image at all: the very same spill, nothing written or parsed.
    plain = Conversation(id="p", messages=SpilledMessages(msgs[:2]), tip="m2")
    assert map_images(plain, moved).messages is plain.messages


def _stored_bytes(conv: Conversation, root: Path) -> bytes:
    from snapshot.transcript.store import Store

    return Store(root).save(conv).read_bytes()


def test_the_store_writes_a_spill_message_by_message_and_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import numpy as np

    from snapshot.rendering.raster import to_png
    from snapshot.transcript import model
    from snapshot.transcript.encodable import encodable_value
    from snapshot.transcript.store import Store
    from snapshot.transcript.store_log import record_line

    src = tmp_path / "src"
    src.mkdir()
    (src / "shot.png").write_bytes(to_png(np.zeros((3, 4), np.uint8), (4, 3)))
    msgs = _imaged()
    msgs[3] = Message("m4", "m3", "user", (ImageBlock("image/png", path=str(src / "shot.png")),))
    common = {"id": "c", "tip": "m5", "source": str(src / "log.jsonl"), "meta": {"é": 1.5}}
    held = Conversation(messages=tuple(msgs), **common)  # type: ignore[arg-type]
    spilled = Conversation(messages=SpilledMessages(msgs), **common)  # type: ignore[arg-type]
    held_bytes = _stored_bytes(held, tmp_path / "held")
    # The log: the head, one record per message (cleaned), the head again with the
    # count of what was replaced, the tip.
    kept = Store(tmp_path / "held")._keep_images(held)
    record, replaced = encodable_value(model.conversation_to_dict(kept))
    assert replaced == 1 and kept.messages[3].blocks[0].path.startswith("images/")  # type: ignore[union-attr]
    messages, tip = record.pop("messages"), record.pop("tip")
    warned = {
        **record,
        "warnings": [
            *record["warnings"],
            "1 unencodable character(s) (lone surrogates) replaced with U+FFFD when stored",
        ],
    }
    lines = [
        record_line("conversation", record)[0],
        *(record_line("message", {"message": m})[0] for m in messages),
        record_line("conversation", warned)[0],
        record_line("tip", {"tip": tip})[0],
    ]
    assert held_bytes == b"".join(lines)
    with monkeypatch.context() as m:
        # Never every message parsed in one go (a list, a record): one at a time, by position.
        m.setattr(SpilledMessages, "__iter__", lambda self: pytest.fail("iterated whole"))
        spilled_bytes = _stored_bytes(spilled, tmp_path / "spilled")
    assert spilled_bytes == held_bytes
    assert Store(tmp_path / "spilled").load("c").get("m4").images()[0].path == str(
        tmp_path / "spilled" / "c" / kept.messages[3].blocks[0].path  # type: ignore[union-attr, operator]
    )


def test_an_imported_spilled_session_is_stored_as_the_held_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real session through the store: spilled on import, the same file as held."""
    path = _corpus_case(SESSIONS[0])
    [held, *_] = import_path(path)
    monkeypatch.setattr(spill, "SPILL_BYTES", 0)
    [spilled, *_] = import_path(path)
    assert isinstance(spilled.messages, SpilledMessages)
    assert _stored_bytes(spilled, tmp_path / "s") == _stored_bytes(held, tmp_path / "h")


def _load_both(root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Conversation, Conversation]:
    """The stored conversation ``c`` read whole, then as a large file is (into a spill)."""
    from snapshot.transcript.store import Store

    whole = Store(root).load("c")
    assert isinstance(whole.messages, tuple)
    with monkeypatch.context() as m:
        m.setattr(spill, "SPILL_BYTES", 0)
        m.setattr(SpilledMessages, "__iter__", lambda self: pytest.fail("iterated whole"))
        spilled = Store(root).load("c")
    assert isinstance(spilled.messages, SpilledMessages)
    return whole, spilled


def test_a_large_store_log_loads_into_a_spill_as_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Equal to the log read into a tuple, a line at a time; also a log edited by hand."""
    from snapshot.transcript.store import Store

    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "shot.png").write_bytes(b"\x89PNG")
    msgs = _imaged()
    Store(tmp_path).save(Conversation(id="c", messages=tuple(msgs), tip="m5", warnings=("w",)))
    whole, spilled = _load_both(tmp_path, monkeypatch)
    assert spilled == whole and spilled.warnings == whole.warnings
    assert spilled.image_folders == whole.image_folders == (str(tmp_path / "c"),)
    assert spilled.get("m4").images()[0].path == str(tmp_path / "c" / "shot.png")
    # A log written by hand: spaces, an escaped lone surrogate, keys in another order.
    path = tmp_path / "c" / "main.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    records[1]["message"]["blocks"][0]["text"] = "x \ud83d y"
    records[0]["source"] = "\udc00"
    records[0]["meta"] = {"n": 12345678901234567890, "f": -1.5e-300, "é": ["ü😀", True, None]}
    records = [{**dict(reversed(list(r.items())))} for r in records]
    path.write_text("".join(json.dumps(r, ensure_ascii=True) + "\n" for r in records))
    whole, spilled = _load_both(tmp_path, monkeypatch)
    assert spilled == whole and spilled.warnings == whole.warnings
    assert whole.warnings[-1].startswith("2 unencodable character(s)")
    assert spilled.messages[0].text() == "x \ufffd y"


@pytest.mark.parametrize(
    "text",
    [
        '{"schema_version":1,"conversation":{"id":"c","tip":null,"messages":[{"id":"m"}]}}',
        '{"schema_version":1,"conversation":{"id":"c","tip":null,"messages":[3]}}',
        '{"schema_version":1,"conversation":{"id":"c","tip":"zz","messages":[]}}',
        '{"schema_version":1,"conversation":{"id":"c","tip":null,"messages":[]}} x',
        '{"schema_version":9,"conversation":{"id":"c","tip":null,"messages":[]}}',
        '{"schema_version":1,"conversation":{"id":"d","tip":null,"messages":[]}}',
        '{"schema_version":1,"conversation":[]}',
        '{"schema_version":1,"conversation":{"id":"c","tip":null,"messages":[]}}',
        '{"schema_version":1,"conversation":{"id":"c","tip":"a",'
        '"messages":[{"id":"a","parent":null,"role":"user","blocks":[]}]}}',
    ],
)
def test_a_large_one_document_store_file_reads_as_when_read_whole(
    text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store file of the one-document format, streamed when large: the same conversation,
    or an error naming the file (the streaming reader's, with line and column)."""
    from snapshot.transcript.store import Store

    def outcome() -> object:
        try:
            conv = Store(tmp_path).load("c")
        except TranscriptError as exc:
            assert str(exc).startswith(str(tmp_path / "c" / "main.json"))
            return "error"
        return conv, conv.warnings, list(conv.messages)

    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "main.json").write_text(text)
    whole = outcome()
    monkeypatch.setattr(spill, "SPILL_BYTES", 0)
    assert outcome() == whole


@pytest.mark.parametrize(
    "text",
    [
        '{"schema_version":1,"conversation":{"id":"c","tip":null,'
        '"messages":[{"id":"a","parent":null,"role":"user"}],"messages":[]}}',
        '{"schema_version":1,"conversation":{"id":"c","tip":null,"messages":[]},'
        '"conversation":{"id":"c","tip":"a","messages":[{"id":"a","parent":null,"role":"user"}]}}',
    ],
)
def test_a_large_one_document_store_file_with_a_repeated_key_is_refused(
    text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """json.loads keeps the last of a repeated key, a stream has read the first: refused."""
    from snapshot.transcript.store import Store

    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "main.json").write_text(text)
    monkeypatch.setattr(spill, "SPILL_BYTES", 0)
    with pytest.raises(TranscriptError, match=r"main.json: corrupted store file \(a repeated key"):
        Store(tmp_path).load("c")


def test_a_fork_of_a_spilled_conversation_is_a_spill_equal_to_the_held_fork() -> None:
    from snapshot.transcript.tree import fork

    msgs = [*_imaged(), Message("b1", "m1", "assistant", (TextBlock("a branch"),))]
    held = Conversation(id="c", messages=tuple(msgs), tip="m5")
    spilled = Conversation(id="c", messages=SpilledMessages(msgs), tip="m5")
    for at in (None, "m3", "b1"):
        one, two = fork(held, "f", at=at), fork(spilled, "f", at=at)
        assert isinstance(two.messages, SpilledMessages) and isinstance(one.messages, tuple)
        assert two == one and two.meta == one.meta and two.path_ids() == one.path_ids()


def test_a_rewind_of_a_spilled_conversation_parses_only_what_it_abandons(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from snapshot.transcript.tree import Checkpoint, rewind

    msgs = _imaged()
    held = Conversation(id="c", messages=tuple(msgs), tip="m5")
    spilled = Conversation(id="c", messages=SpilledMessages(msgs), tip="m5")
    parsed: list[int] = []
    getitem = SpilledMessages.__getitem__
    monkeypatch.setattr(
        SpilledMessages, "__getitem__", lambda self, i: parsed.append(i) or getitem(self, i)
    )
    one, two = (rewind(c, [Checkpoint("start", "m3")], "start") for c in (held, spilled))
    assert sorted(parsed) == [3, 4]  # the two messages left behind, for their extract
    assert two.conversation == one.conversation and two.abandoned == one.abandoned
    assert two.extract == one.extract and two.conversation.meta == one.conversation.meta
    assert one.abandoned == ("m4", "m5")


def test_a_spilled_openhands_v1_folder_and_its_sub_agents_share_one_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Many large sub-agent folders must not hold a file descriptor each."""
    folder = _v1_folder(tmp_path)
    for n in range(3):
        sub = folder / "subagents" / f"extra{n}"
        (sub / "events").mkdir(parents=True)
        _v1_event(sub / "events", 0, _user(f"e{n}", f"side task {n}"))
    made = spill_files_made(monkeypatch)
    from snapshot.transcript.formats import ImportOptions, get_format

    # The importer alone: cleaning the lone surrogate afterwards copies into a spill of its own.
    convs = get_format("openhands-v1").load(folder, ImportOptions())
    assert len(convs) == 5
    assert all(isinstance(c.messages, SpilledMessages) for c in convs)
    assert len(made) == 1
