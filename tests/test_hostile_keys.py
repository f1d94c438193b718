"""Keys never appear in any output, record or error: a fake server that echoes the key."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from fake_provider import FakeProvider

from snapshot import cli

pytest.importorskip("anthropic")  # the [live] extra; CI installs it

KEY = "sk-ant-api03-" + "Zq7" * 14


@pytest.fixture
def long_body(tmp_path: Path) -> Path:
    msgs = []
    for i in range(30):
        msgs.append({"role": "user", "content": f"question {i} " + "words " * 80})
        msgs.append({"role": "assistant", "content": f"answer {i} " + "more " * 80})
    p = tmp_path / "long.json"
    p.write_text(json.dumps({"model": "claude-sonnet-4-5", "max_tokens": 10, "messages": msgs}))
    return p


def _compact(body: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    argv = ["compact", str(body), "--model", "claude-sonnet-4-5", "--budget", "1500"]
    code = cli.main([*argv, "--summarizer", "live:claude-sonnet-4-5", "--out", str(out)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def _written(out: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in out.rglob("*") if p.is_file())


def test_reflected_key_is_redacted_from_request_and_record(
    long_body: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = tmp_path / "out"
    echo = f"the summary; by the way your key is {KEY}"
    with FakeProvider({"anthropic": KEY}, reply=echo, text_only=True) as fake:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url("anthropic"))
        code, printed = _compact(long_body, out, capsys)
        assert fake.requests and not fake.problems, fake.problems
    assert code == 0, printed
    written = _written(out)
    assert "the summary; by the way your key is [REDACTED]" in written
    assert KEY not in written and KEY not in printed


def test_401_quoting_the_key_is_one_clean_line(
    long_body: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with FakeProvider(
        {"anthropic": KEY}, text_only=True, fail_status=401, fail_message=f"invalid x-api-key {KEY}"
    ) as fake:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url("anthropic"))
        code, printed = _compact(long_body, tmp_path / "out", capsys)
    lines = printed.strip().splitlines()
    assert code == 2 and "Traceback" not in printed
    assert len(lines) == 1 and "live summary failed" in lines[0] and "401" in lines[0]
    assert KEY not in printed


def test_dead_endpoint_is_one_clean_line(
    long_body: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{port}")
    code, printed = _compact(long_body, tmp_path / "out", capsys)
    lines = printed.strip().splitlines()
    assert code == 2 and "Traceback" not in printed and len(lines) == 1, printed
    assert "live summary failed" in lines[0] and KEY not in printed


def test_a_key_in_any_error_is_redacted_at_the_exit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-" + "x9" * 20)
    name = tmp_path / ("sk-proj-" + "x9" * 20)  # even a file named like the key
    code = cli.main(["export", str(name), "--to", "anthropic"])
    err = capsys.readouterr().err
    assert code == 2 and "x9x9x9" not in err and "[REDACTED]" in err
