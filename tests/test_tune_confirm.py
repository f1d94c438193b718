"""``snapshot tune`` writes only what the report's own check confirms (issue 40 item 5).

Before this, the fast path wrote a profile the gate (``legibility --min``) then read back at
0.86. Now the winner's profile entry, as it would be written, goes through the gate's check
(:func:`snapshot.legibility.gate.check_layout`: its layout at its page, held-out hard lines,
each reader relative to its own control page) and is written only when the weakest
qualified reader reaches 0.95; else nothing is written, the exit is 1 and one line on
stderr says what failed and what to try. The readings are given here (the gate's reader
and ``measure`` are replaced), so what is tested is what tune does with the check's verdict;
the gate's own reading is ``tests/test_readability_gate.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from snapshot.cli import main
from snapshot.legibility import gate as gate_module
from snapshot.legibility import tune as tune_module
from snapshot.legibility.frontier import CandidateLayout, Point
from snapshot.legibility.gate import CONTROL_FONT
from snapshot.legibility.hardlines import HELD_OUT_SEED

TUNE = ["tune", "--model", "claude-sonnet-5-5", "--reader", "oracle", "--target", "0.99",
        "--font", "misc-5x8", "--col-gap", "0", "--row-gap", "0", "--ink", "black-on-white",
        "--lines", "3"]  # fmt: skip


def _readings(
    monkeypatch: pytest.MonkeyPatch, layout_chars: float, control_chars: float = 0.99
) -> list[tuple[str, str]]:
    """Every installed gate reader reads the layout at ``layout_chars`` and its control at
    ``control_chars``; returns the (layout key, reader) pairs the check read."""
    read: list[tuple[str, str]] = []
    monkeypatch.setattr(gate_module, "load_page_reader", lambda name: name)
    monkeypatch.setattr(gate_module, "installed_gate_readers", lambda: ["ppocrv5", "tesseract-x2"])

    def measure(layout: CandidateLayout, reader: Any, **kw: Any) -> Point:
        read.append((layout.key, str(reader)))
        acc = control_chars if layout.font == CONTROL_FONT else layout_chars
        return Point(
            layout, {"name": str(reader), "model_sha256": "ab"}, 1.0, None, kw["seed"], 1,
            1000, 1000, 7.8, acc, 10, 9, text=kw["text"],
        )  # fmt: skip

    monkeypatch.setattr(gate_module, "measure", measure)
    return read


def test_a_winner_the_check_reads_below_the_bar_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    read = _readings(monkeypatch, 0.86)  # 0.869 of a 0.99 control: below 0.95
    out = tmp_path / "tuned.json"
    assert main([*TUNE, "--out", str(out)]) == 1
    assert not out.exists()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "not written" in err[0] and "0.869 of its control" in err[0] and "try " in err[0]
    # the check read what was about to be written: misc-5x8 at the profile's page, and its control
    assert {k.split()[0].split("@")[0] for k, _ in read} == {"misc-5x8", CONTROL_FONT}
    assert {r for _, r in read} == {"ppocrv5", "tesseract-x2"}


def test_a_winner_the_check_confirms_is_written_with_the_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _readings(monkeypatch, 0.97)  # 0.980 of its control
    out = tmp_path / "tuned.json"
    assert main([*TUNE, "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "confirmed:" in text and "0.980 of its control" in text and str(out) in text
    doc = json.loads(out.read_text(encoding="utf-8"))
    check = doc["tuned"]["confirmed"]
    assert check["passed"] and check["check"]["weakest_relative"] == round(0.97 / 0.99, 4)
    assert check["check"]["text"] == "hardlines"  # held-out lines, never the tuning seed's
    assert all(p["seed"] == HELD_OUT_SEED for p in check["check"]["readings"])


def test_no_qualified_reader_means_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _readings(monkeypatch, 0.99, control_chars=0.80)  # no reader reads its own control
    out = tmp_path / "tuned.json"
    assert main([*TUNE, "--out", str(out), "--json"]) == 1
    assert not out.exists()
    doc = json.loads(capsys.readouterr().out)
    assert doc["path"] is None and not doc["confirmed"]["passed"]
    assert "no reader qualifies" in doc["confirmed"]["line"]


def test_page_tuning_confirms_with_its_own_readers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read = _readings(monkeypatch, 0.97)
    winner_layout = CandidateLayout("snap8x16", page=(1540, 1540))
    point = Point(winner_layout, {"name": "ppocrv6-small", "model_sha256": "ab"}, 1.0, None, 7, 1,
                  1000, 1000, 7.8, 0.99, 10, 10)  # fmt: skip
    trial = tune_module.PageTrial(
        tune_module.PageCandidate(winner_layout, 18240, 3025), point, point, True
    )

    def fake_tune_pages(model: str, reader: Any, **kw: Any) -> tune_module.PageTuneResult:
        return tune_module.PageTuneResult(
            model, point.reader, kw["target"], 7, 1, trial, (trial,), (), "test", "won"
        )

    monkeypatch.setattr(tune_module, "tune_pages", fake_tune_pages)
    monkeypatch.setattr("snapshot.legibility.page_readers.load_page_reader", lambda name: name)
    out = tmp_path / "p.json"
    outcome = tune_module.tune_pages_and_write(
        "claude-sonnet-5-5", "ppocrv6-small", measure_page=(784, 728), out=out
    )
    assert outcome.written and out.exists()
    # the check read the page the profile draws (its own page, not the 784x728 sample)
    assert {(k, r) for k, r in read} >= {("snap8x16 1-bit gap 0x0 1540x1540", "ppocrv6-small")}
