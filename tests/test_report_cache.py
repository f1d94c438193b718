"""The report's result cache: a re-run reuses unchanged files' results, field for field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from snapshot.cli import main

FAST = ["--workers", "1", "--no-legibility", "--model", "gpt-5.1"]
# Timings and the command line differ from run to run by nature; every other field must not.
# Run conditions, not results: the machine's load and the readers' CPU differ run to run.
TIMED = {"seconds", "command", "load", "reader_cpu_s"}


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
    # 2 results; the summaries of listed files are read when they are listed, and the
    # characters-per-token figure is drawn from the rows (no data of its own)
    assert len(list((cached / ".cache").glob("*.json"))) == 2
    assert main(["report", str(sessions), "--out", str(cached), *FAST]) == 0
    again = _results(cached)
    # read back, not run: even the measured seconds of every row are the first run's
    assert [r["seconds"] for r in again["rows"]] == [r["seconds"] for r in first["rows"]]
    assert main(["report", str(sessions), "--out", str(fresh), "--no-cache", *FAST]) == 0
    assert not (fresh / ".cache").exists()
    uncached = _results(fresh)
    assert set(again) == set(uncached)
    assert _untimed(again) == _untimed(uncached) == _untimed(first)
    # the figures of the re-run were copied from the cache, the fresh run's drawn: same bytes
    assert len(list((cached / ".cache").glob("*.png"))) == 3
    for figure in ("pareto.png", "distribution.png", "chars_per_token.png"):
        assert (cached / figure).read_bytes() == (fresh / figure).read_bytes(), figure

    # one session added, one changed: those two run, the unchanged one is read back
    _session(sessions / "c.jsonl", "scanner")
    _session(sessions / "a.jsonl", "emitter")
    assert main(["report", str(sessions), "--out", str(cached), *FAST]) == 0
    rows = _results(cached)["rows"]
    assert {Path(r["source"]).name for r in rows} == {"a.jsonl", "b.jsonl", "c.jsonl"}

    def timings(data: list[dict[str, Any]], name: str) -> list[float]:
        return [r["seconds"] for r in data if r["source"].endswith(name)]

    assert timings(rows, "b.jsonl") == timings(first["rows"], "b.jsonl")
    assert len(list((cached / ".cache").glob("*.json"))) == 4  # + a new key each for c and a
