"""README's readability block states only what reports/frontier-points.jsonl measured."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from snapshot.legibility.frontier import PointCache
from snapshot.profiles.dense import DENSE_STYLE
from snapshot.report.readme import block_in

ROOT = Path(__file__).resolve().parents[1]


def _section() -> str:
    readme = ROOT / "README.md"
    if not readme.is_file():
        pytest.skip("not a source checkout: README.md is not installed")
    return block_in(readme, "readability")


def test_every_three_decimal_figure_is_a_measured_reading() -> None:
    """Each figure is a committed reading (current reader settings), or one as a share of
    its reader's committed control reading."""
    from snapshot.legibility.controls import Controls

    points = PointCache(ROOT / "reports" / "frontier-points.jsonl").points()
    measured = {f"{p.char_accuracy:.3f}" for p in points}
    measured |= {f"{p.hard_tokens_exact / p.hard_tokens:.3f}" for p in points if p.hard_tokens}
    controls = Controls(points)
    for p in points:
        j = controls.judge(p)
        if j.control is not None:
            measured |= {f"{j.relative:.3f}", f"{j.hard_relative:.3f}"}
    figures = re.findall(r"\b[01]\.\d{3}\b", _section())
    assert figures, "the block quotes no reading"
    assert [f for f in figures if f not in measured] == []


def test_it_names_the_face_the_dense_layout_draws_and_says_what_is_missing() -> None:
    section = " ".join(_section().split())
    assert f"{DENSE_STYLE.font} {DENSE_STYLE.shade}" in section and "(dense)" in section
    assert "*Not measured yet*" in section and "weakest: characters" in section


def test_the_candidate_readings_it_says_are_missing_are_the_ones_missing() -> None:
    from snapshot.legibility.campaign import density_page
    from snapshot.legibility.frontier_report import unread_candidates
    from snapshot.legibility.weakest import CLAIM_READERS

    points = PointCache(ROOT / "reports" / "frontier-points.jsonl").points()
    unread = unread_candidates(points, density_page(), CLAIM_READERS)
    section = " ".join(_section().split())  # the block's prose is wrapped
    said = re.search(r"not yet read here: (\d+) readings?", section)
    if unread:
        assert said is not None, f"README does not say the {sum(unread.values())} are missing"
        assert int(said.group(1)) == sum(unread.values())
    else:
        assert said is None
        assert "read here by all" in section
