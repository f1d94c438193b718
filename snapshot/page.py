"""Pages: rendered text as packed 1-bit rows, with PNG bytes and pixels on demand.

>>> from snapshot.glyphs import load_font
>>> from snapshot.geometry import Geometry
>>> pages = render("hello\\nworld", Geometry(load_font("misc-5x8"), cols=40, rows=4))
>>> len(pages), pages[0].text, pages[0].rows
(1, 'hello\\nworld', ('hello\\nworld',))
>>> pages[0].pixels.shape, pages[0].png()[:4]
((36, 204), b'\\x89PNG')
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from snapshot.geometry import Geometry
from snapshot.glyphs import CONTINUE_MARK, NEWLINE_MARK, WIDE_TAIL
from snapshot.raster import rasterize, rasterize_gray, to_png, to_png_gray, unpack
from snapshot.text import KeptSpan, header_text, layout_document, normalize, text_indices

__all__ = ["KeptSpan", "Page", "Rendering", "render", "render_document"]


@dataclass(frozen=True)
class Page:
    """One rendered page.

    ``packed`` holds the image as PNG-ready 1-bit rows; ``pixels`` (H×W uint8,
    0 = ink, 255 = paper for black-on-white) is unpacked on first use.
    ``grid`` is the full cell grid, header row included. On a ``shade="gray"``
    geometry ``pixels`` and ``png()`` are drawn from the font's gray atlas
    (:func:`~snapshot.raster.rasterize_gray`); ``packed`` stays the 1-bit drawing.
    """

    number: int
    total: int
    geometry: Geometry
    text: str
    grid: np.ndarray = field(repr=False, compare=False)
    packed: np.ndarray = field(repr=False, compare=False)
    header: str = ""

    @functools.cached_property
    def pixels(self) -> np.ndarray:
        """H×W uint8 image: 0 black, 255 white (gray levels on a ``shade="gray"`` page)."""
        if self.geometry.shade == "gray":
            return rasterize_gray(self.grid, self.geometry.font, self.geometry)
        return unpack(self.packed, self.geometry.size)

    def png(self) -> bytes:
        """PNG bytes (1-bit, or 8-bit gray for ``shade="gray"``); identical for identical
        text and geometry."""
        return self._png

    @functools.cached_property
    def _png(self) -> bytes:
        if self.geometry.shade == "gray":
            return to_png_gray(self.pixels)
        return to_png(self.packed, self.geometry.size)

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in px."""
        return self.geometry.size

    @functools.cached_property
    def rows(self) -> tuple[str, ...]:
        """The text of each drawn text row (header excluded), trailing spaces stripped.

        The NEWLINE marker appears as ``\\n``, the CONTINUE marker as nothing,
        the KEPT marker as U+E002, wide right halves as nothing.
        """
        chars = self.geometry.font.chars
        table = {NEWLINE_MARK: "\n", CONTINUE_MARK: "", WIDE_TAIL: ""}
        start = 1 if self.geometry.header else 0
        out = []
        for row in self.grid[start:].tolist():
            out.append("".join(table.get(chars[i], chars[i]) for i in row).rstrip(" "))
        while out and not out[-1] and self.number == self.total:
            out.pop()
        return tuple(out)

    def row_boxes(self) -> list[tuple[int, int, int, int]]:
        """Pixel box ``(x0, y0, x1, y1)`` (exclusive ends) of each text row in :attr:`rows`."""
        g = self.geometry
        pw, ph = g.pitch
        h = g.cell[1]
        x0, y0 = g.origin
        first = 1 if g.header else 0
        x1 = x0 + g.cols * pw - g.col_gap
        return [
            (x0, y0 + (first + r) * ph, x1, y0 + (first + r) * ph + h)
            for r in range(len(self.rows))
        ]

    def header_box(self) -> tuple[int, int, int, int] | None:
        """Pixel box of the header row, or None without one."""
        g = self.geometry
        if not g.header:
            return None
        x0, y0 = g.origin
        return (x0, y0, x0 + g.cols * g.pitch[0] - g.col_gap, y0 + g.cell[1])


@dataclass(frozen=True)
class Rendering:
    """Pages plus a summary of what could not be drawn.

    ``chars`` counts characters of the normalized text; ``replaced`` maps each
    character nothing could draw to how often it became the replacement glyph;
    ``kept`` lists runs left as text (``unrenderable="keep"``).
    """

    pages: tuple[Page, ...]
    chars: int
    replaced: dict[str, int]
    kept: tuple[KeptSpan, ...] = ()
    text: str = ""


def render_document(text: str, geometry: Geometry, *, unrenderable: str = "replace") -> Rendering:
    """Normalize, lay out and rasterize ``text``; empty text gives zero pages.

    >>> from snapshot.glyphs import load_font
    >>> from snapshot.geometry import Geometry
    >>> r = render_document("a\\ue001b", Geometry(load_font("misc-5x8"), 20, 3), unrenderable="keep")
    >>> r.chars, r.replaced, [(k.text, k.col) for k in r.kept]
    (3, {}, [('\\ue001', 1)])
    """
    norm = normalize(text).text
    lay = layout_document(norm, geometry, unrenderable=unrenderable, normalized=True)
    total = len(lay.grids)
    font = geometry.font
    pages = []
    for number, (grid, (a, b), cont) in enumerate(
        zip(lay.grids, lay.spans, lay.continued, strict=True), start=1
    ):
        head = ""
        if geometry.header:
            head = header_text(geometry, number, total, cont)
            row = np.full((1, geometry.cols), 0, np.int32)
            idx = text_indices(head, geometry)
            row[0, : len(idx)] = idx
            grid = np.concatenate([row, grid])
        packed = rasterize(grid, font, geometry)
        pages.append(Page(number, total, geometry, norm[a:b], grid, packed, head))
    return Rendering(tuple(pages), len(norm), dict(lay.replaced), lay.kept, norm)


def render(text: str, geometry: Geometry) -> list[Page]:
    """Render ``text`` to pages (characters nothing can draw become the replacement glyph).

    >>> from snapshot.glyphs import load_font
    >>> from snapshot.geometry import Geometry
    >>> render("", Geometry(load_font("misc-5x8"), cols=10, rows=3))
    []
    """
    return list(render_document(text, geometry).pages)
