"""The crash-safe store: round trips, turn boundaries, ids, schema versions, locking, bad files."""

from __future__ import annotations

import json
import multiprocessing
import os
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from test_tree import trees

from snapshot.errors import TranscriptError
from snapshot.transcript.model import (
    Conversation,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResult,
    linear,
    tool_pairing,
)
from snapshot.transcript.store import (
    SCHEMA_VERSION,
    Store,
    atomic_write,
    safe_id,
    validate_id,
)
from snapshot.transcript.tree import Checkpoint, branch, open_calls


def sample(conv_id: str = "c1", agent: str = "main") -> Conversation:
    return linear(
        conv_id,
        [
            (
                "m1",
                "user",
                [TextBlock("héllo"), ImageBlock("image/png", b"\x89PNG\x00", width=2, height=3)],
            ),
            (
                "m2",
                "assistant",
                [ThinkingBlock("hmm", "sig"), ToolCall("k1", "bash", {"cmd": "ls"})],
            ),
            ("m3", "tool", [ToolResult("k1", (TextBlock("a.txt"),), is_error=True)]),
            ("m4", "assistant", [TextBlock("done")]),
        ],
        agent=agent,
        format="test",
        source="x.jsonl",
        meta={"k": [1, 2]},
        warnings=("w1",),
    )


def test_round_trip_keeps_everything(tmp_path: Path) -> None:
    store = Store(tmp_path / "ws")
    conv = sample()
    path = store.save(conv)
    assert path == tmp_path / "ws" / "c1" / "main.jsonl"
    assert store.load("c1") == conv
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert {r["snapshot_store"] for r in records} == {SCHEMA_VERSION} == {2}
    assert store.conversations() == ["c1"]


