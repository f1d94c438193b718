"""Gray ink: a separate path that leaves every 1-bit page byte-identical."""

from __future__ import annotations

import hashlib
import io

import numpy as np
import pytest
from PIL import Image

from snapshot.errors import InputError
from snapshot.geometry import Geometry
from snapshot.glyphs import load_font, soften
from snapshot.page import render
from snapshot.raster import rasterize, rasterize_gray, to_png_gray, unpack

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
