"""``snapshot legibility --min ACC``: the verdict logic, fed score inputs (no reader runs).

The real reading (PP-OCRv6 on tiny pages, exit 0 and exit 1) is
``tests/test_readability_gate.py``; here the readings are given, so what is tested is
only what the gate does with them: each reader's layout score is relative to its own
control page, only qualified readers (control >= 0.93) judge and the weakest of them
decides, every installed reader reads by default, a reader asked for and missing or no
qualified reader is one clear error (exit 2), and the exit code follows.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from snapshot.cli import main
from snapshot.legibility import gate as gate_module
from snapshot.legibility.frontier import CandidateLayout, Point
from snapshot.legibility.gate import (
    CONTROL_FONT,
    GATE_READERS,
    GateResult,
    Judged,
    NoIndependentReader,
    installed_gate_readers,
)
from snapshot.legibility.hardlines import HELD_OUT_SEED
from snapshot.legibility.page_readers import ReaderUnavailable


def _point(reader: str, acc: float, font: str = "snap8x16") -> Point:
    return Point(
        CandidateLayout(font, page=(1540, 1540)), {"name": reader, "model_sha256": "ab", "version": "1"},
        1.0, None, HELD_OUT_SEED, 1, 1000, 1000, 7.8, acc, 10, 9,
    )  # fmt: skip


def _judged(reader: str, acc: float, control: float) -> Judged:
    return Judged(_point(reader, acc), _point(reader, control, CONTROL_FONT))


def test_the_weakest_qualified_reader_decides_relative_to_its_control() -> None:
    # tesseract reads the layout at 0.90 but its clean control at only 0.95: 0.947 relative
    both = (_judged("ppocrv6-small", 0.99, 0.99), _judged("tesseract-x2", 0.90, 0.95))
    result = GateResult("m", 0.95, "hardlines", both, ())
    assert result.weakest.reader == "tesseract-x2" and not result.passed
    assert GateResult("m", 0.9 / 0.95, "hardlines", both, ()).passed  # the bar is inclusive
    # a reader below the qualifying bar on its control never decides, however low it reads
    unqualified = (_judged("ppocrv6-small", 0.98, 0.99), _judged("easyocr-en", 0.50, 0.85))
    result = GateResult("m", 0.95, "hardlines", unqualified, ())
    assert [j.reader for j in result.qualified] == ["ppocrv6-small"] and result.passed
    tie = (_judged("b", 0.96, 0.96), _judged("a", 0.96, 0.96))
    assert GateResult("m", 0.9, "corpus", tie, ()).weakest.reader == "a"


def _installed(*names: str) -> Any:
    def load(name: str) -> object:
        if name not in names:
            raise ReaderUnavailable(f"{name} is not installed")
        return name

    return load


def _fake_measure(acc: float, control: float = 0.99) -> Any:
    def measure(layout: CandidateLayout, reader: Any, **kw: Any) -> Point:
        if layout.font == CONTROL_FONT:
            return _point(str(reader), control, CONTROL_FONT)
        return _point(str(reader), acc)

    return measure


def test_by_default_every_installed_independent_reader_reads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(gate_module, "load_page_reader", _installed(*GATE_READERS))
    assert installed_gate_readers() == list(GATE_READERS)
    monkeypatch.setattr(gate_module, "load_page_reader", _installed("tesseract-x2", "ppocrv5"))
    assert installed_gate_readers() == ["ppocrv5", "tesseract-x2"]
    assert "oracle" not in GATE_READERS  # the round-trip check is never a gate reader
    monkeypatch.setattr(gate_module, "measure", _fake_measure(0.98))
    result = gate_module.gate("claude-sonnet-5-5", 0.9)
    assert [j.reader for j in result.judged] == ["ppocrv5", "tesseract-x2"]


def test_no_independent_reader_is_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(gate_module, "load_page_reader", _installed())
    with pytest.raises(NoIndependentReader, match="round-trip check never gates"):
        installed_gate_readers()
    assert main(["legibility", "--model", "claude-sonnet-5-5", "--min", "0.9"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "never gates" in err[0]


def test_a_requested_reader_that_is_missing_is_exit_2_naming_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(gate_module, "load_page_reader", _installed("ppocrv6-small"))
    monkeypatch.setattr(gate_module, "measure", _fake_measure(0.99))
    args = ["legibility", "--model", "claude-sonnet-5-5", "--min", "0.9"]
    code = main([*args, "--page-reader", "ppocrv6-small", "--page-reader", "easyocr-en"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "easyocr-en" in err[0] and "not installed" in err[0]


def test_no_qualified_reader_is_exit_2_with_the_controls(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(gate_module, "load_page_reader", _installed("easyocr-en"))
    monkeypatch.setattr(gate_module, "measure", _fake_measure(0.99, control=0.85))
    assert main(["legibility", "--model", "claude-sonnet-5-5", "--min", "0.5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no reader qualifies" in err[0] and "easyocr-en 0.850" in err[0]


@pytest.mark.parametrize("acc, code", [(0.959, 1), (0.9603, 0), (0.999, 0)])
def test_the_exit_code_follows_the_weakest_relative_reading(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], acc: float, code: int
) -> None:
    monkeypatch.setattr(gate_module, "load_page_reader", _installed("ppocrv6-small"))
    monkeypatch.setattr(gate_module, "measure", _fake_measure(acc, control=0.99))
    assert main(["legibility", "--model", "claude-sonnet-5-5", "--min", "0.97"]) == code
    out = capsys.readouterr().out
    assert ("FAIL" if code else "PASS") + ": weakest qualified reader ppocrv6-small" in out


def test_json_names_each_judge_and_its_control(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(gate_module, "load_page_reader", _installed("ppocrv5", "easyocr-en"))

    def measure(layout: CandidateLayout, reader: Any, **kw: Any) -> Point:
        control = {"ppocrv5": 0.96, "easyocr-en": 0.80}[str(reader)]
        acc = control if layout.font == CONTROL_FONT else 0.9
        return _point(str(reader), acc, layout.font)

    monkeypatch.setattr(gate_module, "measure", measure)
    args = ["legibility", "--model", "claude-sonnet-5-5", "--min", "0.9", "--json"]
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    judges = {j["reader"]: j for j in doc["judges"]}
    assert judges["ppocrv5"]["qualified"] and not judges["easyocr-en"]["qualified"]
    assert doc["weakest"] == "ppocrv5" and doc["weakest_relative"] == round(0.9 / 0.96, 4)
