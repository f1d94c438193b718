"""``snapshot legibility --min ACC``: the verdict logic, fed score inputs (no reader runs).

The real reading (PP-OCRv6 on tiny pages, exit 0 and exit 1) is
``tests/test_readability_gate.py``; here the readings are given, so what is
tested is only what the gate does with them: the weakest reader decides, the
default reader is the first independent one installed, none installed is one
clear error (the round-trip check never stands in), and the exit code follows.
"""

from __future__ import annotations

from typing import Any

import pytest

from snapshot.cli import main
from snapshot.legibility import gate as gate_module
from snapshot.legibility.frontier import CandidateLayout, Point
from snapshot.legibility.gate import (
    GATE_READERS,
    GateResult,
    NoIndependentReader,
    default_gate_reader,
)
from snapshot.legibility.hardlines import HELD_OUT_SEED
from snapshot.legibility.page_readers import ReaderUnavailable


def _point(reader: str, acc: float) -> Point:
    return Point(
        CandidateLayout("snap8x16", page=(1540, 1540)), {"name": reader, "model_sha256": "ab", "version": "1"},
        1.0, None, HELD_OUT_SEED, 1, 1000, 1000, 7.8, acc, 10, 9,
    )  # fmt: skip


def test_the_weakest_reader_decides_and_the_bar_is_inclusive() -> None:
    both = (_point("ppocrv6-small", 0.99), _point("tesseract-x2", 0.95))
    result = GateResult("m", 0.97, "hardlines", both, ())
    assert result.weakest.reader_name == "tesseract-x2" and not result.passed
    assert GateResult("m", 0.95, "hardlines", both, ()).passed  # exactly at the bar passes
    tie = (_point("b", 0.96), _point("a", 0.96))
    assert GateResult("m", 0.9, "corpus", tie, ()).weakest.reader_name == "a"


def _installed(*names: str) -> Any:
    def load(name: str) -> object:
        if name not in names:
            raise ReaderUnavailable(f"{name} is not installed")
        return object()

    return load


def test_the_default_is_the_first_independent_reader_installed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(gate_module, "load_page_reader", _installed(*GATE_READERS))
    assert default_gate_reader() == GATE_READERS[0] == "ppocrv6-small"
    monkeypatch.setattr(gate_module, "load_page_reader", _installed("tesseract-x2"))
    assert default_gate_reader() == "tesseract-x2"
    assert "oracle" not in GATE_READERS  # the round-trip check is never a gate reader


def test_no_independent_reader_is_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(gate_module, "load_page_reader", _installed())
    with pytest.raises(NoIndependentReader, match="round-trip check never gates"):
        default_gate_reader()
    assert main(["legibility", "--model", "claude-sonnet-5-5", "--min", "0.9"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "never gates" in err[0]


@pytest.mark.parametrize("acc, code", [(0.969, 1), (0.97, 0), (0.999, 0)])
def test_the_exit_code_follows_the_weakest_reading(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], acc: float, code: int
) -> None:
    monkeypatch.setattr(gate_module, "load_page_reader", _installed("ppocrv6-small"))
    monkeypatch.setattr(
        gate_module, "measure", lambda layout, reader, **kw: _point("ppocrv6-small", acc)
    )
    assert main(["legibility", "--model", "claude-sonnet-5-5", "--min", "0.97"]) == code
    out = capsys.readouterr().out
    assert ("FAIL" if code else "PASS") + ": weakest reader ppocrv6-small" in out
