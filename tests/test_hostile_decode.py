"""``read`` on its own pages when they are mostly ink, and on pages that lost a part."""

from __future__ import annotations

import pytest

from snapshot.errors import ImageError
from snapshot.rendering.decode import read
from snapshot.rendering.geometry import Geometry
from snapshot.rendering.glyphs import load_font
from snapshot.rendering.page import render


@pytest.mark.parametrize("ink", ["black-on-white", "white-on-black"])
def test_a_page_that_is_mostly_ink_reads_back(ink: str) -> None:
    font = load_font("snap5x8")
    g = Geometry(font, cols=40, rows=6, ink=ink)
    page = render("\u2588" * 200, g)[0]
    inked = (page.pixels == 0).mean() if ink == "black-on-white" else (page.pixels == 255).mean()
    assert inked > 0.5  # the median pixel is ink: paper must come from the border
    assert read(page.pixels, font) == page.text


@pytest.mark.parametrize("crop", ["rows", "cols"])
def test_a_cropped_page_is_an_error_not_blank_text(crop: str) -> None:
    font = load_font("snap5x8")
    page = render("hello world " * 60, Geometry(font, cols=100, rows=6))[0]
    assert read(page.pixels, font) == page.text
    h, w = page.pixels.shape
    part = page.pixels[: h // 2] if crop == "rows" else page.pixels[:, : w // 2]
    with pytest.raises(ImageError, match="page is cropped"):
        read(part, font)
