"""Rasterizer speed, side by side with its baselines in one run.

- one full default page (1568×728, snap5x8 5×8 cells, 312×89 text cells):
  ``rasterize`` against Pillow ``ImageDraw.text`` drawing the same lines with
  the same BDF file (``ImageFont.truetype``), and against a plain numpy copy of
  the page's bytes (the memory floor);
- end to end, text to PNG bytes, on the shared 1 M-char inputs.

The ratios print at the end of the run (see conftest.py); no timing assertions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from conftest import page_text, record, shared_text

from snapshot.rendering.geometry import Geometry
from snapshot.rendering.glyphs import load_font
from snapshot.rendering.page import Page, render, render_document
from snapshot.rendering.raster import rasterize, to_png, unpack


@pytest.fixture(scope="module")
def page() -> Page:
    font = load_font("snap5x8")
    geometry = Geometry.fit(font, 1568, 728)
    return render(page_text(), geometry)[0]


def _lines(page: Page) -> list[str]:
    """The page's rows as strings of the font's own characters (markers included)."""
    chars = page.geometry.font.chars
    return ["".join(chars[i] for i in row) for row in page.grid.tolist()]


@pytest.mark.benchmark(group="page")
def test_rasterize(benchmark: Any, page: Page) -> None:
    g = page.geometry
    packed = record(benchmark, "rasterize", lambda: rasterize(page.grid, g.font, g))
    assert np.array_equal(packed, page.packed)


@pytest.mark.benchmark(group="page")
def test_rasterize_pixels(benchmark: Any, page: Page) -> None:
    g = page.geometry
    px = record(
        benchmark, "rasterize_pixels", lambda: unpack(rasterize(page.grid, g.font, g), g.size)
    )
    assert px.shape == (728, 1568)


@pytest.mark.benchmark(group="page")
def test_numpy_copy(benchmark: Any, page: Page) -> None:
    pixels = page.pixels
    record(benchmark, "numpy_copy", pixels.copy)


@pytest.mark.benchmark(group="page")
def test_numpy_copy_packed(benchmark: Any, page: Page) -> None:
    record(benchmark, "numpy_copy_packed", page.packed.copy)


@pytest.mark.benchmark(group="page")
def test_pillow_imagedraw(benchmark: Any, page: Page) -> None:
    from PIL import Image, ImageDraw, ImageFont

    g = page.geometry
    font = ImageFont.truetype(str(g.font.path), g.font.cell[1])
    lines = _lines(page)
    x0, y0 = g.origin
    pitch = g.pitch[1]

    def draw() -> Any:
        im = Image.new("1", g.size, 1)
        d = ImageDraw.Draw(im)
        for i, line in enumerate(lines):
            d.text((x0, y0 + i * pitch), line, font=font, fill=0)
        return im

    im = record(benchmark, "pillow_imagedraw", draw)
    # same glyphs, same places: the comparison is like for like
    same = np.asarray(im.convert("L")) == page.pixels
    assert same.mean() > 0.99


@pytest.mark.benchmark(group="png")
def test_png_encode(benchmark: Any, page: Page) -> None:
    png = record(benchmark, "png_encode", lambda: to_png(page.packed, page.geometry.size))
    assert png.startswith(b"\x89PNG")


@pytest.mark.benchmark(group="end-to-end")
@pytest.mark.parametrize("name", ["b_1m", "c_1m_nonascii"])
def test_end_to_end(benchmark: Any, name: str) -> None:
    text = shared_text(f"{name}.txt")
    font = load_font("snap5x8")
    geometry = Geometry.fit(font, 1568, 728)
    render_document(text, geometry)  # warm the atlas: fallback glyphs load once per font

    def run() -> list[bytes]:
        return [p.png() for p in render_document(text, geometry).pages]

    pngs = record(benchmark, f"end_to_end_{name}", run, rounds=5, iterations=1, warmup_rounds=1)
    assert len(pngs) == -(-len(text) // geometry.chars_per_page) or len(pngs) > 30
