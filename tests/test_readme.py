"""README is the front door: short, its first screen says what snapshot is and how to run it,
and every figure of a result in it comes from a generated block that matches the committed files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from snapshot.report.readme import block_in, generated_blocks, markers

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BLOCKS = ("results", "readability", "speed", "cost", "defaults")


def _text() -> str:
    if not README.is_file() or not (ROOT / "reports" / "results.json").is_file():
        pytest.skip("not a source checkout: README.md and reports/ are not installed")
    return README.read_text(encoding="utf-8")


def _prose(text: str) -> str:
    """README without its generated blocks, code, inline code, HTML and tables: what a
    person wrote by hand."""
    for name in BLOCKS:
        begin, end = markers(name)
        text = re.sub(re.escape(begin) + r".*?" + re.escape(end), "", text, flags=re.S)
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"<pre>.*?</pre>", "", text, flags=re.S)
    text = re.sub(r"`[^`]*`", "", text)
    return "\n".join(ln for ln in text.splitlines() if not ln.startswith(("|", "<")))


def test_it_is_short_and_its_lines_are_readable() -> None:
    lines = _text().splitlines()
    assert len(lines) <= 200
    assert max(len(ln) for ln in lines) <= 400
    prose = [ln for ln in lines if not ln.startswith(("|", "<", "`"))]
    assert [ln for ln in prose if len(ln) > 120] == []


def test_the_first_screen_says_what_it_is_shows_a_page_and_how_to_run_it() -> None:
    first = "\n".join(_text().splitlines()[:40])
    assert first.startswith("# snapshot\n\nsnapshot draws")
    assert '<img src="docs/picture/page-001.png"' in first
    install = re.search(
        r"^python3 -m venv \.venv && .*pip install .* && \.venv/bin/snapshot report$", first, re.M
    )
    assert install, "the one install-and-run command is not in the first 40 lines"
    assert re.search(r"^bash \.ci/run$", first, re.M), (
        "the test command is not in the first 40 lines"
    )


def test_every_generated_block_is_what_the_committed_results_give() -> None:
    _text()
    for name, block in generated_blocks(ROOT / "reports").items():
        assert block_in(README, name) == block, (
            f"README's {name} block is stale: run python -m snapshot.report.readme README.md"
        )


def test_no_figure_of_a_result_is_written_by_hand() -> None:
    """Outside the generated blocks the only figures are the readability bar's own
    definition, the default rule's bars and the gate's control page, and those are the code's."""
    from snapshot.legibility.gate import CONTROL_SIZE
    from snapshot.legibility.weakest import JITTER
    from snapshot.profiles.default_rule import QUALIFY_BAR, RELATIVE_BAR
    from snapshot.readability.goal import RESAMPLE_SCALE, Goal

    goal = Goal()
    allowed = {
        f"{RELATIVE_BAR:.2f}",  # the default rule's bars
        f"{QUALIFY_BAR:.2f}",
        f"{goal.char_accuracy:.2f}",
        f"{goal.hard_tokens:.2f}",
        f"{goal.resampled_char_accuracy:.2f}",
        f"{RESAMPLE_SCALE}×",
        f"{JITTER} px",
        f"{CONTROL_SIZE} px",
    }
    # a number with a unit or a decimal point, not part of a name (Apache-2.0, snap5x8)
    figure = r"(?<![\w.-])\d+(?:[.,]\d+)*(?:\s?(?:%|×|px\b|ms\b|s\b|MB\b|GB\b)|\.\d+\b)"
    figures = [m.group(0) for m in re.finditer(figure, _prose(_text()))]
    assert [f for f in figures if f not in allowed] == []


def test_each_block_carries_provenance_markers() -> None:
    text = _text()
    assert "ᵐ" in block_in(README, "readability")
    assert "Markers:" in block_in(README, "results")
    speed = block_in(README, "speed").replace("\n  ", " ")  # items wrap with an indent
    items = [ln for ln in speed.splitlines() if ln.startswith("- ")]
    assert items, "the speed block quotes no figure"
    assert all(re.search(r"ᵐ \(goal|not measured yet", item) for item in items), items
    assert text.count("<!-- results:begin -->") == 1


def test_the_speed_block_reads_each_record_and_says_when_a_goal_is_missed(tmp_path: Path) -> None:
    import json

    from snapshot.errors import InputError
    from snapshot.report.readme import SpeedFigure, speed_block

    record = {
        "bench": "render_speed",
        "date": "2026-12-06T05:00:00Z",
        "machine": {"cpu": "Xeon", "cores": 2},
        "load": {"start": [9.5, 8.0, 7.0], "end": [10.25, 8.0, 7.0]},
        "goal": {
            "rate": {"value": 6.9, "op": ">=", "target": 20, "unit": "M chars/s", "passed": False}
        },
        "passed": False,
        "status": "measured",
    }
    (tmp_path / "render_speed.json").write_text(json.dumps(record), encoding="utf-8")
    figures = [SpeedFigure("render_speed", "rate", "render"), SpeedFigure("other", "x", "other")]
    block = " ".join(speed_block(tmp_path, figures).split())
    assert "- render: 6.9 M chars/sᵐ (goal ≥ 20 M chars/s: NOT met)" in block
    assert "load 9.5 → 10.25" in block and "- other: not measured yet" in block
    (tmp_path / "other.json").write_text(json.dumps({**record, "bench": "render_speed"}))
    with pytest.raises(InputError, match=re.escape("other.json: its 'bench' is 'render_speed'")):
        speed_block(tmp_path, figures)


def test_the_rewriter_refuses_a_readme_without_its_blocks_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    from snapshot.report.readme import main

    reports = tmp_path / "reports"
    reports.mkdir()
    for name in ("results.json", "frontier.md"):
        shutil.copy(ROOT / "reports" / name, reports / name)
    (tmp_path / "README.md").write_text("# no blocks\n", encoding="utf-8")
    assert main([str(tmp_path / "README.md")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "results:begin" in err
