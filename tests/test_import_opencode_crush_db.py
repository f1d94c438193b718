"""opencode (Go) and Crush SQLite databases (issue 26 item 10).

The real sample is ``opencode-go/noora-opencode.db`` of ../shared/corpus/formats-2026-12
(1 session, 56 messages, 60 tool calls). No licensed Crush database was found:
the Crush cases use a copy of that real database given the column Crush added
to opencode's schema (``messages.provider``, internal/db/migrations of
charmbracelet/crush) and Crush's file name — a reconstructed stand-in, named
as such here.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from formats_batch2 import needs_batch2, sample2

from snapshot.cli import main
from snapshot.transcript.export import TARGETS
from snapshot.transcript.formats import WrongFormatError, detect, import_path
from snapshot.transcript.model import tool_pairing
from snapshot.transcript.validate import SHAPES, export_checked

pytestmark = needs_batch2

OPENCODE = "opencode-go/noora-opencode.db"


def _hand_count(path: Path) -> tuple[int, int, int]:
    """(messages, tool_call parts, tool_result parts), counted with sqlite3 directly."""
    con = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    try:
        rows = [json.loads(p) for (p,) in con.execute("SELECT parts FROM messages")]
    finally:
        con.close()
    kinds = [part["type"] for parts in rows for part in parts]
    return len(rows), kinds.count("tool_call"), kinds.count("tool_result")


def test_the_opencode_database_is_one_conversation_with_every_call_paired() -> None:
    path = sample2(OPENCODE)
    assert detect(path).name == "opencode-go-sqlite"
    (conv,) = import_path(path)
    live = conv.path()
    messages, calls, results = _hand_count(path)
    assert (messages, calls) == (56, 60)  # the MANIFEST's and the counts
    assert len(live) == messages
    assert sum(len(m.tool_calls()) for m in live) == calls
    assert sum(len(m.tool_results()) for m in live) == results
    pairing = tool_pairing(live)
    assert not pairing.orphan_results
    assert len(pairing.unanswered_calls) == calls - results  # the session ends mid-call
    assert conv.meta["title"].startswith("CLI design system")


def test_the_opencode_database_exports_valid_to_every_api() -> None:
    (conv,) = import_path(sample2(OPENCODE))
    for shape in SHAPES:
        _, checked = export_checked(conv, shape)
        assert checked.ok, (shape, checked.problems[:3])
    assert set(SHAPES) <= set(TARGETS)


def test_a_forced_json_format_on_the_database_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = sample2(OPENCODE)
    with pytest.raises(WrongFormatError, match="opencode-go-sqlite"):
        import_path(path, format="claude-code-jsonl")
    assert main(["import", str(path), "--format", "openai-chat"]) == 2
    assert "--format opencode-go-sqlite" in capsys.readouterr().err


def _as_crush(tmp_path: Path) -> Path:
    folder = tmp_path / ".crush"
    folder.mkdir()
    crush = folder / "crush.db"
    shutil.copyfile(sample2(OPENCODE), crush)
    con = sqlite3.connect(crush)
    con.execute("ALTER TABLE messages ADD COLUMN provider TEXT")
    con.execute("UPDATE messages SET provider = 'anthropic' WHERE role = 'assistant'")
    con.commit()
    con.close()
    return crush


def test_a_crush_database_is_detected_as_crush_and_reads_the_same(tmp_path: Path) -> None:
    crush = _as_crush(tmp_path)
    assert detect(crush).name == "crush-sqlite"
    renamed = tmp_path / "store.db"
    shutil.copyfile(crush, renamed)
    assert detect(renamed).name == "crush-sqlite"  # by the column only Crush has
    (conv,) = import_path(crush)
    (original,) = import_path(sample2(OPENCODE))
    assert [m.text() for m in conv.path()] == [m.text() for m in original.path()]
    assert conv.path()[1].meta["provider"] == "anthropic"


def test_a_write_ahead_log_is_read_without_touching_the_folder(tmp_path: Path) -> None:
    crush = _as_crush(tmp_path)
    writer = sqlite3.connect(crush)
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("PRAGMA wal_autocheckpoint=0")
        parts = json.dumps([{"type": "text", "data": {"text": "a message only in the WAL"}}])
        session = writer.execute("SELECT id FROM sessions").fetchone()[0]
        writer.execute(
            "INSERT INTO messages (id, session_id, role, parts, created_at, updated_at) "
            "VALUES ('late', ?, 'user', ?, '2099-01-01T00:00:00Z', '2099-01-01T00:00:00Z')",
            (session, parts),
        )
        writer.commit()
        assert (crush.parent / "crush.db-wal").stat().st_size > 0
        before = {p.name: p.stat().st_mtime_ns for p in crush.parent.iterdir()}
        (conv,) = import_path(crush)
        after = {p.name: p.stat().st_mtime_ns for p in crush.parent.iterdir()}
    finally:
        writer.close()
    assert conv.path()[-1].text() == "a message only in the WAL"
    assert before == after  # nothing created, nothing written beside the database


def test_not_a_database_of_this_family_is_an_error(tmp_path: Path) -> None:
    other = tmp_path / "crush.db"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE notes (id TEXT)")
    con.commit()
    con.close()
    assert main(["import", str(other), "--format", "crush-sqlite"]) == 2


def test_a_truncated_database_is_one_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cut = tmp_path / "opencode.db"
    cut.write_bytes(sample2(OPENCODE).read_bytes()[:100_000])
    assert main(["import", str(cut)]) == 2
    err = capsys.readouterr().err
    assert "an SQLite database, but not one snapshot reads" in err and err.count("\n") == 1
    assert main(["import", str(cut), "--format", "opencode-go-sqlite"]) == 2
    assert "malformed" in capsys.readouterr().err


def test_the_usual_places_include_the_project_stores(tmp_path: Path) -> None:
    from snapshot.transcript.discover import usual_places

    _as_crush(tmp_path)
    (tmp_path / ".opencode").mkdir()
    shutil.copyfile(sample2(OPENCODE), tmp_path / ".opencode" / "opencode.db")
    found = {p.agent: path for p, path in usual_places(tmp_path / "home", tmp_path)}
    assert found == {
        "opencode (Go)": tmp_path / ".opencode" / "opencode.db",
        "Crush": tmp_path / ".crush" / "crush.db",
    }


def test_a_child_session_is_a_sub_agent_of_its_parent(tmp_path: Path) -> None:
    """A copy of the real database given one agent-tool session (reconstructed stand-in)."""
    db = tmp_path / "opencode.db"
    shutil.copyfile(sample2(OPENCODE), db)
    con = sqlite3.connect(db)
    parent = con.execute("SELECT id FROM sessions").fetchone()[0]
    child = "toolu_01V1gRQhkFwbnbFrb9VwnLUX"  # the id of a real call in the session
    con.execute(
        "INSERT INTO sessions (id, parent_session_id, title) VALUES (?, ?, 'New Agent Session')",
        (child, parent),
    )
    for n, (role, text) in enumerate([("user", "find the CI files"), ("assistant", "found two")]):
        parts = json.dumps([{"type": "text", "data": {"text": text}}])
        con.execute(
            "INSERT INTO messages (id, session_id, role, parts, created_at) VALUES (?, ?, ?, ?, ?)",
            (f"c{n}", child, role, parts, f"2025-05-28T12:00:0{n}.000000Z"),
        )
    con.commit()
    con.close()
    convs = import_path(db)
    assert [(c.id, c.agent) for c in convs] == [(parent, "main"), (parent, child)]
    assert [m.text() for m in convs[1].path()] == ["find the CI files", "found two"]
    (only,) = import_path(db, select={"agent": child})
    assert only.meta["parent_session_id"] == parent
