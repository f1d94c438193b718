"""``snapshot export``: body on stdout, repair notes on stderr, errors on one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import snapshot.cli as cli
from snapshot.transcript.model import TextBlock, ToolCall, ToolResult, linear
from snapshot.transcript.store import Store


def run(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str, str]:
    # Only this command group: the test must not depend on other groups being written.
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("snapshot.cli.export",))
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _anthropic_file(tmp_path: Path, messages: list[dict[str, Any]]) -> Path:
    p = tmp_path / "req.json"
    p.write_text(
        json.dumps({"model": "m", "system": "sys", "messages": messages}), encoding="utf-8"
    )
    return p


CLEAN: list[dict[str, Any]] = [
    {"role": "user", "content": "list files"},
    {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {}}],
    },
    {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt"}],
    },
    {"role": "assistant", "content": "One file."},
]


def test_export_to_openai_prints_the_body_and_no_notes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    p = _anthropic_file(tmp_path, CLEAN)
    code, out, err = run(
        ["export", str(p), "--to", "openai", "--model", "gpt-x"], capsys, monkeypatch
    )
    assert code == 0 and err == ""
    body = json.loads(out)
    assert body["model"] == "gpt-x"
    assert [m["role"] for m in body["messages"]] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    assert body["messages"][3] == {"role": "tool", "tool_call_id": "toolu_1", "content": "a.txt"}


def test_repairs_are_notes_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    p = _anthropic_file(tmp_path, CLEAN[:2])  # the call is never answered
    code, out, err = run(["export", str(p), "--to", "anthropic", "--compact"], capsys, monkeypatch)
    assert code == 0
    body = json.loads(out)
    assert out.count("\n") == 1  # --compact: one line
    assert body["messages"][-1]["content"][0]["tool_use_id"] == "toolu_1"
    assert err.startswith("snapshot: note: ") and "toolu_1" in err and "synthetic" in err


def test_markdown_goes_to_stdout_as_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    p = _anthropic_file(tmp_path, CLEAN)
    code, out, _ = run(["export", str(p), "--to", "markdown"], capsys, monkeypatch)
    assert code == 0 and out.startswith("# req") and "One file." in out and "`ls`" in out


def test_stored_conversation_by_file_and_by_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = tmp_path / "ws"
    conv = linear(
        "conv-1",
        [
            ("u", "user", [TextBlock("run it")]),
            ("a", "assistant", [ToolCall("c1", "bash", {"cmd": "make"})]),
            ("r", "tool", [ToolResult("c1", (TextBlock("ok"),))]),
        ],
    )
    stored = Store(ws).save(conv)
    code, out, err = run(["export", str(stored), "--to", "gemini"], capsys, monkeypatch)
    assert code == 0, err
    parts = json.loads(out)["contents"][1]["parts"]
    assert parts[0]["functionCall"]["name"] == "bash"
    code, out2, err = run(
        ["export", "conv-1", "--workspace", str(ws), "--to", "gemini"], capsys, monkeypatch
    )
    assert code == 0 and out2 == out
    # A store file copied out of its workspace still exports.
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(stored.read_bytes())
    code, out3, err = run(["export", str(copy), "--to", "gemini"], capsys, monkeypatch)
    assert code == 0 and out3 == out, err
    # A newer schema than this snapshot knows is refused, not misread.
    copy.write_bytes(stored.read_bytes().replace(b'"snapshot_store":2', b'"snapshot_store":99'))
    code, _, err = run(["export", str(copy), "--to", "gemini"], capsys, monkeypatch)
    assert code == 2 and "version 99 is newer" in err


def test_bad_requests_fail_on_one_line_with_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = run(
        ["export", str(tmp_path / "nope.json"), "--to", "openai", "--workspace", str(tmp_path)],
        capsys,
        monkeypatch,
    )
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "neither a file nor a conversation stored" in err

    many = tmp_path / "tau.json"
    run_ = {"task_id": 1, "trial": 0, "traj": [{"role": "user", "content": "hi"}]}
    many.write_text(json.dumps([run_, {**run_, "task_id": 2}]), encoding="utf-8")
    code, _, err = run(["export", str(many), "--to", "openai"], capsys, monkeypatch)
    assert code == 2 and "holds 2 conversations" in err and "--select" in err
    code, out, _ = run(
        ["export", str(many), "--to", "openai", "--select", "task_id=2"], capsys, monkeypatch
    )
    assert code == 0 and json.loads(out)["messages"] == [{"role": "user", "content": "hi"}]

    broken = tmp_path / "broken.json"
    broken.write_text('{"messages": [', encoding="utf-8")
    code, _, err = run(
        ["export", str(broken), "--to", "openai", "--format", "openai-chat"], capsys, monkeypatch
    )
    assert code == 2 and "broken.json:1:" in err and "Traceback" not in err

    only_system = _anthropic_file(tmp_path, [])
    code, _, err = run(
        ["export", str(only_system), "--to", "anthropic", "--format", "anthropic-messages"],
        capsys,
        monkeypatch,
    )
    assert code == 2 and "no user or assistant content" in err


def test_unknown_target_is_an_argument_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    p = _anthropic_file(tmp_path, CLEAN)
    code, _, err = run(["export", str(p), "--to", "bard"], capsys, monkeypatch)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--to" in err


def test_bodies_over_a_provider_limit_are_flagged() -> None:
    from snapshot.billing.providers import limit_facts_for
    from snapshot.transcript.validate import limit_notes

    limit = {f.field: f.value for f in limit_facts_for("anthropic")}["max_images"]
    image = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "QUFB"},
    }
    body = {"messages": [{"role": "user", "content": [image] * (limit + 1)}]}
    (note,) = limit_notes(body, "anthropic")
    assert f"{limit + 1} images" in note
    assert (
        limit_notes({"messages": [{"role": "user", "content": [image] * limit}]}, "anthropic") == []
    )
    assert limit_notes(body, "markdown") == []
