"""No symlink carries a file out of a transcript's folder (issue 28 item 1, issue 26 item 11).

Every importer that reads more than the one file it was given (a sibling
prompt or metadata file, a task folder's files, a folder's event files, run
subfolders, a folder import's listing) is walked with that file replaced by a
symlink to a file outside the folder that holds a marker. No byte of the
marker may reach any output: ``import --out``, the printed summary, an export
to every target, the store, and ``compact``'s request. The same file copied
in (not linked) must reach the output, so the check can fail.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from snapshot import cli
from snapshot.errors import TranscriptError
from snapshot.transcript.export import TARGETS, export
from snapshot.transcript.files import RefusedFileError, check_inside, read_inside
from snapshot.transcript.formats import import_path
from snapshot.transcript.model import conversation_to_dict
from snapshot.transcript.store import Store

MARKER = "MARKER-5e1f-private-key-body"


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SNAPSHOT_NO_PROGRESS", "1")


def _jsonl(records: list[Any]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def _place(dst: Path, content: str, outside: Path, linked: bool) -> None:
    """``content`` at ``dst``: a copy, or a symlink to a file outside the transcript's folder."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    if not linked:
        dst.write_text(content, encoding="utf-8")
        return
    target = outside / f"{dst.name}.target"
    target.write_text(content, encoding="utf-8")
    dst.symlink_to(target)


def _sdk_log() -> str:
    return _jsonl(
        [
            {"type": "system", "subtype": "init", "session_id": "s", "model": "claude-y"},
            {
                "type": "assistant",
                "session_id": "s",
                "uuid": "a1",
                "parent_tool_use_id": None,
                "message": {
                    "id": "m1",
                    "role": "assistant",
                    "content": [{"type": "text", "text": "hi"}],
                },
            },
        ]
    )


def _claude_session(text: str) -> str:
    base = {"sessionId": "sess", "isSidechain": False}
    return _jsonl(
        [
            {
                **base,
                "type": "user",
                "uuid": "u1",
                "parentUuid": None,
                "message": {"role": "user", "content": text},
            },
            {
                **base,
                "type": "assistant",
                "uuid": "a1",
                "parentUuid": "u1",
                "message": {
                    "id": "m1",
                    "role": "assistant",
                    "content": [{"type": "text", "text": "ok"}],
                },
            },
        ]
    )


def _cline_history(task: str) -> str:
    return json.dumps(
        [
            {"role": "user", "content": [{"type": "text", "text": f"<task>\n{task}\n</task>"}]},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "text",
                        "text": "done",
                    }
                ],
            },
        ]
    )


def _oh_user(text: str) -> str:
    return json.dumps(
        {
            "kind": "MessageEvent",
            "id": text[:8],
            "source": "user",
            "llm_message": {"role": "user", "content": [{"type": "text", "text": text}]},
        }
    )


def _event_name(i: int) -> str:
    return f"event-{i:05d}-{'0' * 8}-0000-0000-0000-{i:012d}.json"


# Each case builds a transcript under ``root`` whose one file (or folder) named
# by the case is linked out or copied in, and returns the path to import.
Case = Callable[[Path, Path, bool], Path]


def _sdk_prompt(root: Path, outside: Path, linked: bool) -> Path:
    (root / "run_agent_log_raw.txt").write_text(_sdk_log())
    _place(root / "run_prompt.txt", MARKER, outside, linked)
    return root / "run_agent_log_raw.txt"


def _codex_prompt(root: Path, outside: Path, linked: bool) -> Path:
    events = [
        {"type": "thread.started", "thread_id": "th-1"},
        {"type": "turn.started"},
        {
            "type": "item.completed",
            "item": {"id": "item_0", "type": "agent_message", "text": "done"},
        },
        {"type": "turn.completed"},
    ]
    (root / "x_agent_log_raw.txt").write_text(_jsonl(events))
    _place(root / "x_prompt.txt", MARKER, outside, linked)
    return root / "x_agent_log_raw.txt"


def _claude_meta(root: Path, outside: Path, linked: bool) -> Path:
    sub = root / "sess" / "subagents" / "agent-x.jsonl"
    sub.parent.mkdir(parents=True)
    sub.write_text(_claude_session("hello"))
    _place(sub.with_name("agent-x.meta.json"), json.dumps({"note": MARKER}), outside, linked)
    return sub


def _cline_api(root: Path, outside: Path, linked: bool) -> Path:
    _place(root / "task" / "api_conversation_history.json", _cline_history(MARKER), outside, linked)
    return root / "task"


def _cline_ui(root: Path, outside: Path, linked: bool) -> Path:
    task = root / "task"
    task.mkdir()
    (task / "api_conversation_history.json").write_text(_cline_history("make a page"))
    _place(task / "ui_messages.json", json.dumps([{"say": MARKER}]), outside, linked)
    return task


def _openhands_folder(root: Path) -> Path:
    conv = root / "c1"
    (conv / "events").mkdir(parents=True)
    (conv / "base_state.json").write_text(json.dumps({"id": "c1"}))
    (conv / "events" / _event_name(0)).write_text(_oh_user("go ahead"))
    return conv


