"""Gray ink: a separate path that leaves every 1-bit page byte-identical."""

from __future__ import annotations

import hashlib
import io

import numpy as np
import pytest
from PIL import Image

from snapshot.errors import InputError
from snapshot.rendering.decode import load_png, read
from snapshot.rendering.decode_exact import round_trip
from snapshot.rendering.geometry import Geometry
from snapshot.rendering.glyphs import load_font, soften
from snapshot.rendering.page import iter_pages, render
from snapshot.rendering.raster import (
    STORED,
    gray_coverage,
    gray_png,
    gray_scanlines,
    rasterize,
    rasterize_gray,
    to_png_gray,
    unpack,
)

TEXT = "def f(x):\n    return 0x1F + len('OQ0lI1|') # ő ű → ✓\n" * 40

# Decoded pixels of TEXT on 400x200 pages. Recorded from the zlib encoder of 5df7bed,
# whose PNG bytes still equalled those of main a2818e6 (before gray ink existed); the
# deflate encoder has changed since (bytes differ, pixels must not).
GOLDEN = {
    ("snap5x8", ()): "e6f2336b8bdc60ef229d180b9358ecb4ba0b4eb32a7301601a5f70dcc42a7b76",
    ("snap8x16", (("row_gap", 1),)): (
        "d8c51c81297918b159cbf78f65b74f502047c1b2115d6bded088c8e90679ed94"
    ),
    ("misc-6x12", (("col_gap", 1), ("ink", "white-on-black"))): (
        "89943deea6c160d8215e6ba818310e117c06faf95e8000ff21b0e7e9fd4e5756"
    ),
}


@pytest.mark.parametrize(("name", "kw"), list(GOLDEN))
def test_one_bit_pages_have_the_pixels_of_before_gray_ink(name, kw, system_font) -> None:  # type: ignore[no-untyped-def]
    font = load_font(name) if name.startswith("snap") else system_font(name)
    pages = render(TEXT, Geometry.fit(font, 400, 200, **dict(kw)))
    digest = hashlib.sha256()
    for p in pages:
        img = Image.open(io.BytesIO(p.png()))
        assert img.mode == "1"
        digest.update(np.asarray(img.convert("L")).tobytes())
    assert digest.hexdigest() == GOLDEN[(name, kw)]
    assert [p.png() for p in render(TEXT, Geometry.fit(font, 400, 200, **dict(kw)))] == [
        p.png() for p in pages
    ]


def test_gray_pages_are_deterministic_8_bit_pngs() -> None:
    font = load_font("dejavu-sans-mono", pixel_size=8)
    g = Geometry.fit(font, 300, 120, shade="gray")
    first = [p.png() for p in render(TEXT, g)]
    again = [p.png() for p in render(TEXT, g)]
    assert first == again
    img = Image.open(io.BytesIO(first[0]))
    assert img.mode == "L" and img.size == (300, 120)
    px = np.asarray(img)
    assert np.array_equal(px, render(TEXT, g)[0].pixels)
    # anti-aliased: many levels between paper and ink
    assert len(np.unique(px)) > 20


def test_gray_raster_of_a_one_bit_glyph_set_equals_the_one_bit_raster(dense) -> None:  # type: ignore[no-untyped-def]
    g1 = Geometry(dense, cols=30, rows=4, col_gap=1, row_gap=2, padding=3)
    gg = Geometry(dense, cols=30, rows=4, col_gap=1, row_gap=2, padding=3, shade="gray")
    rng = np.random.default_rng(3)
    grid = rng.integers(0, len(dense.chars), (4, 30))
    ones = (dense.atlas[grid] * 255).astype(np.uint8)
    # same placement: the gray raster drawn from 1-bit coverage is the 1-bit image
    cover = rasterize_gray(grid, dense, gg)
    flat = unpack(rasterize(grid, dense, g1), g1.size)
    ink_gray = cover < 255
    ink_flat = flat == 0
    assert ink_flat.sum() == (ones > 0).sum()
    assert (ink_gray | ~ink_flat).all()  # every 1-bit ink pixel is inked in gray too


def test_gray_white_on_black_is_the_inverse(dense) -> None:  # type: ignore[no-untyped-def]
    grid = np.array([[dense.index_of(c) for c in "x/y"]])
    a = rasterize_gray(grid, dense, Geometry(dense, cols=3, rows=1, header=False, shade="gray"))
    b = rasterize_gray(
        grid,
        dense,
        Geometry(dense, cols=3, rows=1, header=False, shade="gray", ink="white-on-black"),
    )
    assert np.array_equal(a, 255 - b)


