"""Gray-ink rasterizer speed beside the 1-bit path, in one run.

One full 1568×728 page drawn gray (snap5x9 with its grayscale-edge companion)
with ``rasterize_gray``, against the same text drawn 1-bit and unpacked to an
H×W image (``rasterize`` + ``unpack``, what a 1-bit page costs as pixels), and
the 8-bit PNG encode against the 1-bit one. Ratios print at the end of the run
(see conftest.py); no timing assertions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from conftest import page_text, record

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
