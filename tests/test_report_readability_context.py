"""REPORT.md's readability figures say what they were measured on (issue 25 item 3).

Each whole-page figure names its reader, the text (the run's own compaction pages:
"corpus pages of this run" on the benchmark), the real page size with each
reader's ±4 px verdict, the weakest reader, the weakest after the ×0.9 resample
(read where a reader passes natively) and the weakest-reader verdict. Score inputs
only: the rows' reader fields are given (real readings: ``tests/test_report_resample.py``
on tiny pages, ``bench/test_report_jitter_real.py`` on real ones); no reader runs here.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from snapshot.report import markdown
from snapshot.report.matrix import MatrixRow, Settings
from snapshot.report.readability import pages_context, pages_text
from snapshot.report.run import RunResult, run

MODEL = "claude-sonnet-5-5"  # snap8x16 on 1540x1540

#: [chars, char errors, hard tokens, exact hard tokens, "WxH"] per reader and size:
#: ppocrv6-small passes at the page and +4 px and fails at -4 px (1536 = 48 x 32);
#: tesseract-x2 is steady and the weakest.
SCORES: dict[str, dict[str, list[int | str]]] = {
    "ppocrv6-small": {
        "real": [1000, 27, 40, 38, "1540x1540"],
        "+4": [1000, 26, 40, 38, "1544x1544"],
        "-4": [1000, 192, 40, 20, "1536x1536"],
        "x0.9": [1000, 64, 40, 33, "1386x1386"],  # read: it passes natively at the real page
    },
    "tesseract-x2": {
        "real": [1000, 121, 40, 30, "1540x1540"],
        "+4": [1000, 120, 40, 30, "1544x1544"],
        "-4": [1000, 121, 40, 30, "1536x1536"],
    },
}


def _result_with_readings() -> RunResult:
    result = run(None, models=(MODEL,), settings=Settings(), workers=1, limit=1)
    found = {"ppocrv6-small": {"hex": 4, "path": 3}, "tesseract-x2": {"hex": 2, "path": 1}}

    def scored(row: MatrixRow) -> MatrixRow:
        if row.strategy not in ("snapshot", "snapshot+factsheet"):
            return row
        return dataclasses.replace(
            row,
            reader_page_scores=SCORES,
            page_needles={"hex": 4, "path": 4},
            reader_found=found,
            reader_found_or_text=found,
            reader_pages=1,
        )

    settings = dataclasses.replace(result.settings, page_readers=tuple(SCORES))
    return dataclasses.replace(result, rows=[scored(r) for r in result.rows], settings=settings)


def test_the_context_names_text_size_verdicts_weakest_and_resample() -> None:
    class Scored:
        model = MODEL
        reader_page_scores = SCORES

    line = pages_context([Scored()], MODEL, pages_text("x/benchmark.manifest.json", False))
    assert line.startswith("corpus pages of this run, 1540x1540 (the real page)")
    assert "±4 px: ppocrv6-small unstable, tesseract-x2 stable" in line
    assert "weakest reader tesseract-x2: 0.879 characters, 0.75 exact hard tokens" in line
    assert "×0.9 (where a reader passes natively): weakest ppocrv6-small 0.936 characters" in line
    assert line.endswith(
        "verdict: not readable: below the bar natively: tesseract-x2; "
        "unstable at ±4 px: ppocrv6-small"
    )
    one_size = {rd: {"real": s["real"]} for rd, s in SCORES.items()}

    class Unjittered:
        model = MODEL
        reader_page_scores = one_size

    unjittered = pages_context([Unjittered()], MODEL, "t")
    assert "±4 px: not read (--no-reader-jitter)" in unjittered
    assert "×0.9 (where a reader passes natively): not read (--no-reader-resample)" in unjittered
    assert pages_context([Scored()], "other-model", "t") == ""


def test_every_whole_page_figure_in_report_md_carries_its_context(tmp_path: Path) -> None:
    result = _result_with_readings()
    text = markdown.write(result, tmp_path, figures={}).read_text()
    context = "demo transcript pages of this run, 1540x1540 (the real page)"  # no --corpus
    strategies = text[text.index("## Strategies") : text.index("## Needle recall")]
    assert "whole-page figures measured on |" in strategies
    snap = next(ln for ln in strategies.splitlines() if f"| {MODEL} | snapshot |" in ln)
    assert context in snap and "weakest reader tesseract-x2" in snap
    plain = next(ln for ln in strategies.splitlines() if f"| {MODEL} | none |" in ln)
    assert context not in plain  # no page read: no context claimed
    needles = text[text.index("## Needle recall") :]
    mine = [ln for ln in needles.splitlines() if ln.startswith(f"| {MODEL} | snapshot |")]
    rows = [ln for ln in mine if ln.split(" | ")[2] in SCORES]
    assert len(rows) == 2
    [text_only] = [ln for ln in mine if ln.split(" | ")[2] == "text only"]
    assert "what stayed text (no page read)" in text_only and context not in text_only
    assert all(context in ln and "weakest ppocrv6-small 0.936 characters" in ln for ln in rows)
    assert "±4 px: ppocrv6-small unstable, tesseract-x2 stable" in rows[0]
    assert "text: the pages of this run's conversations" in needles
    trust = text[text.index("## How far to trust") :]
    assert "the weakest after a 0.9× bicubic resample (read only where a reader passes" in trust
    jitter = needles[needles.index("### Whole-page readers at the real page") :]
    assert "| 0.936 1386x1386 (1 of 1 rows) |" in jitter  # the ×0.9 column, its rows said
    assert "×0.9: weakest ppocrv6-small 0.936 characters" in jitter


def test_report_md_says_what_each_default_rests_on_from_the_cached_readings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from snapshot.legibility import weakest
    from snapshot.legibility.frontier import CandidateLayout, Point, PointCache
    from snapshot.legibility.hardlines import HELD_OUT_SEED

    cache = PointCache(tmp_path / "p.jsonl")
    from snapshot.legibility.controls import control_layout
    from snapshot.legibility.page_readers import current_settings_version

    settings = {"settings_version": current_settings_version("ppocrv5")}
    info = {"name": "ppocrv5", "model_sha256": "ab", "version": "1", "settings": settings}
    for font, shade, acc in (("snap5x8", "1-bit", 0.851), ("snap5x9v2", "gray", 0.927)):
        lay = CandidateLayout(font, shade=shade, page=(1568, 728))  # Gemini Flash's real page
        cache.put(Point(lay, info, 1.0, None, HELD_OUT_SEED, 1, 100, 100, 1.0, acc, 10, 9))
        control = control_layout(lay)  # the reader's control of this page and ink
        cache.put(Point(control, info, 1.0, None, HELD_OUT_SEED, 1, 100, 100, 1.0, 0.98, 10, 9))
    monkeypatch.setattr(weakest, "committed_points", lambda: tmp_path / "p.jsonl")
    result = run(None, models=("gemini-3.8-flash",), settings=Settings(), workers=1, limit=1)
    text = markdown.write(result, tmp_path, figures={}).read_text()
    rests = text[text.index("## What each default layout rests on") :]
    assert "model evidence [measured, 2026]: gemini-3.6-flash at Spleen 5x8" in rests
    assert (
        "weakest qualified reader of ppocrv5 (texts: hardlines): chars 0.868 of control, "
        "0.851 absolute (ppocrv5, hardlines)" in rests
    )
    assert "reads snap5x9v2 gray gap 0x0 1568x728 better at this page (0.89× the density" in rests
    assert "ppocrv5 on hardlines 0.927 vs 0.851" in rests  # the figures it rests on, read
    assert "no model evidence here names it" in rests