def test_outline_gray_matches_its_one_bit_cell() -> None:
    font = load_font("dejavu-sans-mono", pixel_size=8)
    assert font.gray.shape == font.atlas.shape
    i = font.index_of("m")
    levels = np.unique(font.gray[i])
    assert font.gray[i].max() > 200 and len(levels) > 4  # anti-aliased, not thresholded
    # a fallback glyph appended later gets a gray entry too, at the same index
    j = font.index_of("\u2603")
    assert j is not None and font.gray.shape[0] > j


def test_soften_only_fills_diagonal_steps() -> None:
    slash = np.eye(4, dtype=np.uint8)[::-1]
    out = soften(slash)
    assert (out[slash == 1] == 255).all()
    assert 0 < (out[(slash == 0)] > 0).sum() <= 6
    bar = np.zeros((3, 3), np.uint8)
    bar[1] = 1
    assert (soften(bar)[bar == 0] == 0).all()


def test_to_png_gray_round_trips() -> None:
    rng = np.random.default_rng(0)
    px = rng.integers(0, 256, (7, 13), dtype=np.uint8)
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(to_png_gray(px)))), px)


def test_unknown_shade_is_refused(dense) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError, match="shade"):
        Geometry(dense, cols=10, rows=3, shade="grey")


# Pixels of TEXT's gray pages on 400x200, recorded from main d110cdd's rasterize_gray
# (before it gathered glyph rows straight into the page): the faster drawing must not
# change a pixel.
GRAY_GOLDEN = {
    ("snap5x9", ()): "c33b94409f3c61fd59a96fd55e5b636abab77a71d782f3f908326d4e940c8c65",
    ("snap5x9", (("col_gap", 1), ("row_gap", 1), ("ink", "white-on-black"))): (
        "6d6f96d46949db86dd1ef9e4047533cb65e21b42a9bd302e71a831a64a8d41ba"
    ),
    ("snap8x16", (("col_gap", 2),)): (
        "8a0da24d59ba9463f5eec2bc4e3eea5b24de036b9ccdd8c93a454abcf2adb9ee"
    ),
}


@pytest.mark.parametrize(("name", "kw"), list(GRAY_GOLDEN))
def test_gray_pages_have_the_pixels_of_before(name: str, kw: tuple) -> None:  # type: ignore[type-arg]
    g = Geometry.fit(load_font(name), 400, 200, shade="gray", **dict(kw))
    digest = hashlib.sha256()
    for p in render(TEXT, g):
        digest.update(p.pixels.tobytes())
    assert digest.hexdigest() == GRAY_GOLDEN[(name, kw)]


def _gray_cell_by_cell(grid: np.ndarray, font, g: Geometry) -> np.ndarray:  # type: ignore[no-untyped-def]
    """The obvious drawing, one cell at a time, clipped to the page."""
    width, height = g.size
    pw, ph = g.pitch
    x0, y0 = g.origin
    cover = np.zeros((height, width), np.uint8)
    for r, c in np.ndindex(*grid.shape):
        y, x = y0 + r * ph, x0 + c * pw
        cell = gray_coverage(font, g.shade)[grid[r, c]][: max(0, height - y), : max(0, width - x)]
        cover[y : y + cell.shape[0], x : x + cell.shape[1]] = cell
    return 255 - cover if g.ink == "black-on-white" else cover


@pytest.mark.parametrize("shade", ["gray", "gray16", "gray4"])
@pytest.mark.parametrize(
    ("col_gap", "row_gap", "padding"), [(0, 0, 0), (2, 0, 0), (1, 2, 1), (2, 3, 0), (4, 0, 3)]
)
def test_gray_raster_equals_drawing_cell_by_cell(
    col_gap: int, row_gap: int, padding: int, shade: str
) -> None:
    # gaps wider than the padding cut the last cell's gap off the page (the row gap
    # case failed before: a full grid did not reshape into the cut page); a 9 px pitch
    # in 4 bits is no one-word group (the slow path)
    font = load_font("snap5x9")
    font.index_of("漢")  # a fallback wide glyph: gray entries appended after load
    g = Geometry(
        font, cols=11, rows=4, col_gap=col_gap, row_gap=row_gap, padding=padding, shade=shade
    )
    grid = np.random.default_rng(col_gap * 7 + row_gap).integers(0, len(font.chars), (4, 11))
    assert np.array_equal(rasterize_gray(grid, font, g), _gray_cell_by_cell(grid, font, g))
    assert np.array_equal(
        rasterize_gray(grid[:2, :5], font, g)[:, -3:], np.full((g.size[1], 3), 255)
    )


