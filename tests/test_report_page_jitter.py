"""The report's whole-page readers at the real page and ±4 px (issue 25 item 1)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from snapshot.legibility import page_readers as pr
from snapshot.legibility.frontier import Goal
from snapshot.legibility.page_readers import ReaderInfo
from snapshot.report import markdown
from snapshot.report.matrix import Row, Settings, evaluate
from snapshot.report.page_jitter import SizeScore, jitter_lines, resized, text_margin, verdict
from snapshot.report.sources import demo_sources

MODEL = "gemini-3-pro-preview"  # snap8x16 on 1568×728: the width is a multiple of 32


class CliffDouble:
    """A test double, not a reader: the package's own decoder, except that a page whose
    width is a multiple of 32 px reads as nothing (the shape of PP-OCRv6's blank map)."""

    info = ReaderInfo("cliff-test-double", "test", "none", {})

    def read_page(self, pixels: np.ndarray) -> str:
        from snapshot.decode import read
        from snapshot.glyphs import load_font

        if pixels.shape[1] % 32 == 0:
            return ""
        return read(pixels, load_font("snap8x16"))  # the profile's face


@pytest.fixture
def cliff(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(pr._FACTORIES, "cliff-test-double", CliffDouble)
    pr.load_page_reader.cache_clear()
    yield
    pr.load_page_reader.cache_clear()


def _snapshot_row(settings: Settings) -> Row:
    from snapshot.ladder.target import target_for

    source = next(s for s in demo_sources() if "coding" in s.id)
    rows = evaluate(source, [target_for(MODEL)], settings)
    return next(r for r in rows if r.strategy == "snapshot")


def test_a_reader_whose_verdict_flips_with_4_px_is_shown_at_each_size_as_unstable(
    cliff: None, tmp_path: Path
) -> None:
    row = _snapshot_row(Settings(page_readers=("cliff-test-double",)))
    scores = row.reader_page_scores["cliff-test-double"]
    sizes = {label: SizeScore.from_list(v) for label, v in scores.items()}
    assert [s.size for s in sizes.values()] == ["1568x728", "1572x732", "1564x724"]
    assert sizes["real"].char_accuracy == 0.0  # the needles too: none found at the real page
    assert sum(row.reader_found["cliff-test-double"].values()) == 0
    assert sizes["+4"].char_accuracy > 0.95 and sizes["-4"].char_accuracy > 0.95
    # the decoder skips the header row the score counts: judged against a 0.95 bar here
    assert verdict(sizes, Goal(char_accuracy=0.95)) == "unstable"
    assert verdict({"real": sizes["+4"], "+4": sizes["-4"]}) == "stable"
    lines = "\n".join(jitter_lines([row], [MODEL]))
    assert "0.000 (0.00) 1568x728 | 0.964" in lines
    assert "weakest reader at the real page: cliff-test-double, 0.000" in lines


def test_jitter_can_be_switched_off_and_old_rows_still_load(cliff: None) -> None:
    row = _snapshot_row(Settings(page_readers=("cliff-test-double",), reader_jitter=False))
    assert list(row.reader_page_scores["cliff-test-double"]) == ["real"]
    old = {k: v for k, v in row.to_json().items() if k != "reader_page_scores"}
    assert Row.from_json(old).reader_page_scores == {}  # cached rows of before: no cell


def test_resizing_adds_paper_and_takes_only_margin() -> None:
    from snapshot import profiles

    g = profiles.profile_for("claude-sonnet-5-5").geometry()  # 2 px margin on every side
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


def test_the_needle_section_prints_the_sizes(cliff: None, tmp_path: Path) -> None:
    from snapshot.report.run import run

    settings = Settings(page_readers=("cliff-test-double",))
    result = run(None, models=(MODEL,), settings=settings, workers=1)
    text = markdown.write(result, tmp_path, figures={}).read_text()
    assert "### Whole-page readers at the real page and ±4 px" in text
    assert "1572x732" in text and "1564x724" in text
