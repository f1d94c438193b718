"""Whole-page reader speed, side by side with crop reading, on one full snap8x16 page.

What the benchmark's page sample costs: each whole-page reader reads one full
1568×728 snap8x16 page (the Gemini default, 8,580 cells) of agent-like text,
against the obvious alternative, rapidocr recognition on the same page's row
crops given the renderer's rows. One round each (a page takes seconds). The
ratios print at the end of the run; ``test_goal`` writes
``reports/bench/page_reader_speed.json`` and asserts the README's figure for what a page
costs (16-101 s of one core for Gemini's page, 2026-12-01): every whole-page reader
measured reads the page within 120 s.

Run: ``python bench/run.py page_reader_speed`` (the [ocr] and [pageocr] extras; readers
not installed skip and say so).
"""

from __future__ import annotations

from typing import Any

import pytest
import results
from conftest import INPUTS, STATS, page_text, record

from snapshot.legibility.page_readers import ReaderUnavailable, load_page_reader, page_reader_names
from snapshot.rendering.geometry import Geometry
from snapshot.rendering.glyphs import load_font
from snapshot.rendering.page import Page, render


@pytest.fixture(scope="module")
def page() -> Page:
    geometry = Geometry.fit(load_font("snap8x16"), 1568, 728)
    return render(page_text(), geometry)[0]


@pytest.mark.benchmark(group="page readers")
@pytest.mark.parametrize("name", page_reader_names())
def test_whole_page(benchmark: Any, page: Page, name: str) -> None:
    try:
        reader = load_page_reader(name)
    except ReaderUnavailable as exc:
        pytest.skip(f"{name}: {exc}")
    reader.read_page(page.pixels)  # warm the sessions once
    text = record(benchmark, name, lambda: reader.read_page(page.pixels), rounds=1, iterations=1)
    assert text


@pytest.mark.benchmark(group="page readers")
def test_rapidocr_crops_given_rows(benchmark: Any, page: Page) -> None:
    from snapshot.legibility.readers import PageLayout, RapidOcrReader, rapidocr_available
    from snapshot.legibility.resample import NATIVE

    if not rapidocr_available():
        pytest.skip("rapidocr_onnxruntime is not installed (the [ocr] extra)")
    reader, layout = RapidOcrReader(), PageLayout.of(page)
    rows = list(range(len(page.rows)))
    seen = NATIVE.apply(page.pixels)
    reader.read(seen, layout, rows[:2])  # warm
    out = record(
        benchmark,
        "rapidocr crops given rows",
        lambda: reader.read(seen, layout, rows),
        rounds=1,
        iterations=1,
    )
    assert len(out) == len(rows)


def test_goal() -> None:
    readers = [n for n in page_reader_names() if n in STATS]
    if not readers:
        pytest.skip("no whole-page reader was measured in this run")
    crops = STATS.get("rapidocr crops given rows")
    ratios = (
        {
            f"{n}_over_crops": results.figure(
                STATS[n]["median_s"] / crops["median_s"],
                "x",
                "whole page vs rapidocr crops given rows",
            )
            for n in readers
        }
        if crops
        else {}
    )
    record = results.finish(
        results.bench_name(__file__),
        {
            "arms": {n: STATS[n] for n in [*readers, "rapidocr crops given rows"] if n in STATS},
            "ratios": ratios,
            "params": {"page": "1568x728 snap8x16, one round each, sessions warmed"},
            "inputs": {k: v for k, v in INPUTS.items() if k == "page"},
        },
        {
            f"{n}_page_s": results.Goal(
                STATS[n]["median_s"], "<=", 120, "s", "README: 16-101 s a page (2026-12-01)"
            )
            for n in readers
        },
    )
    results.check(record)
