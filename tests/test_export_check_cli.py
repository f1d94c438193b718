"""``snapshot export --check`` and ``snapshot compact --check``: problems on stderr and in
the record, repairs named, exit status 1 when a body would be refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import snapshot.cli as cli


def run(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str, str]:
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("snapshot.cli.export", "snapshot.cli.report"))
    monkeypatch.setenv("SNAPSHOT_NO_PROGRESS", "1")
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _file(tmp_path: Path, messages: list[dict[str, Any]]) -> Path:
    p = tmp_path / "req.json"
    p.write_text(json.dumps({"model": "m", "messages": messages}), encoding="utf-8")
    return p


UNANSWERED: list[dict[str, Any]] = [
    {"role": "user", "content": "list files " * 50},
    {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {}}],
    },
    {"role": "user", "content": "never mind " * 50},
    {"role": "assistant", "content": "ok " * 50},
]


@pytest.mark.parametrize("to", ["anthropic", "gemini"])
def test_export_check_counts_problems_and_exits_zero_when_valid(
    to: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = run(
        ["export", str(_file(tmp_path, UNANSWERED)), "--to", to, "--check"], capsys, monkeypatch
    )
    assert code == 0, err
    assert json.loads(out)
    assert "snapshot: check: 0 problem(s); checked by" in err
    assert "synthetic error result" in err  # the repair is named


def test_compact_check_records_validation_and_repairs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out_dir = tmp_path / "o"
    code, out, err = run(
        [
            "compact",
            str(_file(tmp_path, UNANSWERED)),
            "--model",
            "gemini-3-pro-preview",
            "--budget",
            "100000",
            "--out",
            str(out_dir),
            "--check",
            "--summarizer",
            "none",
            "--json",
        ],
        capsys,
        monkeypatch,
    )
    record = json.loads(out)
    assert code == 0, err
    assert record["validation"]["ok"] and record["validation"]["shape"] == "gemini"
    assert len(record["synthetic_results"]) == 1  # the call with no result, repaired and named
    saved = json.loads((out_dir / "record.json").read_text(encoding="utf-8"))
    assert saved["synthetic_results"] == record["synthetic_results"]


def test_export_check_exits_one_on_a_body_the_provider_would_refuse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import snapshot.transcript.export as exporter

    real = exporter.export

    def without_tools(*args: Any, **kwargs: Any) -> Any:
        out = real(*args, **kwargs)
        out.body.pop("tools", None)  # a call to an undeclared tool
        return out

    monkeypatch.setattr(exporter, "export", without_tools)
    code, _, err = run(
        ["export", str(_file(tmp_path, UNANSWERED)), "--to", "anthropic", "--check"],
        capsys,
        monkeypatch,
    )
    assert code == 1
    assert "tool-declared" in err and "snapshot: check: 1 problem(s)" in err
