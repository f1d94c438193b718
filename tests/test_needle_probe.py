"""The live needle battery end to end against the local fake server, and its report column.

The fake "model" transcribes each page with the project's own decoder (the
round-trip check): a perfect reader, so every needle must be found; a second
one corrupts digits, so recall must drop. No test reaches a real provider.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from fake_provider import FakeProvider, Recorded, loopback_only

from snapshot.errors import InputError
from snapshot.report import needle_probe
from snapshot.report.needle_recall import probe_recall

sys.path.insert(0, str(Path(__file__).parent))

KEYS = {
    "anthropic": "sk-ant-api03-FAKEfakeFAKE0123456789abcdefXYZ",
    "openai": "sk-proj-FAKEfakeFAKE0123456789abcdefXYZ",
    "gemini": "AIzaFAKEfakeFAKE0123456789abcdefXYZ12345",
}
MODEL = "claude-sonnet-4-5"  # a report default profile: the probe reads the report's pages


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    loopback_only(monkeypatch)
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


def _transcribe(rec: Recorded) -> str:
    """A perfect reader: the project's decoder on the PNG the fake received."""
    from snapshot.rendering.decode import load_png, read
    from snapshot.rendering.glyphs import load_font

    assert rec.png is not None
    return read(load_png(rec.png), load_font("snap8x16"))


def _misreads_digits(rec: Recorded) -> str:
    # Digits read as O and e as c: every needle class (hex, numbers, words) has one or the other.
    return re.sub(r"[0-9]", "O", _transcribe(rec)).replace("e", "c")


def _probe(reply: Any, tmp_path: Path) -> tuple[needle_probe.NeedleProbeRecord, Path]:
    pytest.importorskip("anthropic", reason="the [live] extra (anthropic SDK) is not installed")
    with FakeProvider(KEYS, reply, max_requests=8, lifetime=120.0) as server:
        record = needle_probe.run_needle_probe(
            MODEL,
            api_key=KEYS["anthropic"],
            base_url=server.base_url("anthropic"),
            timeout=30,
            max_retries=0,
        )
        assert server.problems == []
        shown = [r.png for r in server.requests]
    # The very pages the report's whole-page readers read for this profile.
    expected = [bp.page.png() for bp in needle_probe.battery_pages(MODEL)]
    assert shown == expected and len(expected) >= 1
    return record, needle_probe.save(record, tmp_path, KEYS.values())


def test_a_perfect_reader_finds_every_needle(tmp_path: Path) -> None:
    record, path = _probe(_transcribe, tmp_path)
    found, asked, _by_class = record.totals()
    assert asked >= 5 and found == asked
    assert record.preregistered and record.protocol["seed"] == needle_probe.PREREGISTERED.seed
    data = json.loads(path.read_text())
    assert data["schema"] == needle_probe.SCHEMA
    assert data["summary"]["needles"] == asked and data["summary"]["wilson95"][1] == 1.0
    for key in KEYS.values():
        assert key not in path.read_text()
    assert needle_probe.NeedleProbeRecord.from_dict(data) == record


def test_misread_digits_lower_recall_and_join_the_report(tmp_path: Path) -> None:
    record, _path = _probe(_misreads_digits, tmp_path)
    found, asked, by_class = record.totals()
    assert found < asked
    if "hex" in by_class:
        assert by_class["hex"][0] == 0  # every hex needle has a digit
    (column,) = probe_recall(needle_probe.load_records(tmp_path), [MODEL, "gpt-5.1"])
    assert column.model == MODEL and column.reader == f"live: {MODEL}"
    assert (column.found, column.needles) == (found, asked)
    lo, hi = column.interval
    assert lo <= found / asked <= hi


def test_a_failed_page_is_not_a_miss(tmp_path: Path) -> None:
    pytest.importorskip("anthropic", reason="the [live] extra (anthropic SDK) is not installed")
    with FakeProvider(KEYS, "x", max_requests=8, lifetime=60.0, fail_status=500) as server:
        record = needle_probe.run_needle_probe(
            MODEL,
            api_key=KEYS["anthropic"],
            base_url=server.base_url("anthropic"),
            timeout=10,
            max_retries=0,
        )
    assert all(p.hits is None and p.error for p in record.pages)
    assert record.totals()[1] == 0  # nothing measured, nothing counted as missed
    assert probe_recall([record.to_dict()], [MODEL])[0].needles == 0


def test_load_records_names_a_broken_file(tmp_path: Path) -> None:
    (tmp_path / "other.json").write_text('{"schema": "snapshot.probe/1"}')  # skipped
    assert needle_probe.load_records(tmp_path) == []
    (tmp_path / "bad.json").write_text('{"schema": "snapshot.needle-probe/1"}')
    with pytest.raises(InputError, match=r"bad\.json"):
        needle_probe.load_records(tmp_path)


def test_cli_report_with_probes_adds_a_live_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from snapshot.cli import main

    _record, _path = _probe(_transcribe, tmp_path / "probes")
    out = tmp_path / "report"
    code = main(
        [
            "report",
            "--out",
            str(out),
            "--no-legibility",
            "--workers",
            "1",
            "--model",
            MODEL,
            "--probes",
            str(tmp_path / "probes"),
        ]
    )
    assert code == 0, capsys.readouterr().err
    report = (out / "REPORT.md").read_text()
    assert f"live: {MODEL}" in report
    results = json.loads((out / "results.json").read_text())
    live = [x for x in results["needle_recall"] if x["source"] == "live probe"]
    assert live and live[0]["found"] == live[0]["needles"] > 0


def test_cli_report_probes_folder_must_exist(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from snapshot.cli import main

    code = main(["report", "--out", str(tmp_path), "--probes", str(tmp_path / "nope")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "--probes" in err
