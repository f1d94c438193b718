"""Missing optional parts are named before any work, the run goes on, REPORT.md says so."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from snapshot.billing.text_tokens import ctok_available
from snapshot.cli import main
from snapshot.report.matrix import Settings
from snapshot.report.preflight import missing_parts


@pytest.fixture
def no_ctok(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """ctok not importable, as on a machine without the [claude] extra."""
    monkeypatch.setitem(sys.modules, "ctok", None)  # import ctok now raises ImportError
    ctok_available.cache_clear()
    yield
    ctok_available.cache_clear()


def test_a_missing_token_counter_is_named_first_and_labelled(
    no_ctok: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("SNAPSHOT_NO_PROGRESS", raising=False)  # the bars show when work starts
    assert not ctok_available()
    session = tmp_path / "s.jsonl"
    text = "Fix the parser in src/app/parser.py: ValueError at line 42 with id 7f3a9c21. " * 40
    records = [
        {"type": "session", "version": 3, "id": "s", "cwd": "/w"},
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
            "message": {"role": "assistant", "content": [{"type": "text", "text": "On it."}]},
        },
    ]
    session.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    out = tmp_path / "r"
    args = ["report", str(session), "--out", str(out), "--workers", "1", "--no-legibility"]
    assert main([*args, "--model", "claude-sonnet-4-6", "--no-cache"]) == 0
    err = capsys.readouterr().err
    line = next(x for x in err.splitlines() if x.startswith("missing optional part ctok"))
    assert err.index(line) < err.index("import:")  # said before the conversations are read
    report = (out / "REPORT.md").read_text(encoding="utf-8")
    assert "## Optional parts missing" in report and "missing optional part ctok" in report
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["rows"] and not results["errors"]
    assert results["profiles"]["claude-sonnet-4-6"]["text_counter"] == "estimate"


def test_nothing_is_named_when_everything_is_installed() -> None:
    if not ctok_available():
        pytest.skip("ctok is not installed here")
    parts = missing_parts(("claude-sonnet-4-6",), Settings(), use_ocr=False, legibility="none")
    assert [p.part for p in parts if p.part == "ctok"] == []
