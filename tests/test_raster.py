"""The packed 1-bit rasterizer against a plain per-cell reference, and PNG output."""

from __future__ import annotations

import io
import struct
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from snapshot.rendering.geometry import Geometry
from snapshot.rendering.glyphs import load_font
from snapshot.rendering.raster import pack, rasterize, to_png, unpack


def reference(grid: np.ndarray, geometry: Geometry) -> np.ndarray:
    """The obvious slow drawing: copy each glyph into place."""
    font = geometry.font
    width, height = geometry.size
    ink = np.zeros((height, width), np.uint8)
    w, h = font.cell
    pw, ph = geometry.pitch
    x0, y0 = geometry.origin
    for r in range(grid.shape[0]):
        for c in range(grid.shape[1]):
            ink[y0 + r * ph : y0 + r * ph + h, x0 + c * pw : x0 + c * pw + w] = font.atlas[
                grid[r, c]
            ]
    return (
        np.where(ink == 1, 0, 255).astype(np.uint8)
        if geometry.ink == "black-on-white"
        else ink * 255
    )


FONTS = ["snap5x8", "snap8x16"]


@given(
    font_name=st.sampled_from(FONTS),
    cols=st.integers(3, 23),
    rows=st.integers(1, 4),
    padding=st.integers(0, 11),
    col_gap=st.integers(0, 3),
    row_gap=st.integers(0, 2),
    ink=st.sampled_from(["black-on-white", "white-on-black"]),
    seed=st.integers(0, 2**16),
)
@settings(max_examples=120, deadline=None)
def test_rasterize_matches_the_reference(
    font_name: str,
    cols: int,
    rows: int,
    padding: int,
    col_gap: int,
    row_gap: int,
    ink: str,
    seed: int,
) -> None:
    font = load_font(font_name)
    g = Geometry(
        font,
        cols=cols,
        rows=rows,
        padding=padding,
        col_gap=col_gap,
        row_gap=row_gap,
        header=False,
        ink=ink,
    )
    grid = np.random.default_rng(seed).integers(0, len(font.chars), (rows, cols))
    packed = rasterize(grid, font, g)
    assert packed.shape == (g.size[1], (g.size[0] + 7) // 8)
    assert np.array_equal(unpack(packed, g.size), reference(grid, g))


@pytest.mark.parametrize("name", ["misc-4x6", "misc-6x12", "spleen-8x16"])
def test_other_cell_widths(name: str, system_font) -> None:  # type: ignore[no-untyped-def]
    font = system_font(name)
    g = Geometry(font, cols=17, rows=3, padding=3, col_gap=1, header=False)
    grid = np.random.default_rng(1).integers(0, len(font.chars), (3, 17))
    assert np.array_equal(unpack(rasterize(grid, font, g), g.size), reference(grid, g))


def test_smaller_grid_draws_from_the_top_left(dense) -> None:  # type: ignore[no-untyped-def]
    g = Geometry(dense, cols=10, rows=4, header=False)
    grid = np.full((2, 6), dense.index_of("#"))
    full = np.zeros((4, 10), np.int64)
    full[:2, :6] = grid
    assert np.array_equal(rasterize(grid, dense, g), rasterize(full, dense, g))
    with pytest.raises(ValueError):
        rasterize(np.zeros((5, 10), np.int64), dense, g)


def test_page_size_larger_than_block_leaves_paper(dense) -> None:  # type: ignore[no-untyped-def]
    g = Geometry(dense, cols=4, rows=2, header=False, page_size=(100, 50))
    px = unpack(rasterize(np.full((2, 4), dense.index_of("#")), dense, g), g.size)
    assert px.shape == (50, 100)
    assert (px[:, 2 + 20 :] == 255).all() and (px[2 + 16 :, :] == 255).all()
    assert (px[2:18, 2:22] == 0).any()


def test_png_is_1bit_gray_and_decodes_to_the_pixels(dense) -> None:  # type: ignore[no-untyped-def]
    g = Geometry(dense, cols=31, rows=5, header=False)
    grid = np.random.default_rng(2).integers(0, 100, (5, 31))
    packed = rasterize(grid, dense, g)
    png = to_png(packed, g.size)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height, depth, color = struct.unpack(">IIBB", png[16:26])
    assert (width, height, depth, color) == (*g.size, 1, 0)
    with Image.open(io.BytesIO(png)) as im:
        assert im.mode == "1"
        decoded = np.asarray(im.convert("L"))
    assert np.array_equal(decoded, unpack(packed, g.size))
    # every chunk's CRC is right
    pos = 8
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos : pos + 4])
        kind, data = png[pos + 4 : pos + 8], png[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", png[pos + 8 + length : pos + 12 + length])
        assert crc == zlib.crc32(kind + data)
        pos += 12 + length


def test_png_from_pixels_equals_png_from_packed(dense) -> None:  # type: ignore[no-untyped-def]
    g = Geometry(dense, cols=9, rows=2, header=False)
    packed = rasterize(np.arange(18).reshape(2, 9), dense, g)
    px = unpack(packed, g.size)
    assert to_png(px, g.size) == to_png(packed, g.size)
    assert np.array_equal(pack(px), packed)  # bits past the right edge are always 0
    with pytest.raises(ValueError):
        to_png(px[:, :-1], g.size)


def test_png_bytes_are_deterministic(dense) -> None:  # type: ignore[no-untyped-def]
    g = Geometry(dense, cols=40, rows=6, header=False)
    grid = np.random.default_rng(3).integers(0, 200, (6, 40))
    assert to_png(rasterize(grid, dense, g), g.size) == to_png(
        rasterize(grid.copy(), dense, g), g.size
    )


@pytest.mark.parametrize("level", [0, 1, 2, 3])
@pytest.mark.parametrize("size", [(1, 1), (8, 1), (64, 64), (1568, 728)])
def test_noise_is_stored_within_the_bound_and_still_decodes(
    level: int, size: tuple[int, int]
) -> None:
    # igzip grows incompressible input (it never stores); to_png must not, or the byte
    # budgets that profiles check with png_bytes_bound would not hold for every page.
    import base64

    from snapshot.profiles import png_bytes_bound

    w, h = size
    px = np.where(np.random.default_rng(level).random((h, w)) < 0.5, 0, 255).astype(np.uint8)
    png = to_png(px, size, level=level)
    assert len(base64.b64encode(png)) <= png_bytes_bound(w, h)
    with Image.open(io.BytesIO(png)) as im:
        assert np.array_equal(np.asarray(im.convert("L")), px)


def test_text_pages_are_compressed_not_stored(dense) -> None:  # type: ignore[no-untyped-def]
    g = Geometry(dense, cols=60, rows=20, header=False)
    grid = np.tile(np.array([dense.index_of(c) for c in "def f(x): return x + 1   "[:20]]), (20, 3))
    packed = rasterize(grid, dense, g)
    png = to_png(packed, g.size)
    assert len(png) < packed.nbytes / 4
    with pytest.raises(ValueError, match="deflate level"):
        to_png(packed, g.size, level=4)
