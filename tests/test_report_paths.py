"""``snapshot report PATH …`` and ``--discover``: a user's own sessions, no manifest.

Every path found is in the report with its format or the reason it was
skipped; FIFOs, sockets and symlink loops are skipped, never waited on; the
report says it is private, quotes needles only when asked, and writes nothing
outside ``--out``.
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Any

import pytest
from format_samples import FORMATS, needs_samples

from snapshot.cli import main
from snapshot.transcript.discover import find, session_of, usual_places

FAST = ["--workers", "1", "--no-legibility", "--model", "gpt-5.1"]


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SNAPSHOT_NO_PROGRESS", "1")


def _pi(path: Path, text: str = "please look at the failing parser test") -> Path:
    records: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": path.stem, "cwd": "/w"},
        {
            "type": "message",
            "id": "u",
            "parentId": None,
            "message": {"role": "user", "content": text},
        },
        {
            "type": "message",
            "id": "a",
            "parentId": "u",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "Looking at it now."}],
            },
        },
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _hostile_folder(root: Path) -> Path:
    sessions = root / "sessions"
    _pi(sessions / "a.jsonl")
    _pi(sessions / "a" / "subagents" / "agent-1.jsonl", "the subagent's own task, in detail")
    (sessions / "notes.txt").write_text("not a transcript\n", encoding="utf-8")
    broken = sessions / "broken.json"
    broken.write_text(
        '{"sessionId": "s", "workspaceDirectory": "/w", "history": [ {', encoding="utf-8"
    )
    os.mkfifo(sessions / "pipe")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(sessions / "sock"))
    sock.close()
    (sessions / "loop").symlink_to(sessions, target_is_directory=True)
    (sessions / "dangling").symlink_to(sessions / "nowhere")
    return sessions


def test_find_skips_fifos_sockets_and_symlink_loops_with_reasons(tmp_path: Path) -> None:
    sessions = _hostile_folder(tmp_path)
    found = {f.path.name: f for f in find([sessions])}
    assert found["a.jsonl"].format == "pi"
    assert found["agent-1.jsonl"].session == sessions / "a.jsonl"
    assert "FIFO" in str(found["pipe"].reason)
    assert "socket" in str(found["sock"].reason)
    assert "loop" in str(found["loop"].reason)
    assert "broken symlink" in str(found["dangling"].reason)
    assert found["notes.txt"].reason == "not a transcript format snapshot reads"
    assert found["broken.json"].format == "continue"  # detected; the import will fail


def test_globs_and_files_are_targets_too(tmp_path: Path) -> None:
    _pi(tmp_path / "x" / "one.jsonl")
    _pi(tmp_path / "y" / "two.jsonl")
    found = find([str(tmp_path / "*" / "*.jsonl"), tmp_path / "x" / "one.jsonl"])
    assert sorted(f.path.name for f in found) == ["one.jsonl", "two.jsonl"]
    assert find([str(tmp_path / "*.nothing")])[0].reason == "the pattern matches nothing"


def test_session_of_ties_kimi_subagents_to_their_session(tmp_path: Path) -> None:
    parent = _pi(tmp_path / "abc.jsonl")
    assert session_of(_pi(tmp_path / "abc_read_1.jsonl")) == parent


def test_report_on_a_folder_lists_every_path_and_never_aborts(tmp_path: Path) -> None:
    sessions = _hostile_folder(tmp_path)
    out = tmp_path / "r"
    before = {p for p in tmp_path.rglob("*") if not p.is_symlink()}
    assert main(["report", str(sessions), "--out", str(out), *FAST]) == 0
    report = (out / "REPORT.md").read_text(encoding="utf-8")
    assert report.splitlines()[2].startswith("**Private")
    for name in ("a.jsonl", "pipe", "sock", "loop", "dangling", "notes.txt", "broken.json"):
        assert f"{name}`" in report, name
    assert "↳ " in report  # the subagent is listed under its session
    broken_row = next(line for line in report.splitlines() if "broken.json`" in line)
    assert "skipped:" in broken_row and "malformed JSON" in broken_row
    assert "## Needle examples" not in report
    listed = json.loads((out / "sources.json").read_text(encoding="utf-8"))["paths"]
    by_name = {Path(r["path"]).name: r for r in listed}
    assert by_name["a.jsonl"]["format"] == "pi" and by_name["a.jsonl"]["conversations"]
    assert "FIFO" in by_name["pipe"]["skipped"]
    after = {p for p in tmp_path.rglob("*") if not p.is_symlink() and not p.is_relative_to(out)}
    assert after == before, "nothing is written outside --out"


def test_show_needles_quotes_them(tmp_path: Path) -> None:
    long = "Fix parse_header in src/app/parser.py: ValueError at line 42 with id 7f3a9c21. " * 40
    _pi(tmp_path / "s" / "a.jsonl", long)
    out = tmp_path / "r"
    assert main(["report", str(tmp_path / "s"), "--out", str(out), "--show-needles", *FAST]) == 0
    assert "## Needle examples" in (out / "REPORT.md").read_text(encoding="utf-8")


def test_discover_lists_the_usual_places_before_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    _pi(home / ".pi" / "agent" / "sessions" / "--w--" / "s.jsonl")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    places = usual_places(home, tmp_path)
    assert [p.agent for p, _ in places] == ["pi"]
    out = tmp_path / "r"
    assert main(["report", "--discover", "--out", str(out), *FAST]) == 0
    err = capsys.readouterr().err
    assert "found pi sessions in" in err and "will read 1 transcript(s)" in err
    assert "s.jsonl" in (out / "REPORT.md").read_text(encoding="utf-8")


def test_discover_with_nothing_to_find_is_one_clear_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OPENHANDS_CONVERSATIONS_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    assert main(["report", "--discover", "--out", str(tmp_path / "r"), *FAST]) == 2
    assert "found no agent sessions" in capsys.readouterr().err


@needs_samples
def test_report_on_the_format_samples_needs_no_manifest(tmp_path: Path) -> None:
    """The done-when of issue 9: every file is covered, with its format or why not."""
    out = tmp_path / "r"
    assert main(["report", str(FORMATS), "--out", str(out), "--limit", "1", *FAST]) == 0
    report = (out / "REPORT.md").read_text(encoding="utf-8")
    units = {f.path for f in find([FORMATS])}
    inside_units = {p for u in units if u.is_dir() for p in u.rglob("*")}
    files = {p for p in FORMATS.rglob("*") if p.is_file() and p not in inside_units}
    missing = [p for p in files | {u for u in units if u.is_dir()} if f"`{p}`" not in report]
    assert not missing, missing[:5]
    for fmt in ("openhands-v1", "pi", "browser-use", "continue"):
        assert f"| {fmt} |" in report


def test_import_of_a_fifo_is_refused_not_waited_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "session.jsonl"
    os.mkfifo(fifo)
    for argv in (["import", str(fifo)], ["import", str(fifo), "--format", "pi"]):
        assert main(argv) == 2
        assert "not a regular file" in capsys.readouterr().err


def test_paths_with_nothing_importable_are_one_clear_line_not_the_demo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "notes.txt").write_text("nothing here\n", encoding="utf-8")
    assert main(["report", str(tmp_path), "--out", str(tmp_path / "r"), *FAST]) == 2
    err = capsys.readouterr().err
    assert "no importable conversation" in err and "notes.txt" in err
    assert not (tmp_path / "r" / "REPORT.md").exists()


def test_the_docstring_examples_run() -> None:
    import doctest

    from snapshot.report import sources
    from snapshot.transcript import coverage, discover, formats

    for module in (coverage, discover, formats, sources):
        assert doctest.testmod(module).failed == 0, module.__name__


def test_an_importer_crash_on_one_file_is_reported_not_fatal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from snapshot.report import sources

    good = _pi(tmp_path / "good.jsonl")
    bad = _pi(tmp_path / "bad.jsonl")
    real = sources.import_path

    def flaky(path: Any, **kw: Any) -> Any:
        if Path(path) == bad:
            raise TypeError("boom")
        return real(path, **kw)

    monkeypatch.setattr(sources, "import_path", flaky)
    given, reports = sources.path_sources(find([tmp_path]))
    assert [ref.path for ref in given] == [str(good)]
    assert given[0].load().conversation.messages
    (failed,) = [r for r in reports if r.path == bad]
    assert "TypeError: boom" in str(failed.reason)