def _openhands_event(root: Path, outside: Path, linked: bool) -> Path:
    conv = _openhands_folder(root)
    _place(conv / "events" / _event_name(1), _oh_user(MARKER), outside, linked)
    return conv


def _openhands_base_state(root: Path, outside: Path, linked: bool) -> Path:
    conv = _openhands_folder(root)
    (conv / "base_state.json").unlink()
    state = {"id": "c1", "agent": {"llm": {"model": MARKER}}}
    _place(conv / "base_state.json", json.dumps(state), outside, linked)
    return conv


def _openhands_events_folder(root: Path, outside: Path, linked: bool) -> Path:
    conv = root / "c1"
    conv.mkdir()
    (conv / "base_state.json").write_text(json.dumps({"id": "c1"}))
    events = (outside / "events") if linked else (conv / "events")
    events.mkdir()
    (events / _event_name(0)).write_text(_oh_user(MARKER))
    if linked:
        (conv / "events").symlink_to(events)
    return conv


def _kimi_context(root: Path, outside: Path, linked: bool) -> Path:
    records = [{"role": "user", "content": MARKER}, {"role": "assistant", "content": "ok"}]
    _place(root / "session" / "context.jsonl", _jsonl(records), outside, linked)
    return root / "session"


def _aider_history(root: Path, outside: Path, linked: bool) -> Path:
    text = f"\n# aider chat started at 2025-01-01 10:00:00\n\n#### {MARKER}\n\nok\n"
    _place(root / "proj" / ".aider.chat.history.md", text, outside, linked)
    return root / "proj"


def _osworld_run(stem: Path, instruction: str) -> None:
    stem.mkdir(parents=True)
    (stem / "runtime.log").write_text(f"Instruction: {instruction}\n")
    step = {
        "step_num": 1,
        "action_idx": 1,
        "prediction": "Thought: click",
        "action": "pyautogui.click(1, 1)",
    }
    (stem / "traj.jsonl").write_text(json.dumps(step) + "\n")


def _osworld_run_folder(root: Path, outside: Path, linked: bool) -> Path:
    task = root / "task_1"
    _osworld_run(task / "ok", "open the app")
    if linked:
        _osworld_run(outside / "run", MARKER)
        (task / "far").symlink_to(outside / "run")
    else:
        _osworld_run(task / "far", MARKER)
    return task


def _osworld_log(root: Path, outside: Path, linked: bool) -> Path:
    run = root / "task_1" / "r"
    _osworld_run(run, "x")
    (run / "runtime.log").unlink()
    _place(run / "runtime.log", f"Instruction: {MARKER}\n", outside, linked)
    return run


def _webvoyager_messages(root: Path, outside: Path, linked: bool) -> Path:
    messages = [
        {"role": "user", "content": f"Now given a task: {MARKER}"},
        {"role": "assistant", "content": "Thought: done. Action: ANSWER; X"},
    ]
    _place(root / "taskDemo--1" / "interact_messages.json", json.dumps(messages), outside, linked)
    return root / "taskDemo--1"


def _folder_listing(root: Path, outside: Path, linked: bool) -> Path:
    folder = root / "sessions"
    folder.mkdir()
    (folder / "mine.jsonl").write_text(_claude_session("my own session"))
    _place(folder / "theirs.jsonl", _claude_session(MARKER), outside, linked)
    return folder


def _folder_listing_subfolder(root: Path, outside: Path, linked: bool) -> Path:
    folder = root / "sessions"
    folder.mkdir()
    (folder / "mine.jsonl").write_text(_claude_session("my own session"))
    elsewhere = outside / "projects" if linked else folder / "projects"
    elsewhere.mkdir()
    (elsewhere / "theirs.jsonl").write_text(_claude_session(MARKER))
    if linked:
        (folder / "projects").symlink_to(elsewhere)
    return folder


CASES: dict[str, Case] = {
    "agent-sdk prompt.txt": _sdk_prompt,
    "codex exec prompt.txt": _codex_prompt,
    "claude-code subagent .meta.json": _claude_meta,
    "cline api_conversation_history.json": _cline_api,
    "cline ui_messages.json": _cline_ui,
    "openhands-v1 event file": _openhands_event,
    "openhands-v1 base_state.json": _openhands_base_state,
    "openhands-v1 events folder": _openhands_events_folder,
    "kimi context.jsonl": _kimi_context,
    "aider .aider.chat.history.md": _aider_history,
    "osworld run folder": _osworld_run_folder,
    "osworld runtime.log": _osworld_log,
    "webvoyager interact_messages.json": _webvoyager_messages,
    "folder import: a .jsonl linked out": _folder_listing,
    "folder import: a subfolder linked out": _folder_listing_subfolder,
}


def _imported(path: Path) -> list[Any]:
    """The conversations of ``path`` (a folder import: of each file it holds)."""
    from snapshot.transcript.discover import find

    try:
        return import_path(path)
    except TranscriptError:
        convs: list[Any] = []
        for unit in find([path]):
            if unit.format is not None:
                try:
                    convs.extend(import_path(unit.path, format=unit.format))
                except TranscriptError:
                    continue
        return convs


