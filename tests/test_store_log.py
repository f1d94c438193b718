"""The append-only store: appends cost a turn, crashes cost at most the turn being written.

Also: stores written by the one-document format (snapshot at 1e38e1a, the
fixture in ``tests/data/store_v1_1e38e1a``) open as they are and migrate on
the first write; a log compacts offline to what loads the same.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from snapshot.errors import TranscriptError
from snapshot.transcript import store_log
from snapshot.transcript.model import (
    Message,
    TextBlock,
    ToolCall,
    ToolResult,
    linear,
)
from snapshot.transcript.store import Store
from snapshot.transcript.tree import Checkpoint, branch, fork

FIXTURE = Path(__file__).parent / "data" / "store_v1_1e38e1a"


def user(mid: str, parent: str | None, text: str = "hi") -> Message:
    return Message(mid, parent, "user", (TextBlock(text),))


def reply(mid: str, parent: str, text: str = "hello") -> Message:
    return Message(mid, parent, "assistant", (TextBlock(text),))


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def test_append_creates_the_log_and_adds_one_turn_per_call(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.append("c", [user("u1", None), reply("a1", "u1")])
    store.append("c", [user("u2", "a1", "more"), reply("a2", "u2")])
    conv = store.load("c")
    assert conv.path_ids() == ["u1", "a1", "u2", "a2"] and conv.tip == "a2"
    types = [r["type"] for r in lines(store.path_for("c"))]
    assert types == ["conversation", "message", "message", "tip", "message", "message", "tip"]
    assert all(r["snapshot_store"] == 2 for r in lines(store.path_for("c")))


def test_append_writes_the_turn_not_the_conversation(tmp_path: Path) -> None:
    store = Store(tmp_path)
    big = "x" * 200_000
    store.append("c", [user("u1", None, big), reply("a1", "u1", big)])
    before = store.path_for("c").stat().st_size
    turn = [user("u2", "a1", "short"), reply("a2", "u2", "ok")]
    store.append("c", turn)
    grown = store.path_for("c").stat().st_size - before
    turn_json = sum(len(json.dumps(store_log.message_to_dict(m))) for m in turn)
    assert grown <= 2 * turn_json + 100, (grown, turn_json)


def test_append_reads_nothing_while_the_log_is_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(tmp_path)
    store.append("c", [user("u1", None), reply("a1", "u1")])
    store.append("c", [user("u2", "a1")], tip="u2")
    from snapshot.transcript import store as store_module

    monkeypatch.setattr(store_module, "scan", lambda *a, **k: pytest.fail("scanned the log"))
    store.append("c", [reply("a2", "u2")])
    monkeypatch.undo()
    assert Store(tmp_path).load("c").tip == "a2"


def test_a_second_writer_is_seen_before_appending(tmp_path: Path) -> None:
    one, two = Store(tmp_path), Store(tmp_path)
    one.append("c", [user("u1", None)])
    two.append("c", [reply("a1", "u1")])
    with pytest.raises(TranscriptError, match="already holds message 'a1'"):
        one.append("c", [reply("a1", "u1")])
    one.append("c", [user("u2", "a1")])
    assert Store(tmp_path).load("c").path_ids() == ["u1", "a1", "u2"]


def test_append_refuses_what_would_break_the_conversation(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.append("c", [user("u1", None)])
    raw = store.path_for("c").read_bytes()
    with pytest.raises(TranscriptError, match="already holds message 'u1'"):
        store.append("c", [user("u1", None)])
    with pytest.raises(TranscriptError, match="continues from 'nope'"):
        store.append("c", [reply("a1", "nope")])
    with pytest.raises(TranscriptError, match="no message 'zz'"):
        store.append("c", [], tip="zz")
    call = Message("a1", "u1", "assistant", (ToolCall("k1", "ls", {}),))
    with pytest.raises(TranscriptError, match=r"mid-turn at 'a1': tool call k1 \(ls\)"):
        store.append("c", [call])
    assert store.path_for("c").read_bytes() == raw
    answered = Message("r1", "a1", "user", (ToolResult("k1", (TextBlock("a.py"),)),))
    store.append("c", [call, answered, reply("a2", "r1")])
    assert store.load("c").tip == "a2"


def test_a_branch_appends_a_tip_record_and_keeps_every_message(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.save(linear("c", [("u1", "user", []), ("a1", "assistant", [])]))
    size = store.path_for("c").stat().st_size
    store.save(branch(store.load("c"), "u1"))
    added = store.path_for("c").read_bytes()[size:]
    assert [json.loads(x)["type"] for x in added.splitlines()] == ["tip"]
    assert store.load("c").tip == "u1" and len(store.load("c").messages) == 2


def test_save_appends_only_what_differs(tmp_path: Path) -> None:
    store = Store(tmp_path)
    conv = linear("c", [("u1", "user", [TextBlock("x" * 50_000)]), ("a1", "assistant", [])])
    store.save(conv)
    loaded = Store(tmp_path).load("c")
    size = store.path_for("c").stat().st_size
    grown = loaded.with_messages([*loaded.messages, user("u2", "a1")], "u2")
    Store(tmp_path).save(grown)
    added = [json.loads(x) for x in store.path_for("c").read_bytes()[size:].splitlines()]
    assert [r["type"] for r in added] == ["message", "tip"]
    # A changed message is recorded again (same id), a dropped one is trimmed.
    edited = grown.with_messages([grown.messages[0], user("u2", "u1", "edited")], "u2")
    Store(tmp_path).save(edited)
    back = Store(tmp_path).load("c")
    assert back == edited and [m.id for m in back.messages] == ["u1", "u2"]
    assert lines(store.path_for("c"))[-2] == {"snapshot_store": 2, "type": "trim", "drop": ["a1"]}
    # Nothing changed: nothing written.
    size = store.path_for("c").stat().st_size
    Store(tmp_path).save(back)
    assert store.path_for("c").stat().st_size == size


def test_checkpoints_and_notes_are_records_of_the_log(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.save(linear("c", [("u1", "user", []), ("a1", "assistant", [])]))
    store.save_checkpoints("c", "main", [Checkpoint("start", "u1")])
    store.record("c", {"type": "compaction", "pass": 1, "rungs": ["elide"], "pages": 2})
    assert Store(tmp_path).load_checkpoints("c") == (Checkpoint("start", "u1"),)
    assert [(r["type"], r["pages"]) for r in Store(tmp_path).records("c", kind="compaction")] == [
        ("compaction", 2)
    ]
    with pytest.raises(TranscriptError, match="type must be a string other than"):
        store.record("c", {"type": "tip", "tip": "u1"})


def test_a_fork_starts_a_log_of_its_own(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.save(linear("c", [("u1", "user", []), ("a1", "assistant", [])]))
    forked = fork(store.load("c"), "c-fork1")
    store.save(forked)
    assert store.path_for("c-fork1").is_file()
    assert not {m.id for m in forked.messages} & {"u1", "a1"}
    assert store.load("c-fork1") == forked


def test_a_torn_last_line_is_skipped_with_a_warning_and_cut_by_the_next_write(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path)
    store.append("c", [user("u1", None), reply("a1", "u1")])
    path = store.path_for("c")
    whole = path.read_bytes()
    with path.open("ab") as fh:  # a crash halfway through the next turn
        fh.write(b'{"snapshot_store":2,"type":"message","message":{"id":"u2","par')
    conv = Store(tmp_path).load("c")
    assert conv.tip == "a1" and len(conv.messages) == 2
    assert "was cut short by a crash" in conv.warnings[-1]
    Store(tmp_path).append("c", [user("u2", "a1")])
    assert path.read_bytes().startswith(whole)
    assert Store(tmp_path).load("c").warnings == ()


def test_an_unfinished_turn_is_skipped_whole(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.append("c", [user("u1", None)])
    path = store.path_for("c")
    committed = path.stat().st_size
    # Two whole message records but no tip: the writer died before the turn's end.
    with path.open("ab") as fh:
        fh.write(store_log.message_line(reply("a1", "u1"))[0])
        fh.write(store_log.message_line(user("u2", "a1"))[0])
    conv = Store(tmp_path).load("c")
    assert [m.id for m in conv.messages] == ["u1"]
    assert "its last turn (2 message record(s)" in conv.warnings[-1]
    Store(tmp_path).append("c", [reply("a1", "u1", "again")])
    assert Store(tmp_path).load("c").get("a1").text() == "again"
    assert [r["type"] for r in lines(path)][3:] == ["message", "tip"]
    assert path.stat().st_size > committed


def test_a_corrupted_line_before_the_end_is_an_error_naming_it(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.append("c", [user("u1", None)])
    store.append("c", [reply("a1", "u1")])
    path = store.path_for("c")
    raw = path.read_bytes().splitlines(keepends=True)
    raw[1] = b"{not json}\n"
    path.write_bytes(b"".join(raw))
    with pytest.raises(TranscriptError, match=r"main.jsonl:2: corrupted store log"):
        Store(tmp_path).load("c")
    path.write_bytes(b'{"snapshot_store":3,"type":"conversation","id":"c"}\n')
    with pytest.raises(TranscriptError, match="version 3 is newer"):
        Store(tmp_path).load("c")


def test_compact_rewrites_the_log_to_what_loads_the_same(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.append("c", [user("u1", None), reply("a1", "u1")])
    for i in range(5):
        store.append("c", [], tip="u1" if i % 2 == 0 else "a1")
    store.save(
        store.load("c").with_messages([user("u1", None, "changed"), reply("a1", "u1")], "a1")
    )
    store.save_checkpoints("c", "main", [Checkpoint("start", "u1")])
    store.record("c", {"type": "compaction", "pass": 1})
    before = (store.load("c"), store.load_checkpoints("c"), store.records("c"))
    old, new = store.compact("c")
    assert new < old
    after = (Store(tmp_path).load("c"), store.load_checkpoints("c"), store.records("c"))
    assert after == before and after[0].messages == before[0].messages


def test_a_store_written_by_the_one_document_format_opens_and_migrates(tmp_path: Path) -> None:
    """The fixture was written by ``tests/data/make_store_v1.py`` with snapshot at 1e38e1a."""
    ws = tmp_path / "ws"
    shutil.copytree(FIXTURE, ws)
    store = Store(ws)
    assert store.conversations() == ["legacy"] and store.agents("legacy") == ["agent-a1", "main"]
    conv = store.load("legacy")
    assert conv.tip == "a2" and conv.path_ids() == ["u1", "a1", "t1", "a2"]
    assert conv.get("b1").text() == "an abandoned branch"
    assert conv.get("a2").text() == "two files, é ü 😀" and conv.warnings == ("one warning",)
    image = conv.get("t1").images()[0]
    assert image.path is not None and Path(image.path).read_bytes().startswith(b"\x89PNG")
    labels = store.load_checkpoints("legacy")
    assert labels == (Checkpoint("start", "u1"), Checkpoint("done", "a2"))
    assert not store.path_for("legacy").exists()  # reading writes nothing
    # The first write migrates: a log, the old documents gone, the same conversation.
    store.append("legacy", [user("u9", "a2", "next")])
    assert store.path_for("legacy").is_file()
    assert not (ws / "legacy" / "main.json").exists()
    assert not (ws / "legacy" / "main.checkpoints.json").exists()
    again = Store(ws).load("legacy")
    assert again.with_messages(again.messages[:-1], "a2") == conv
    assert Store(ws).load_checkpoints("legacy") == labels
    assert Store(ws).load("legacy", "agent-a1").tip == "s1"  # the other agent: untouched, read


# --- kill -9 while writing: a small sample (bench/store_kill.py runs hundreds) ---------

_WRITER = textwrap.dedent(
    """
    import sys
    from snapshot.transcript.model import Message, TextBlock
    from snapshot.transcript.store import Store
    store, n = Store(sys.argv[1]), 0
    parent = None
    while True:
        uid, aid = f"u{n}", f"a{n}"
        store.append("c", [Message(uid, parent, "user", (TextBlock("q" * 3000),)),
                           Message(aid, uid, "assistant", (TextBlock("r" * 3000),))])
        print(aid, flush=True)  # acknowledged: append returned
        parent, n = aid, n + 1
    """
)


@pytest.mark.slow
def test_kill_9_mid_append_loses_no_acknowledged_turn(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)}
    for round_ in range(4):
        ws = tmp_path / f"ws{round_}"
        proc = subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(ws)], stdout=subprocess.PIPE, env=env
        )
        assert proc.stdout is not None
        acked = [proc.stdout.readline().decode().strip() for _ in range(3 + round_ * 2)]
        time.sleep(0.002 * round_)
        proc.send_signal(signal.SIGKILL)
        rest, _ = proc.communicate()
        acked += rest.decode().split()
        conv = Store(ws).load("c")
        assert set(acked) <= set(conv.index), round_
        assert conv.tip is not None and conv.tip.startswith("a")


def test_the_compact_command_rewrites_every_agent_and_says_how_much(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from snapshot.cli import main

    store = Store(tmp_path)
    store.append("c", [user("u1", None), reply("a1", "u1")])
    store.append("c", [user("s1", None)], agent="sub")
    for _ in range(3):
        store.append("c", [], tip="u1")
        store.append("c", [], tip="a1")
    before = store.load("c")
    assert main(["store", "compact", "c", "--workspace", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in out] == ["c (main)", "c (sub)"]
    assert Store(tmp_path).load("c") == before and Store(tmp_path).load("c", "sub").tip == "s1"
    assert main(["store", "compact", "nope", "--workspace", str(tmp_path)]) == 2
    assert "no conversation 'nope' is stored" in capsys.readouterr().err


def test_a_line_longer_than_any_record_is_refused_not_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(tmp_path)
    store.append("c", [user("u1", None, "x" * 5000)])
    monkeypatch.setattr(store_log, "MAX_RECORD_BYTES", 1000)
    with pytest.raises(TranscriptError, match=r"main.jsonl: a line of more than 1000 bytes"):
        Store(tmp_path).load("c")


def test_the_store_command_is_thin() -> None:
    from one_library_call import assert_one_library_call, module_level_library_imports

    from snapshot.cli import store as store_cli

    assert_one_library_call(store_cli.cmd_compact, "snapshot.transcript.store.Store")
    assert module_level_library_imports(store_cli) == []
