"""Gray-ink rasterizer speed beside the 1-bit path, in one run.

One full 1568×728 page drawn gray (snap5x9 with its grayscale-edge companion)
with ``rasterize_gray``, against the same text drawn 1-bit and unpacked to an
H×W image (``rasterize`` + ``unpack``, what a 1-bit page costs as pixels), and
the 8-bit PNG encode against the 1-bit one. Ratios print at the end of the run
(see conftest.py); ``test_goal`` writes ``reports/bench/gray_raster_speed.json`` and
asserts issue 29 item 3's goal (the gray page within 1.5x of the 1-bit one) on the
drawing alone: ``rasterize_gray`` <= 1.5x ``rasterize`` + ``unpack`` of the same grid.
The PNG ratio is recorded, not a goal (issue 29 measured it whole, bench/test_dense_speed.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import results
from conftest import INPUTS, arms, page_text, record

from snapshot.rendering.geometry import Geometry
from snapshot.rendering.glyphs import load_font
from snapshot.rendering.page import Page, render
from snapshot.rendering.raster import rasterize, rasterize_gray, to_png, to_png_gray, unpack


@pytest.fixture(scope="module")
def gray_page() -> Page:
    return render(page_text(), Geometry.fit(load_font("snap5x9"), 1568, 728, shade="gray"))[0]


@pytest.mark.benchmark(group="gray")
def test_rasterize_gray(benchmark: Any, gray_page: Page) -> None:
    g = gray_page.geometry
    px = record(benchmark, "rasterize_gray", lambda: rasterize_gray(gray_page.grid, g.font, g))
    assert np.array_equal(px, gray_page.pixels)


@pytest.mark.benchmark(group="gray")
def test_rasterize_one_bit_pixels_same_grid(benchmark: Any, gray_page: Page) -> None:
    g = gray_page.geometry
    px = record(
        benchmark,
        "rasterize_1bit_pixels_same_grid",
        lambda: unpack(rasterize(gray_page.grid, g.font, g), g.size),
    )
    assert px.shape == (728, 1568)


@pytest.mark.benchmark(group="gray")
def test_png_gray(benchmark: Any, gray_page: Page) -> None:
    record(benchmark, "png_gray", lambda: to_png_gray(gray_page.pixels))


@pytest.mark.benchmark(group="gray")
def test_png_one_bit_same_grid(benchmark: Any, gray_page: Page) -> None:
    g = gray_page.geometry
    packed = rasterize(gray_page.grid, g.font, g)
    record(benchmark, "png_1bit_same_grid", lambda: to_png(packed, g.size))


def test_goal() -> None:
    a = arms("rasterize_gray", "rasterize_1bit_pixels_same_grid", "png_gray", "png_1bit_same_grid")
    med = {name: x["median_s"] for name, x in a.items()}
    draw = med["rasterize_gray"] / med["rasterize_1bit_pixels_same_grid"]
    png = med["png_gray"] / med["png_1bit_same_grid"]
    record = results.finish(
        results.bench_name(__file__),
        {
            "arms": a,
            "ratios": {
                "gray_over_1bit_draw": results.figure(
                    draw, "x", "rasterize_gray vs rasterize + unpack, same grid (medians)"
                ),
                "gray_over_1bit_png": results.figure(
                    png, "x", "8-bit gray PNG vs 1-bit PNG, same grid (medians)"
                ),
            },
            "inputs": {k: v for k, v in INPUTS.items() if k == "page"},
        },
        {
            "gray_draw_ratio": results.Goal(
                draw, "<=", 1.5, "x", "issue 29 item 3 (gray within 1.5x of 1-bit), drawing alone"
            )
        },
    )
    results.check(record)
