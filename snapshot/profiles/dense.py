"""The dense layout: the page design the far past of a conversation is drawn in.

Chosen in the legibility lab (``reports/frontier.md``: the densest layout of the
committed frontier run that PP-OCRv6 reads whole at the target) and kept here, with
the rest of what the renderer draws with, so the ladder (``snapshot+foveate``) and the
report (``snapshot+dense``) take it from the profiles, not from the lab; the lab
measures the same design as :data:`snapshot.legibility.frontier.DENSE_LAYOUT`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from snapshot.rendering.geometry import Geometry


@dataclass(frozen=True)
class PageStyle:
    """A page design without its page: font (and pixel size, outline fonts), shade and gaps.

    >>> DENSE_STYLE.font, DENSE_STYLE.shade, DENSE_STYLE.row_gap
    ('snap5x9v2', 'gray', 0)
    """

    font: str
    size: int | None = None
    shade: str = "1-bit"
    row_gap: int = 0
    col_gap: int = 0


#: The project's dense layout (the page size, padding and ink come from the profile's own page).
#: Its face is snap5x9v2 (snap5x9 with ``/ \ S`` redrawn): on held-out corpus text at
#: Gemini's 1568x728 page no reader measured read it worse, the weakest on hard tokens
#: (Tesseract) 86/184 exact against 54 (reports/face.md, issue 25 item 5).
DENSE_STYLE = PageStyle("snap5x9v2", shade="gray")


def dense_geometry(like: Geometry) -> Geometry:
    """:data:`DENSE_STYLE` fitted to the page size, padding, ink, header and flow of ``like``.

    >>> from snapshot.rendering.geometry import default_geometry
    >>> from snapshot.rendering.glyphs import load_font
    >>> g = dense_geometry(default_geometry(load_font("snap8x16")))
    >>> g.font.name, g.shade, g.size
    ('snap5x9v2', 'gray', (1568, 728))
    """
    from snapshot.rendering.geometry import Geometry
    from snapshot.rendering.glyphs import load_font

    style = DENSE_STYLE
    return Geometry.fit(
        load_font(style.font, pixel_size=style.size),
        *like.size,
        padding=like.padding,
        col_gap=style.col_gap,
        row_gap=style.row_gap,
        shade=style.shade,
        ink=like.ink,
        header=like.header,
        flow=like.flow,
    )
