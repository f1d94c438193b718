"""Hostile input to the importers: a clear error or a warning naming file and line, never a crash.

Python refuses to turn an integer literal of more than 4300 digits into an
``int`` (``ValueError``) and runs out of stack on JSON nested thousands deep
(``RecursionError``); both are valid JSON a broken or malicious log may hold.
An image header claiming billions of pixels is a decompression bomb for
whoever decodes it later.
"""

from __future__ import annotations

import base64
import json
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from snapshot.cli import main
from snapshot.errors import TranscriptError
from snapshot.transcript.formats import _common, detect, import_path
from snapshot.transcript.formats._json_stream import JSONDocument
from snapshot.transcript.model import ImageBlock, TextBlock

BIG_INT = "7" * 5000  # beyond Python's 4300-digit int/str conversion limit
DEEP = "[" * 100_000  # far beyond the recursion limit


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SNAPSHOT_NO_PROGRESS", "1")


def _big_line(record: dict[str, Any]) -> str:
    """``record`` as one JSON line with a 5000-digit integer added."""
    return json.dumps(record)[:-1] + f', "n": {BIG_INT}}}'


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# --- JSON lines read by iter_jsonl ------------------------------------------------------


def _openhands_jsonl(tmp_path: Path, bad: str) -> Path:
    good = {"instance_id": "ok-1", "history": [{"action": "message", "content": "hi"}]}
    return _write(tmp_path / "output.jsonl", [json.dumps(good), bad])


def _anthropic_jsonl(tmp_path: Path, bad: str) -> Path:
    good = {
        "model": "claude-x",
        "system": "be terse",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    }
    return _write(tmp_path / "reqs.jsonl", [json.dumps(good), bad])


def _osworld_run(tmp_path: Path, bad: str) -> Path:
    run = tmp_path / "task" / "run1"
    run.mkdir(parents=True)
    (run / "runtime.log").write_text("Instruction: open the app\n", encoding="utf-8")
    good = {"step_num": 1, "action_idx": 1, "prediction": "click", "action": "pyautogui.click()"}
    _write(run / "traj.jsonl", [json.dumps(good), bad])
    return run


JSONL_CASES = {
    "openhands-events": (_openhands_jsonl, {"instance_id": "x", "history": []}, "output.jsonl"),
    "anthropic-messages": (
        _anthropic_jsonl,
        {"messages": [{"role": "user", "content": "x"}]},
        "reqs.jsonl",
    ),
    "osworld-traj": (_osworld_run, {"step_num": 2, "action": "x"}, "traj.jsonl"),
}


@pytest.mark.parametrize("fmt", sorted(JSONL_CASES))
@pytest.mark.parametrize("kind", ["huge integer", "deep nesting"])
def test_unreadable_jsonl_line_is_a_warning_naming_file_and_line(
    tmp_path: Path, fmt: str, kind: str
) -> None:
    build, record, name = JSONL_CASES[fmt]
    bad = _big_line(record) if kind == "huge integer" else DEEP
    target = build(tmp_path, bad)
    (conv,) = import_path(target, format=fmt)
    assert conv.messages, "the good line is still read"
    assert any(f"{name}:2:" in w and "skipped" in w for w in conv.warnings), conv.warnings


@pytest.mark.parametrize("fmt", ["openhands-events", "anthropic-messages"])
def test_huge_integer_on_the_first_line_is_detected_and_reported(tmp_path: Path, fmt: str) -> None:
    """Detection reads the first lines too: it must not crash on them either."""
    build, record, name = JSONL_CASES[fmt]
    p = tmp_path / name
    good = build(tmp_path, _big_line(record)).read_text(encoding="utf-8").splitlines()[0]
    _write(p, [_big_line(record), good])
    assert detect(p).name == fmt
    (conv,) = import_path(p)
    assert any(f"{name}:1:" in w and "digits" in w for w in conv.warnings), conv.warnings


def test_jsonl_of_only_unreadable_lines_is_an_error_naming_file_and_line(tmp_path: Path) -> None:
    p = _write(tmp_path / "output.jsonl", [_big_line({"history": []})])
    with pytest.raises(TranscriptError, match=r"output\.jsonl:1: .*digits"):
        import_path(p, format="openhands-events")


@pytest.mark.parametrize("fmt", ["claude-code-jsonl", "codex-exec-jsonl"])
def test_record_logs_skip_unreadable_lines_too(tmp_path: Path, fmt: str) -> None:
    """The capped-warning reader already handled these; keep it that way."""
    p = _write(tmp_path / "s.jsonl", [_big_line({"type": "user"}), DEEP])
    try:
        convs = import_path(p, format=fmt)
    except TranscriptError as exc:  # nothing usable is a clear error, also fine
        assert "s.jsonl" in str(exc)
        return
    warnings = [w for c in convs for w in c.warnings]
    assert any("s.jsonl:1:" in w for w in warnings) and any("s.jsonl:2:" in w for w in warnings)


# --- whole JSON documents ---------------------------------------------------------------


@pytest.mark.parametrize(
    "fmt", ["openai-chat", "anthropic-messages", "openhands-events", "tau-bench"]
)
def test_huge_integer_in_a_document_is_an_error_naming_file_and_line(
    tmp_path: Path, fmt: str
) -> None:
    p = tmp_path / "doc.json"
    p.write_text(
        '{\n  "messages": [\n    {"role": "user", "content": "hi", "n": ' + BIG_INT + "}\n  ]\n}\n",
        encoding="utf-8",
    )
    with pytest.raises(TranscriptError, match=r"doc\.json:3: .*4300 digits"):
        import_path(p, format=fmt)


