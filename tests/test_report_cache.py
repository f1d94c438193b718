"""The report's result cache: a re-run reuses unchanged files' results, field for field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from snapshot.cli import main

FAST = ["--workers", "1", "--no-legibility", "--model", "gpt-5.1"]
# Timings and the command line differ from run to run by nature; every other field must not.
TIMED = {"seconds", "command"}


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SNAPSHOT_NO_PROGRESS", "1")


def _session(path: Path, topic: str) -> Path:
    """A small pi session (the format of tests/test_report_paths.py) with text to page."""
    text = f"Fix {topic} in src/app/{topic}.py: ValueError at line 42 with id 7f3a9c21. " * 60
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
            "message": {"role": "assistant", "content": [{"type": "text", "text": text[::-1]}]},
        },
        {
            "type": "message",
            "id": "u2",
            "parentId": "a",
            "message": {"role": "user", "content": f"and now the {topic} tests"},
        },
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def _results(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return data


def _untimed(data: dict[str, Any]) -> dict[str, Any]:
    rows = [{k: v for k, v in r.items() if k != "seconds"} for r in data["rows"]]
    return {**{k: v for k, v in data.items() if k not in TIMED}, "rows": rows}


def test_cached_and_uncached_runs_give_the_same_results(tmp_path: Path) -> None:
    sessions = tmp_path / "s"
    _session(sessions / "a.jsonl", "parser")
    _session(sessions / "b.jsonl", "lexer")
    cached, fresh = tmp_path / "cached", tmp_path / "fresh"
    assert main(["report", str(sessions), "--out", str(cached), *FAST]) == 0
    first = _results(cached)
    assert len(list((cached / ".cache").glob("*.json"))) == 4  # 2 results + 2 summary lengths
    assert main(["report", str(sessions), "--out", str(cached), *FAST]) == 0
    again = _results(cached)
    # read back, not run: even the measured seconds of every row are the first run's
    assert [r["seconds"] for r in again["rows"]] == [r["seconds"] for r in first["rows"]]
    assert main(["report", str(sessions), "--out", str(fresh), "--no-cache", *FAST]) == 0
    assert not (fresh / ".cache").exists()
    uncached = _results(fresh)
    assert set(again) == set(uncached)
    assert _untimed(again) == _untimed(uncached) == _untimed(first)


def test_adding_a_session_runs_that_session_only(tmp_path: Path) -> None:
    sessions = tmp_path / "s"
    _session(sessions / "a.jsonl", "parser")
    out = tmp_path / "r"
    assert main(["report", str(sessions), "--out", str(out), *FAST]) == 0
    before = {r["strategy"]: r["seconds"] for r in _results(out)["rows"]}
    _session(sessions / "b.jsonl", "lexer")
    assert main(["report", str(sessions), "--out", str(out), *FAST]) == 0
    rows = _results(out)["rows"]
    assert {r["source"] for r in rows} == {str(sessions / "a.jsonl"), str(sessions / "b.jsonl")}
    kept = {r["strategy"]: r["seconds"] for r in rows if r["source"].endswith("a.jsonl")}
    assert kept == before
    # a changed file is a new key: its conversation runs again
    _session(sessions / "a.jsonl", "scanner")
    assert main(["report", str(sessions), "--out", str(out), *FAST]) == 0
    assert len(list((out / ".cache").glob("*.json"))) == 6