def _outputs(path: Path, work: Path, capsys: pytest.CaptureFixture[str], *, compact: bool) -> str:
    """Everything snapshot writes or prints for ``path``, as one text."""
    seen: list[str] = []
    work.mkdir()
    out = work / "import.json"
    code = cli.main(["import", str(path), "--out", str(out)])
    printed = capsys.readouterr()
    seen += [printed.out, printed.err]
    assert code in (0, 1, 2), printed.err  # 1: a folder import skipped a file
    if out.exists():
        seen.append(out.read_text(encoding="utf-8", errors="replace"))
    store = Store(work / "store")
    for conv in _imported(path):
        seen.append(json.dumps(conversation_to_dict(conv)))
        for target in TARGETS:
            done = export(conv, target)
            seen.append(json.dumps(done.body) + "\n".join(done.notes))
        safe_id = re.sub(r"[^A-Za-z0-9._-]", "-", conv.id).lstrip(".-") or "c"
        saved = store.save(replace(conv, id=safe_id))
        seen.append(saved.read_text(encoding="utf-8", errors="replace"))
        if compact:
            dest = work / f"compact-{len(seen)}"
            args = ["--budget", "100000", "--out", str(dest), "--summarizer", "none"]
            code = cli.main(["compact", str(saved), "--model", "gemini-3-pro-preview", *args])
            seen += list(capsys.readouterr())
            assert code == 0 and (dest / "request.json").is_file(), seen[-1]
            seen += [f.read_text(errors="replace") for f in dest.glob("*.json")]
    return "\n".join(seen)


@pytest.mark.parametrize("name", list(CASES))
def test_a_file_linked_out_of_the_folder_reaches_no_output(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    root = tmp_path / "archive"
    root.mkdir()
    path = CASES[name](root, outside, True)
    text = _outputs(path, tmp_path / "work", capsys, compact=True)
    assert MARKER not in text
    assert "elsewhere" not in text  # a symlink's target is never named either


# ui_messages.json gives only counts and cost, never its text: no marker to find.
@pytest.mark.parametrize("name", [n for n in CASES if "ui_messages" not in n])
def test_the_same_file_copied_in_does_reach_the_output(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "archive"
    root.mkdir()
    path = CASES[name](root, tmp_path, False)
    assert MARKER in _outputs(path, tmp_path / "work", capsys, compact=False)


def test_refusals_name_the_link_and_say_why(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    root = tmp_path / "archive"
    root.mkdir()
    (conv,) = import_path(_sdk_prompt(root, outside, True))
    assert any(
        "run_prompt.txt: outside the transcript's folder (a symlink out); not read" in w
        for w in conv.warnings
    )
    (root / "b").mkdir()
    (conv,) = import_path(_cline_ui(root / "b", outside, True))
    assert any("ui_messages.json: outside the transcript's folder" in w for w in conv.warnings)


def test_the_guarded_reader_refuses_what_is_not_a_small_regular_file_inside(tmp_path: Path) -> None:
    inside = tmp_path / "run"
    inside.mkdir()
    (inside / "big.txt").write_bytes(b"x" * 100)
    (inside / "sub").mkdir()
    (tmp_path / "secret").write_text(MARKER)
    (inside / "link").symlink_to(tmp_path / "secret")
    (inside / "ok.txt").write_text("fine")
    (inside / "alias").symlink_to(inside / "ok.txt")  # a symlink that stays inside is fine
    assert read_inside(inside / "alias", inside) == b"fine"
    with pytest.raises(RefusedFileError, match="over the 10-byte limit"):
        read_inside(inside / "big.txt", inside, limit=10)
    with pytest.raises(RefusedFileError, match="a folder, not a regular file"):
        check_inside(inside / "sub", inside)
    with pytest.raises(RefusedFileError, match=r"a symlink out"):
        read_inside(inside / "link", inside)
    with pytest.raises(RefusedFileError, match="outside the transcript's folder; not read"):
        read_inside(inside / ".." / "secret", inside)
    with pytest.raises(FileNotFoundError):
        read_inside(inside / "missing", inside)


OPENCODE_DB = (
    Path(__file__).resolve().parents[1].parent
    / "shared"
    / "corpus"
    / "formats-2026-12"
    / "opencode-go"
    / "noora-opencode.db"
)


@pytest.mark.skipif(not OPENCODE_DB.is_file(), reason=f"sample not found: {OPENCODE_DB}")
def test_a_databases_wal_linked_out_of_its_folder_is_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """opencode/Crush read the ``-wal`` beside the database: a link out is refused."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    folder = tmp_path / "proj" / ".opencode"
    folder.mkdir(parents=True)
    db = folder / "opencode.db"
    db.write_bytes(OPENCODE_DB.read_bytes())
    (outside / "wal").write_text(MARKER)
    (folder / "opencode.db-wal").symlink_to(outside / "wal")
    text = _outputs(db, tmp_path / "work", capsys, compact=False)
    assert MARKER not in text and "elsewhere" not in text
    # Refused on one line naming the database (read through the link, it would import).
    assert "snapshot: error: " in text and "opencode.db: " in text
