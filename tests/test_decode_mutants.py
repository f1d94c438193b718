"""Decoder assertions written to kill mutants the mutation run found alive (tests/README.md).

The round-trip tests in ``test_decode.py`` read whole pages, and the matcher is
robust enough to read a page right even when one of its steps is off; these pin
the steps themselves: the ink normalisation, the bit keys, the geometry a header
describes, the error messages, and reading a page file with and without a font.
"""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest

from snapshot.errors import ImageError
from snapshot.rendering.decode import _as_ink, _bit_keys, geometry_from_header, read, read_page_file
from snapshot.rendering.geometry import Geometry
from snapshot.rendering.glyphs import load_font
from snapshot.rendering.page import render
from snapshot.rendering.text import header_text, normalize, parse_header


def _page(paper: int, ink: int) -> np.ndarray:
    px = np.full((20, 20), paper, np.uint8)
    px[5:15, 5:15] = ink
    return px


def test_ink_normalisation_maps_paper_to_0_and_ink_to_1() -> None:
    # washed out: paper 200, ink 40; the stretch maps both exactly
    out = _as_ink(_page(200, 40), None)
    assert out[0, 0] == 0.0 and out[10, 10] == pytest.approx(1.0)
    # gray paper, pure black ink: the ink level is 1.0 but paper is not 0, still stretched
    out = _as_ink(_page(200, 0), None)
    assert out[0, 0] == 0.0 and out[10, 10] == 1.0
    # white on black is found from the border
    out = _as_ink(_page(0, 255), None)
    assert out[0, 0] == 0.0 and out[10, 10] == 1.0


def test_a_border_at_exactly_half_gray_counts_as_white_paper() -> None:
    px = np.full((20, 20), 0.5, np.float32)
    px[5:15, 5:15] = 0.0
    out = _as_ink(px, None)
    assert out[0, 0] == 0.0 and out[10, 10] == 1.0


def test_bit_keys_of_long_rows_tell_rows_apart() -> None:
    rng = np.random.default_rng(3)
    bits = rng.integers(0, 2, size=(50, 128)).astype(np.uint8)  # medium cells: 8x16 = 128
    keys = _bit_keys(bits)
    assert keys.shape == (50,)
    assert len(set(keys.tolist())) == 50
    assert np.array_equal(_bit_keys(bits[:1])[0:1], keys[:1])
    short = np.eye(8, dtype=np.uint8)
    assert _bit_keys(short).tolist() == [1 << i for i in range(8)]


def test_a_header_of_another_font_names_it_exactly(dense, medium) -> None:  # type: ignore[no-untyped-def]
    g = Geometry(medium, cols=60, rows=10)
    header = parse_header(header_text(g, 1, 1))
    assert header is not None
    with pytest.raises(ImageError) as err:
        geometry_from_header(header, dense, g.size)
    assert str(err.value) == (
        "page was drawn with snap8x16 (8x16 cells), not snap5x8 (5x8); read it with --font snap8x16"
    )


def test_a_cut_off_header_infers_the_grid_from_the_page_size(dense) -> None:  # type: ignore[no-untyped-def]
    header = parse_header(header_text(Geometry(dense, cols=40, rows=6), 1, 1))
    assert header is not None
    cut = replace(header, cols=None, rows=None)
    g = geometry_from_header(cut, dense, (300, 100), 2, 2, 1)
    assert (g.cols, g.rows, g.padding, g.col_gap) == ((300 - 4 + 1) // 6, (100 - 4) // 8, 2, 1)


def test_a_cropped_page_says_how_much_it_needs(dense) -> None:  # type: ignore[no-untyped-def]
    page = render("hello world " * 60, Geometry(dense, cols=100, rows=6))[0]
    h, w = page.pixels.shape
    with pytest.raises(ImageError, match="page is cropped") as err:
        read(page.pixels[: h // 2], dense)
    need = re.search(r"needs (\d+)x(\d+) px, but the image is (\d+)x(\d+)", str(err.value))
    assert need is not None
    nw, nh, iw, ih = map(int, need.groups())
    assert (iw, ih) == (w, h // 2)
    assert nw <= w and h // 2 < nh <= h


@pytest.mark.parametrize("flow", [True, False])
def test_wide_glyphs_read_back_at_every_wrap(flow: bool) -> None:
    font = load_font("snap5x8")
    text = "ab中文字c" * 5 + "\nx" + "日本" * 7 + "語"
    for cols in range(5, 12):
        g = Geometry(font, cols=cols, rows=40, flow=flow)
        got = "".join(read(p.pixels, font, geometry=g) for p in render(text, g))
        assert got == normalize(text).text, cols


def test_read_page_file_finds_the_font_from_the_header(tmp_path, dense, medium) -> None:  # type: ignore[no-untyped-def]
    for font in (dense, medium):
        page = render("hello page, font " + font.name, Geometry(font, cols=40, rows=4))[0]
        path = tmp_path / f"{font.name}.png"
        path.write_bytes(page.png())
        assert read_page_file(path) == page.text
        assert read_page_file(path, font.name) == page.text
    blank = tmp_path / "blank.png"
    blank.write_bytes(_blank_png())
    with pytest.raises(ImageError, match="no snapshot page header found with any font"):
        read_page_file(blank)


def _blank_png() -> bytes:
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("L", (200, 60), 255).save(buf, "PNG")
    return buf.getvalue()


def test_bit_keys_of_long_rows_depend_on_every_bit() -> None:
    # rows that differ in one position only, for every position of two 64-bit chunks
    base = np.zeros(128, np.uint8)
    rows = np.tile(base, (129, 1))
    rows[np.arange(1, 129), np.arange(128)] = 1
    assert len(set(_bit_keys(rows).tolist())) == 129


def test_a_cell_darker_than_any_glyph_is_read_without_a_crash() -> None:
    # Nearly solid ink thresholds to all ones, a key above every snap5x8 template.
    font = load_font("snap5x8")
    g = Geometry(font, cols=20, rows=3, header=False)
    page = render("abc def\nghi", g)[0]
    px = page.pixels.copy()
    w, h = font.cell
    x0, y0 = g.origin
    px[y0 + 2 * h : y0 + 3 * h, x0 + 10 * w : x0 + 11 * w] = 25  # 90 % ink, not binary
    text = read(px, font, geometry=g)
    words = text.split()
    assert words[:3] == ["abc", "def", "ghi"] and len(words) == 4 and len(words[3]) == 1


def test_a_header_at_the_corner_with_a_column_gap_is_found() -> None:
    from snapshot.rendering.decode import find_header

    font = load_font("snap5x8")
    g = Geometry(font, cols=40, rows=3, padding=0, col_gap=2)
    page = render("hello world", g)[0]
    found = find_header(page.pixels.astype(np.float32) < 128, font)
    assert found is not None
    _, x0, y0, gap = found
    assert (x0, y0, gap) == (0, 0, 2)


def test_a_strip_too_short_for_a_header_has_none() -> None:
    from snapshot.rendering.decode import find_header

    font = load_font("snap5x8")
    strip = np.zeros((font.cell[1] + 2, 200), np.float32)
    assert find_header(strip, font) is None