def test_huge_integer_in_a_lenient_document_names_the_line(tmp_path: Path) -> None:
    p = tmp_path / "doc.json"
    p.write_text('{\n  "n":\n' + BIG_INT + "\n}\n", encoding="utf-8")
    with pytest.raises(TranscriptError, match=r"doc\.json:3: .*4300 digits"):
        JSONDocument(p, "messages", _common.Warnings())


def test_deeply_nested_document_is_a_clear_error_also_at_detection(tmp_path: Path) -> None:
    p = tmp_path / "deep.json"
    p.write_text(DEEP + "]" * 100_000, encoding="utf-8")
    with pytest.raises(TranscriptError, match=r"deep\.json"):
        import_path(p)  # detection reads the head first
    with pytest.raises(TranscriptError, match=r"deep\.json:1: JSON nested too deeply"):
        import_path(p, format="openai-chat")


def test_deep_first_line_does_not_crash_detection(tmp_path: Path) -> None:
    p = _openhands_jsonl(tmp_path, "{}")
    p.write_text(DEEP + "\n" + p.read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(TranscriptError, match="not a format snapshot recognises"):
        detect(p)
    (conv,) = import_path(p, format="openhands-events")
    assert any("output.jsonl:1:" in w and "nested too deeply" in w for w in conv.warnings)


@pytest.mark.parametrize("arguments", ['{"n": ' + BIG_INT + "}", DEEP])
def test_unreadable_tool_arguments_are_kept_as_a_string(tmp_path: Path, arguments: str) -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "done"},
    ]
    p = tmp_path / "chat.json"
    p.write_text(json.dumps({"messages": messages}), encoding="utf-8")
    (conv,) = import_path(p, format="openai-chat")
    (tool_call,) = [c for m in conv.messages for c in m.tool_calls()]
    assert tool_call.input == {"_raw_arguments": arguments}
    assert any(
        "arguments are unreadable JSON" in w and "kept as a string" in w for w in conv.warnings
    )


# --- images -----------------------------------------------------------------------------


def _png_header(width: int, height: int) -> bytes:
    """A PNG signature and IHDR chunk (with its CRC) claiming ``width`` x ``height``."""
    ihdr = b"IHDR" + struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", 13) + ihdr + struct.pack(">I", zlib.crc32(ihdr))
    return b"\x89PNG\r\n\x1a\n" + chunk


def _claude_session(tmp_path: Path, data: bytes) -> Path:
    base = {"sessionId": "s-1", "isSidechain": False, "timestamp": "2026-01-01T00:00:00Z"}
    image = {
        "type": "image",
        "source": {
            "type": "base64",
            "media_type": "image/png",
            "data": base64.b64encode(data).decode(),
        },
    }
    first = {
        **base,
        "type": "user",
        "uuid": "u1",
        "parentUuid": None,
        "message": {"role": "user", "content": [{"type": "text", "text": "look"}, image]},
    }
    reply = {
        **base,
        "type": "assistant",
        "uuid": "a1",
        "parentUuid": "u1",
        "message": {
            "id": "m1",
            "role": "assistant",
            "model": "claude-x",
            "content": [{"type": "text", "text": "ok"}],
        },
    }
    return _write(tmp_path / "session.jsonl", [json.dumps(first), json.dumps(reply)])


def test_claude_code_refuses_a_decompression_bomb_header(tmp_path: Path) -> None:
    p = _claude_session(tmp_path, _png_header(100_000, 100_000))
    assert detect(p).name == "claude-code-jsonl"
    (conv,) = import_path(p)
    blocks = conv.get("u1").blocks
    assert not any(isinstance(b, ImageBlock) for m in conv.messages for b in m.blocks)
    assert any(isinstance(b, TextBlock) and "100000x100000" in b.text for b in blocks)
    assert any("session.jsonl:1:" in w and "100000x100000" in w for w in conv.warnings)


@pytest.mark.parametrize("size", [(8000, 6000), (14_000, 14_000), (100_000, 1)])
def test_claude_code_keeps_what_the_other_importers_keep(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """One cap for all importers: Claude Code drops an image exactly when image_header does."""
    iend = struct.pack(">I", 0) + b"IEND" + struct.pack(">I", zlib.crc32(b"IEND"))
    data = _png_header(*size) + iend  # Pillow wants a chunk after IHDR
    try:
        _common.image_header(data)
        kept = True
    except _common.ImageTooLarge:
        kept = False
    (conv,) = import_path(_claude_session(tmp_path, data))
    images = conv.get("u1").images()
    if kept:
        assert [(i.width, i.height) for i in images] == [size]
        assert not any("pixels" in w for w in conv.warnings)
    else:
        assert images == ()
        assert any("session.jsonl:1:" in w and "too large" in w for w in conv.warnings)


# --- the command line -------------------------------------------------------------------


def test_cli_import_reports_instead_of_crashing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p = _openhands_jsonl(tmp_path, _big_line({"instance_id": "x", "history": []}))
    assert main(["import", str(p), "--json"]) == 0
    out, err = capsys.readouterr()
    (row,) = json.loads(out)["conversations"]
    assert any("output.jsonl:2:" in w and "digits" in w for w in row["warnings"])
    assert "Traceback" not in out + err

    doc = tmp_path / "doc.json"
    doc.write_text(
        '{"messages": [\n{"role": "user", "content": "hi", "n": ' + BIG_INT + "}\n]}",
        encoding="utf-8",
    )
    assert main(["import", str(doc), "--json"]) == 2
    out, err = capsys.readouterr()
    assert "doc.json:2:" in err and "Traceback" not in out + err

    bomb = _claude_session(tmp_path, _png_header(100_000, 100_000))
    assert main(["import", str(bomb), "--json"]) == 0
    out, err = capsys.readouterr()
    (row,) = json.loads(out)["conversations"]
    assert row["images"] == 0 and any("100000x100000" in w for w in row["warnings"])
