"""Hostile input to the importers: a clear error or a warning naming file and line, never a crash.

Python refuses to turn an integer literal of more than 4300 digits into an
``int`` (``ValueError``) and runs out of stack on JSON nested thousands deep
(``RecursionError``); both are valid JSON a broken or malicious log may hold.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from snapshot.cli import main
from snapshot.errors import TranscriptError
from snapshot.transcript.formats import _common, detect, import_path

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
        _common.read_json_document(p, _common.Warnings())


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
