"""The report's whole-page readers at the real page and ±4 px (issue 25 item 1).

The readings themselves take a real reader minutes per page, so they run in
``bench/test_report_jitter_real.py`` (PP-OCRv6 on Claude's 1540×1540 page: 0.973
at the page, 0.808 at 1536×1536, measured 2026-12-02). Here: the resizing, and how
a row's per-size scores become a verdict and report lines, from score inputs.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from snapshot.readability.goal import Goal
from snapshot.report.matrix import MatrixRow, Settings, evaluate
from snapshot.report.page_jitter import SizeScore, jitter_lines, resized, text_margin, verdict
from snapshot.report.sources import demo_sources

MODEL = "claude-sonnet-5-5"  # snap8x16 on 1540×1540; 1536×1536 is a multiple of 32

#: Score inputs ``[chars, char errors, hard tokens, exact hard tokens, "WxH"]``: a reader
#: that passes at the page and 4 px larger and fails 4 px smaller.
FLIPPING: dict[str, list[int | str]] = {
    "real": [1000, 27, 40, 38, "1540x1540"],
    "+4": [1000, 26, 40, 38, "1544x1544"],
    "-4": [1000, 192, 40, 20, "1536x1536"],
}


def _snapshot_row() -> MatrixRow:
    from snapshot.ladder.target import target_for

    source = next(s for s in demo_sources() if "coding" in s.id)
    rows = evaluate(source, [target_for(MODEL)], Settings())
    return next(r for r in rows if r.strategy == "snapshot")


def test_a_reader_whose_verdict_flips_with_4_px_is_shown_at_each_size_as_unstable() -> None:
    row = dataclasses.replace(_snapshot_row(), reader_page_scores={"ppocrv6-small": FLIPPING})
    sizes = {label: SizeScore.from_list(v) for label, v in FLIPPING.items()}
    assert verdict(sizes) == "unstable"
    assert verdict({"real": sizes["real"], "+4": sizes["+4"]}) == "stable"
    assert verdict(sizes, Goal(char_accuracy=0.80, hard_tokens=0.50)) == "stable"
    lines = "\n".join(jitter_lines([row], [MODEL]))
    assert "1540x1540" in lines and "1544x1544" in lines and "1536x1536" in lines
    assert "unstable" in lines
    assert "0.808" in lines  # the failing size is shown, not averaged away


def test_rows_without_readers_carry_no_sizes_and_old_rows_still_load() -> None:
    row = _snapshot_row()
    assert row.reader_page_scores == {}
    assert jitter_lines([row], [MODEL]) == []
    old = {k: v for k, v in row.to_json().items() if k != "reader_page_scores"}
    assert MatrixRow.from_json(old).reader_page_scores == {}  # cached rows of before: no cell


def test_resizing_adds_paper_and_takes_only_margin() -> None:
    from snapshot import profiles

    g = profiles.profile_for(MODEL).geometry()  # 2 px margin on every side
    page = np.full(g.size[::-1], 255, np.uint8)
    x, y = g.origin
    bw, bh = g.block_size
    page[y : y + bh, x : x + bw] = 0  # every cell inked
    grown = resized(page, 4, margin=text_margin(g))
    shrunk = resized(page, -4, margin=text_margin(g))
    assert grown.shape == (g.size[1] + 4, g.size[0] + 4)
    assert shrunk.shape == (g.size[1] - 4, g.size[0] - 4)
    assert (grown == 0).sum() == (shrunk == 0).sum() == bw * bh  # no cell cut, none added
    tight = resized(page, -8, margin=text_margin(g))  # more than the margin: cells kept
    assert (tight == 0).sum() == bw * bh
