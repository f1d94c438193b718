"""Page geometry: which font, how many cells, and where they sit on the page.

>>> from snapshot.rendering.glyphs import load_font
>>> g = Geometry.fit(load_font("misc-5x8"), 1568, 728)
>>> g.cols, g.rows, g.size, g.chars_per_page
(312, 90, (1568, 728), 27768)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from snapshot.errors import InputError
from snapshot.rendering.glyphs import Font

INKS = ("black-on-white", "white-on-black")
#: Gray shades and the bits per pixel of their PNG: ``"gray"`` is the font's coverage
#: as it is (8-bit); ``"gray16"`` and ``"gray4"`` round it to 16 or 4 evenly spaced
#: levels (a 4-bit or 2-bit PNG: a half or a quarter of the bytes to deflate).
GRAY_BITS = {"gray": 8, "gray16": 4, "gray4": 2}
#: How ink is drawn: 1-bit cells (packed rows, the default) or gray coverage.
SHADES = ("1-bit", *GRAY_BITS)
#: The default page: the largest image several providers bill without downscaling.
DEFAULT_PAGE = (1568, 728)


@dataclass(frozen=True)
class Geometry:
    """Font, grid and margins of one page layout.

    The text block is ``cols`` cells wide and ``rows`` cells tall (the first row
    is the header when ``header``), set ``padding`` px from the top-left corner.
    ``flow`` selects flow mode (newlines drawn as a marker, text runs on) over
    lines mode (each source line starts a row). ``ink`` is the polarity and
    ``shade`` how ink is drawn: ``"1-bit"`` or ``"gray"`` (anti-aliased, from
    :attr:`snapshot.rendering.glyphs.Font.gray`; the page is an 8-bit gray PNG), or
    ``"gray16"`` / ``"gray4"`` (that coverage in 16 / 4 levels: a 4-bit / 2-bit PNG).

    >>> from snapshot.rendering.glyphs import load_font
    >>> g = Geometry(load_font("misc-5x8"), cols=80, rows=10)
    >>> g.pitch, g.size, g.text_rows, g.chars_per_page
    ((5, 8), (404, 84), 9, 720)
    """

    font: Font
    cols: int
    rows: int
    padding: int = 2
    col_gap: int = 0
    row_gap: int = 0
    header: bool = True
    flow: bool = True
    ink: str = "black-on-white"
    page_size: tuple[int, int] | None = None
    shade: str = "1-bit"

    def __post_init__(self) -> None:
        min_rows = 2 if self.header else 1
        if self.cols < 3:
            raise InputError(f"a page needs at least 3 columns, got cols={self.cols}")
        if self.rows < min_rows:
            raise InputError(
                f"a page needs at least {min_rows} rows (header + text), got rows={self.rows}"
            )
        if min(self.padding, self.col_gap, self.row_gap) < 0:
            raise InputError("padding and gaps must be >= 0")
        if self.ink not in INKS:
            raise InputError(f"unknown ink {self.ink!r}; use one of {', '.join(INKS)}")
        if self.shade not in SHADES:
            raise InputError(f"unknown shade {self.shade!r}; use one of {', '.join(SHADES)}")
        if self.page_size is not None:
            need = self.block_size
            w, h = self.page_size
            if w < need[0] + 2 * self.padding or h < need[1] + 2 * self.padding:
                raise InputError(
                    f"page_size {w}x{h} is smaller than the text block {need[0]}x{need[1]} "
                    f"plus padding {self.padding}; use fewer cols/rows or Geometry.fit"
                )

    @property
    def cell(self) -> tuple[int, int]:
        """(width, height) of one cell in px."""
        return self.font.cell

    @property
    def pitch(self) -> tuple[int, int]:
        """Distance between neighbouring cells: (cell_w + col_gap, cell_h + row_gap)."""
        w, h = self.font.cell
        return (w + self.col_gap, h + self.row_gap)

    @property
    def block_size(self) -> tuple[int, int]:
        """(width, height) of the text block in px, gaps between cells only."""
        pw, ph = self.pitch
        return (self.cols * pw - self.col_gap, self.rows * ph - self.row_gap)

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the page image in px."""
        if self.page_size is not None:
            return self.page_size
        bw, bh = self.block_size
        return (bw + 2 * self.padding, bh + 2 * self.padding)

    @property
    def text_rows(self) -> int:
        """Rows available to text (the header row excluded)."""
        return self.rows - 1 if self.header else self.rows

    @property
    def chars_per_page(self) -> int:
        """Cells available to text on one page."""
        return self.text_rows * self.cols

    @property
    def origin(self) -> tuple[int, int]:
        """(x, y) px of the top-left cell."""
        return (self.padding, self.padding)

    @property
    def chars_per_kpx(self) -> float:
        """Cell density: characters per 1000 px² of text block (1000 / pitch area).

        >>> from snapshot.rendering.glyphs import load_font
        >>> round(Geometry(load_font("misc-5x8"), cols=80, rows=10, row_gap=2).chars_per_kpx, 2)
        20.0
        """
        pw, ph = self.pitch
        return 1000.0 / (pw * ph)

    @classmethod
    def fit(cls, font: Font, width: int, height: int, **kw: Any) -> Geometry:
        """The most cols × rows that fit a page of exactly ``width`` × ``height`` px.

        >>> from snapshot.rendering.glyphs import load_font
        >>> g = Geometry.fit(load_font("misc-5x8"), 400, 100, padding=0)
        >>> g.cols, g.rows, g.size
        (80, 12, (400, 100))
        """
        padding = int(kw.get("padding", 2))
        col_gap = int(kw.get("col_gap", 0))
        row_gap = int(kw.get("row_gap", 0))
        w, h = font.cell
        cols = (width - 2 * padding + col_gap) // (w + col_gap)
        rows = (height - 2 * padding + row_gap) // (h + row_gap)
        kw = {k: v for k, v in kw.items() if k != "page_size"}
        return cls(font, cols=cols, rows=rows, page_size=(width, height), **kw)


def default_geometry(font: Font | None = None) -> Geometry:
    """The default page: the dense font on a 1568×728 page.

    >>> default_geometry().size
    (1568, 728)
    """
    if font is None:
        from snapshot.rendering.glyphs import default_font_name, load_font

        font = load_font(default_font_name())
    return Geometry.fit(font, *DEFAULT_PAGE)