def test_two_agents_of_one_conversation_keep_two_files(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.save(sample(agent="main"))
    store.save(sample(agent="agent-a1b2"))
    assert sorted(p.name for p in (tmp_path / "c1").glob("*.jsonl")) == [
        "agent-a1b2.jsonl",
        "main.jsonl",
    ]
    assert store.agents("c1") == ["agent-a1b2", "main"]
    assert store.load("c1", "agent-a1b2").agent == "agent-a1b2"


def test_a_save_mid_turn_is_refused(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.save(sample())
    mid = branch(sample(), "m2")  # the call k1 has no result on this path
    with pytest.raises(TranscriptError, match=r"mid-turn at 'm2'.*k1 \(bash\).*no result"):
        store.save(mid)
    assert store.load("c1").tip == "m4"  # the stored turn is untouched


def test_a_result_on_an_abandoned_branch_does_not_close_the_call(tmp_path: Path) -> None:
    conv = sample()
    alt = Message("alt", "m2", "user", (TextBlock("interrupt"),))
    conv = conv.with_messages([*conv.messages, alt], "alt")
    with pytest.raises(TranscriptError, match="mid-turn"):
        Store(tmp_path).save(conv)


@pytest.mark.parametrize(
    "bad",
    [
        "../evil",
        "..",
        ".",
        "/etc/passwd",
        "a/b",
        "a\\b",
        "",
        ".hidden",
        "x" * 129,
        "a\x00b",
        "a b",
        "é",
        "c.lock",
    ],
)
def test_unsafe_ids_are_refused(tmp_path: Path, bad: str) -> None:
    store = Store(tmp_path / "ws")
    with pytest.raises(TranscriptError):
        validate_id(bad)
    with pytest.raises(TranscriptError):
        store.save(sample(conv_id=bad))
    with pytest.raises(TranscriptError):
        store.save(sample(agent=bad))
    with pytest.raises(TranscriptError):
        store.load(bad)
    assert not (tmp_path / "evil").exists() and not (tmp_path / "ws").exists()


def test_traversal_error_says_what_to_do() -> None:
    with pytest.raises(TranscriptError, match="path separator; use letters, digits"):
        validate_id("../x")
    with pytest.raises(TranscriptError, match="at most 128"):
        validate_id("a" * 200)


def test_safe_id_maps_any_string_to_a_stable_distinct_file_name() -> None:
    assert safe_id("plain-id_1.2") == "plain-id_1.2"
    a, b = safe_id("task/3 trial 0"), safe_id("task/3 trial:0")
    assert a != b and a == safe_id("task/3 trial/0".replace("/0", " 0"))
    for raw in ("../../etc", "/abs/path", "", "é" * 300, "..."):
        validate_id(safe_id(raw))


def test_corrupted_file_is_a_clear_error_naming_the_file(tmp_path: Path) -> None:
    store = Store(tmp_path)
    path = store.save(sample())
    path.write_bytes(path.read_bytes()[:50])  # truncated by hand: not even the head is whole
    with pytest.raises(TranscriptError, match=rf"{path}: corrupted store log") as info:
        store.load("c1")
    assert "\n" not in str(info.value)
    path.write_text("[1, 2]\n")
    with pytest.raises(TranscriptError, match=rf"{path}:1: corrupted store log.*not a JSON object"):
        store.load("c1")
    path.write_text('{"snapshot_store":2,"type":"conversation","id":"c1"}\n')
    with pytest.raises(TranscriptError, match=rf"{path}: corrupted store log.*warnings"):
        store.load("c1")
    path.write_text('{"snapshot_store":2,"type":"tip","tip":null}\n')
    with pytest.raises(TranscriptError, match="no conversation record"):
        store.load("c1")
    path.write_bytes(b"\xff\xfe garbage\n")
    with pytest.raises(TranscriptError, match="corrupted"):
        store.load("c1")


def test_a_file_holding_another_conversation_is_refused(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.save(sample("c2"))
    (tmp_path / "c1").mkdir()
    (tmp_path / "c2" / "main.jsonl").rename(tmp_path / "c1" / "main.jsonl")
    with pytest.raises(TranscriptError, match="moved or copied by hand"):
        store.load("c1")


def test_missing_conversation_names_the_stored_agents(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.save(sample(agent="sub"))
    with pytest.raises(TranscriptError, match="stored agents of 'c1': sub"):
        store.load("c1")
    with pytest.raises(TranscriptError, match="import it first"):
        store.load("nope")


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    store = Store(tmp_path)
    path = store.save(sample())
    first, rest = path.read_bytes().split(b"\n", 1)
    path.write_bytes(first.replace(b'"snapshot_store":2', b'"snapshot_store":3') + b"\n" + rest)
    with pytest.raises(TranscriptError, match=r"version 3 is newer.*upgrade snapshot"):
        store.load("c1")
    path.write_bytes(first.replace(b'"snapshot_store":2', b'"snapshot_store":"one"') + b"\n" + rest)
    with pytest.raises(TranscriptError, match="no snapshot_store version"):
        store.load("c1")
    # The one-document format's own version check still holds for stores written before.
    legacy = path.with_suffix(".json")
    path.unlink()
    legacy.write_text(json.dumps({"schema_version": 2, "conversation": {}}))
    with pytest.raises(TranscriptError, match=r"schema_version 2 is newer.*upgrade snapshot"):
        store.load("c1")
    legacy.write_text(json.dumps({"schema_version": "one", "conversation": {}}))
    with pytest.raises(TranscriptError, match="not a version number"):
        store.load("c1")


def test_a_version_0_file_is_migrated(tmp_path: Path) -> None:
    """Version 0: flat record, no schema_version, no agent, no tip, links in ``parent_id``."""
    (tmp_path / "old").mkdir()
    v0 = {
        "id": "old",
        "format": "claude-code-jsonl",
        "messages": [
            {
                "id": "a",
                "parent_id": None,
                "role": "user",
                "blocks": [{"type": "text", "text": "hi"}],
            },
            {
                "id": "b",
                "parent_id": "a",
                "role": "assistant",
                "blocks": [{"type": "text", "text": "yo"}],
            },
            {
                "id": "c",
                "parent_id": "a",
                "role": "assistant",
                "blocks": [{"type": "text", "text": "alt"}],
            },
        ],
    }
    (tmp_path / "old" / "sub.json").write_text(json.dumps(v0))
    store = Store(tmp_path)
    conv = store.load("old", "sub")
    assert conv.agent == "sub"  # from the file name
    assert conv.tip == "c"  # the last message recorded
    assert [m.parent for m in conv.messages] == [None, "a", "a"]
    assert conv.format == "claude-code-jsonl"
    # Saving writes the current version: a log, and the old document goes.
    store.save(conv)
    assert not (tmp_path / "old" / "sub.json").exists()
    assert (
        json.loads((tmp_path / "old" / "sub.jsonl").read_text().splitlines()[0])["snapshot_store"]
        == SCHEMA_VERSION
    )
    assert Store(tmp_path).load("old", "sub") == conv


def test_checkpoints_survive_a_restart(tmp_path: Path) -> None:
    Store(tmp_path).save_all(sample(), [Checkpoint("start", "m1"), Checkpoint("done", "m4")])
    fresh = Store(tmp_path)  # a new process would build a new Store
    assert fresh.load_checkpoints("c1") == (Checkpoint("start", "m1"), Checkpoint("done", "m4"))
    assert [p.name for p in (tmp_path / "c1").iterdir() if p.suffix != ".lock"] == ["main.jsonl"]
    assert fresh.agents("c1") == ["main"]  # the checkpoints file is not an agent
    assert fresh.load_checkpoints("c1", "other") == ()


def test_corrupted_or_newer_checkpoints_file(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.save(sample())
    store.save_checkpoints("c1", "main", [Checkpoint("a", "m1")])
    path = store.path_for("c1")
    whole = path.read_bytes()
    path.write_bytes(
        whole + b'{"snapshot_store":2,"type":"checkpoints","checkpoints":[{"label":3}]}\n'
    )
    with pytest.raises(TranscriptError, match=rf"{path}:\d+: corrupted store log \(bad checkpoint"):
        Store(tmp_path).load_checkpoints("c1")
    # A checkpoints file of the one-document format, read while no log exists.
    path.unlink()
    old = store.checkpoints_path("c1")
    old.write_text("{not json")
    with pytest.raises(TranscriptError, match=rf"{old}: corrupted"):
        store.load_checkpoints("c1")
    old.write_text(json.dumps({"schema_version": 9, "checkpoints": []}))
    with pytest.raises(TranscriptError, match="newer"):
        store.load_checkpoints("c1")
    old.write_text(json.dumps({"schema_version": 1, "checkpoints": [{"label": 3}]}))
    with pytest.raises(TranscriptError, match="bad entry"):
        store.load_checkpoints("c1")


def test_atomic_write_leaves_no_temp_and_replaces(tmp_path: Path) -> None:
    target = tmp_path / "f.json"
    atomic_write(target, b"one")
    atomic_write(target, b"two")
    assert target.read_bytes() == b"two"
    assert os.listdir(tmp_path) == ["f.json"]
    mask = os.umask(0o022)
    os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask  # not mkstemp's private 0600


def test_a_stale_temp_file_from_a_killed_writer_is_cleaned(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.save(sample())
    stale = tmp_path / "c1" / ".main.jsonl.abc123.tmp"
    stale.write_bytes(b"{half a fi")
    assert store.load("c1") == sample()  # a temp file never shadows the real one
    store.save(branch(sample(), "m1"))
    assert not stale.exists()


def test_a_failed_write_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(tmp_path)
    store.save(sample())

    def boom(*args: object) -> None:
        raise OSError(28, "disk full")

    monkeypatch.setattr(os, "pwrite", boom)
    with pytest.raises(
        TranscriptError, match=r"main.jsonl: cannot be written \(disk full\).*intact"
    ):
        store.save(branch(sample(), "m1"))
    monkeypatch.undo()
    assert store.load("c1").tip == "m4"
    store.save(branch(sample(), "m1"))  # the next write works
    assert Store(tmp_path).load("c1").tip == "m1"
    assert [p.name for p in (tmp_path / "c1").iterdir() if p.suffix == ".tmp"] == []


def test_update_is_reentrant_and_refuses_identity_changes(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.save(sample())
    with store.lock("c1"):
        store.update("c1", "main", lambda c: branch(c, "m1"))  # save() inside update() inside lock
    assert store.load("c1").tip == "m1"
    with pytest.raises(TranscriptError, match="must not change"):
        store.update("c1", "main", lambda c: sample("c9"))


def _append_many(root: str, worker: int, count: int) -> None:
    store = Store(root)
    for k in range(count):

        def add(conv: Conversation, k: int = k) -> Conversation:
            mid = f"w{worker}-{k}"
            msg = Message(mid, conv.tip, "user", (TextBlock(f"from {worker}"),))
            return conv.with_messages([*conv.messages, msg], mid)

        store.update("shared", "main", add)


def test_concurrent_writers_are_serialized(tmp_path: Path) -> None:
    """Four processes append 25 messages each with load-modify-save; none is lost."""
    store = Store(tmp_path)
    store.save(linear("shared", [("root", "user", [TextBlock("start")])]))
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_append_many, args=(str(tmp_path), w, 25)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    conv = store.load("shared")
    assert len(conv.messages) == 101
    assert len(conv.path()) == 101  # one chain: each writer saw every earlier append


def test_a_broken_version_0_file_is_reported_not_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "old").mkdir()
    path = tmp_path / "old" / "main.json"
    for bad in (
        {"id": "old", "messages": {"a": 1}},
        {"id": "old", "messages": [3]},
        {"id": "old", "messages": [{}]},
    ):
        path.write_text(json.dumps(bad))
        with pytest.raises(TranscriptError, match=rf"{path}: corrupted store file"):
            Store(tmp_path).load("old")


def test_a_workspace_that_is_a_file_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "ws").write_text("not a folder")
    with pytest.raises(TranscriptError, match="cannot create the workspace folder"):
        Store(tmp_path / "ws").save(sample())
    (tmp_path / "ws2").mkdir()
    (tmp_path / "ws2" / "c1").write_text("not a folder")
    with pytest.raises(TranscriptError, match="not a directory"):
        Store(tmp_path / "ws2").save(sample())


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(conv=trees(defects=True))
def test_any_tree_round_trips_or_is_refused_exactly_when_mid_turn(
    tmp_path_factory: pytest.TempPathFactory, conv: Conversation
) -> None:
    store = Store(tmp_path_factory.mktemp("ws"))
    if open_calls(conv):
        with pytest.raises(TranscriptError, match="mid-turn"):
            store.save(conv)
        assert not store.exists(conv.id)
    else:
        store.save(conv)
        assert store.load(conv.id) == conv


@settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(trees(), trees())
def test_extend_keeps_every_stored_message_and_only_appends(
    first: Conversation, second: Conversation
) -> None:
    import tempfile

    from snapshot.transcript.tree import keyed_by_content

    a = keyed_by_content(first)
    b = keyed_by_content(replace(second, id=a.id, agent=a.agent))
    store = Store(tempfile.mkdtemp())
    for conv in (a, b):
        if open_calls(conv):
            conv = replace(conv, tip=None)
        store.extend(conv)
    log = store.path_for(a.id, a.agent).read_bytes()
    stored = store.load(a.id, a.agent)
    assert {m.id for m in a.messages} | {m.id for m in b.messages} == {
        m.id for m in stored.messages
    }
    store.extend(a if not open_calls(a) else replace(a, tip=None))
    assert store.path_for(a.id, a.agent).read_bytes().startswith(log)


def test_extend_records_a_linked_call_after_the_first_version(tmp_path: Path) -> None:
    """A Gemini call stored without its id, then named by the client: one message, both lines."""
    call = ToolCall("gemini-call-1-0", "ls", {})
    store = Store(tmp_path)
    first = linear("g", [("u", "user", [TextBlock("go")]), ("a", "assistant", [call])])
    store.extend(replace(first, tip="u"))
    linked = replace(call, id="ls-1733-9f")
    second = linear(
        "g",
        [
            ("u", "user", [TextBlock("go")]),
            ("a", "assistant", [linked]),
            ("r", "user", [ToolResult("ls-1733-9f", (TextBlock("a.py"),))]),
        ],
    )
    store.extend(second)
    stored = store.load("g")
    assert [c.id for m in stored.messages for c in m.tool_calls()] == ["ls-1733-9f"]
    assert not tool_pairing(stored.messages).unanswered_calls
    assert store.path_for("g").read_text().count('"gemini-call-1-0"') == 1  # the first line stays