@pytest.mark.parametrize(("shade", "bits", "step"), [("gray16", 4, 17), ("gray4", 2, 85)])
def test_fewer_levels_are_the_coverage_rounded_in_a_smaller_png(
    shade: str, bits: int, step: int
) -> None:
    font = load_font("snap5x9v2")
    cover = gray_coverage(font, shade)
    assert (cover % step == 0).all()
    assert np.abs(cover.astype(int) - font.gray).max() <= step // 2  # the nearest level
    assert np.array_equal(gray_coverage(font, "gray"), font.gray)  # 8-bit: as it is
    g = Geometry.fit(font, 400, 200, shade=shade)
    eight = Geometry.fit(font, 400, 200, shade="gray")
    for page, full in zip(render(TEXT, g), render(TEXT, eight), strict=True):
        png = page.png()
        assert png[24] == bits  # IHDR bit depth, gray (color type 0)
        assert len(png) < len(full.png())
        img = Image.open(io.BytesIO(png))
        assert img.mode == "L"
        assert np.array_equal(np.asarray(img), page.pixels)
        assert np.array_equal(page.pixels, _gray_cell_by_cell(page.grid, font, g))


@pytest.mark.parametrize("shade", ["gray", "gray16", "gray4"])
def test_gray_png_bytes_do_not_depend_on_workers_or_runs(shade: str) -> None:
    g = Geometry.fit(load_font("snap5x9v2"), 400, 200, shade=shade)
    text = TEXT * 3
    one = [p.png() for p in iter_pages(text, g, workers=1, encode=True)]
    two = [p.png() for p in iter_pages(text, g, workers=2, encode=True)]
    assert len(one) > 2 and one == two == [p.png() for p in render(text, g)]


def test_gray_scanlines_leave_filter_bytes_and_bits_past_the_edge_zero() -> None:
    font = load_font("snap5x9v2")
    g = Geometry(font, cols=7, rows=2, header=False, padding=1, shade="gray4")  # 37 px: 10 bytes
    grid = np.full((2, 7), font.index_of("#"))
    lines = gray_scanlines(grid, font, g)
    assert lines.shape == (g.size[1], 1 + 10)
    assert not lines[:, 0].any()
    assert not (lines[:, -1] & 0b111111).any()  # pixels 37..39: past the 37 px edge
    with pytest.raises(ValueError, match="do not fit"):
        gray_png(lines[:, :-1], g)


@pytest.mark.parametrize(
    ("shade", "kw"),
    [("gray", ()), ("gray4", (("ink", "white-on-black"),)), ("gray16", (("col_gap", 2),))],
)
def test_gray_page_ink_is_the_one_bit_drawings_without_drawing_it(shade: str, kw: tuple) -> None:  # type: ignore[type-arg]
    from snapshot.rendering.raster import count_ones

    g = Geometry.fit(load_font("snap5x9v2"), 400, 200, padding=0, shade=shade, **dict(kw))
    for page in render(TEXT, g):
        ink = page.ink  # before the 1-bit drawing exists
        assert "packed" not in page.__dict__
        white = count_ones(page.packed) / (g.size[0] * g.size[1])
        assert ink == pytest.approx(white if g.ink == "white-on-black" else 1.0 - white, abs=1e-12)


@pytest.mark.parametrize("shade", ["gray", "gray16", "gray4"])
def test_stored_gray_pngs_decode_to_the_same_pixels(tmp_path, shade: str) -> None:  # type: ignore[no-untyped-def]
    # STORED: the dense page's pixels in an uncompressed PNG; everything that reads
    # page PNGs back (Pillow, decode.load_png, the exact and searching decoders) reads it
    g = Geometry.fit(load_font("snap5x9v2"), 400, 200, shade=shade)
    page = render(TEXT * 3, g)[0]
    lines = gray_scanlines(page.grid, g.font, g)
    stored = gray_png(lines, g, level=STORED)
    assert stored == gray_png(lines, g, level=STORED)  # run to run
    assert stored != page.png() and len(stored) > len(page.png())
    assert stored[24:26] == page.png()[24:26]  # IHDR: the same bit depth, gray
    path = tmp_path / "page-001.png"
    path.write_bytes(stored)
    assert np.array_equal(
        np.asarray(Image.open(path)), np.asarray(Image.open(io.BytesIO(page.png())))
    )
    assert np.array_equal(load_png(path), page.pixels)
    assert round_trip(load_png(path), g) == round_trip(page.pixels, g) == page.text
    if shade == "gray":
        assert read(load_png(stored), g.font) == read(page.pixels, g.font) == page.text
