"""Rasterizer speed, side by side with its baselines in one run.

- one full default page (1568×728, snap5x8 5×8 cells, 312×89 text cells):
  ``rasterize`` against Pillow ``ImageDraw.text`` drawing the same lines with
  the same BDF file (``ImageFont.truetype``), and against a plain numpy copy of
  the page's bytes (the memory floor);
- end to end, text to PNG bytes, on the shared 1 M-char inputs.

The ratios print at the end of the run (see conftest.py); ``test_goal`` writes
``reports/bench/raster_speed.json`` and asserts the goals of the first raster run
(2026-11-30): rasterize >= 20x faster than Pillow, <= 25x the numpy copy of the
page, >= 3 M chars/s text to PNG bytes on each 1 M-char input.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import results
from conftest import INPUTS, arms, page_text, record, shared_text

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


def test_goal() -> None:
    """Both arms of each side-by-side pair and the ratios, against the goals."""
    a = arms(
        "rasterize",
        "rasterize_pixels",
        "pillow_imagedraw",
        "numpy_copy",
        "numpy_copy_packed",
        "png_encode",
        "end_to_end_b_1m",
        "end_to_end_c_1m_nonascii",
    )
    med = {name: x["median_s"] for name, x in a.items()}
    pillow = med["pillow_imagedraw"] / med["rasterize"]
    copy = med["rasterize"] / med["numpy_copy"]
    rate = {name: 1.0 / med[f"end_to_end_{name}"] for name in ("b_1m", "c_1m_nonascii")}
    source = "bench goal since the first raster run (2026-11-30)"
    record = results.finish(
        results.bench_name(__file__),
        {
            "arms": a,
            "ratios": {
                "pillow_over_rasterize": results.figure(
                    pillow, "x", "rasterize vs Pillow ImageDraw.text, same page (medians)"
                ),
                "rasterize_over_numpy_copy": results.figure(
                    copy, "x", "rasterize vs numpy copy of the H x W uint8 page (medians)"
                ),
                "rasterize_over_numpy_copy_packed": results.figure(
                    med["rasterize"] / med["numpy_copy_packed"],
                    "x",
                    "rasterize vs numpy copy of the packed 1-bit page (medians)",
                ),
            },
            "figures": {
                "rasterize_ms": results.figure(med["rasterize"] * 1e3, "ms", "one full page"),
                "png_encode_ms": results.figure(med["png_encode"] * 1e3, "ms", "one full page"),
                **{
                    f"end_to_end_{name}_mchars_s": results.figure(
                        r, "M chars/s", f"{name}.txt text to PNG bytes, one worker (median)"
                    )
                    for name, r in rate.items()
                },
            },
            "inputs": {
                k: v for k, v in INPUTS.items() if k in ("page", "b_1m.txt", "c_1m_nonascii.txt")
            },
        },
        {
            "pillow_ratio": results.Goal(pillow, ">=", 20, "x", source),
            "numpy_copy_ratio": results.Goal(copy, "<=", 25, "x", source),
            **{
                f"end_to_end_{name}": results.Goal(r, ">=", 3, "M chars/s", source)
                for name, r in rate.items()
            },
        },
    )
    results.check(record)
