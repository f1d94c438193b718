"""The page solver: the never-resampled page with the most characters per billed token.

>>> from snapshot.billing.schemes import AnthropicPatches
>>> solve_page(AnthropicPatches(), "snap8x16", (1568, 1568), Limits(), max_pixels=1_143_750).size
(700, 1540)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from snapshot.billing.refusals import RequestRefused
from snapshot.billing.schemes import Scheme
from snapshot.errors import BudgetError, InputError
from snapshot.profiles.limits import Limits, png_bytes_bound

if TYPE_CHECKING:
    from snapshot.rendering.glyphs import Font


@dataclass(frozen=True)
class Solution:
    """A solved page: its size, grid and bill."""

    size: tuple[int, int]
    cols: int
    rows: int
    chars_per_page: int
    tokens: int
    png_bytes_bound: int

    @property
    def chars_per_token(self) -> float:
        return self.chars_per_page / self.tokens


def _grid(
    font: Font, width: int, height: int, padding: int, col_gap: int = 0, row_gap: int = 0
) -> tuple[int, int] | None:
    """(cols, rows) that fit a width × height page, or None when none fit."""
    from snapshot.rendering.geometry import Geometry

    try:
        g = Geometry.fit(font, width, height, padding=padding, col_gap=col_gap, row_gap=row_gap)
    except InputError:
        return None
    return g.cols, g.rows


@functools.lru_cache(maxsize=256)
def solve_page(
    scheme: Scheme,
    font_name: str,
    legible_max: tuple[int, int],
    limits: Limits,
    padding: int = 2,
    max_pixels: int | None = None,
    bits: int = 1,
) -> Solution:
    """The page with the most characters per billed token that is never resampled nor refused.

    Tries every side length the scheme suggests (multiples of its patch or tile)
    up to the legible bound (and the many-images side cap when the route allows
    more images than that rule's threshold); keeps pages with
    ``scheme.seen(w, h) == (w, h)`` (a page the provider would refuse is skipped)
    whose worst-case PNG (``bits`` a pixel) fits the byte budgets and whose area is at most
    ``max_pixels`` (a measured resize the documented rule does not state).
    Cols depend on the width only and rows on the height only, so the grid is
    measured once per side.

    >>> from snapshot.billing.schemes import OpenAITiles
    >>> solve_page(OpenAITiles(), "snap8x16", (2048, 2048), Limits()).size
    (512, 2048)
    """
    bound_w, bound_h = legible_max
    cap = limits.side_cap()
    if cap is not None:
        bound_w, bound_h = min(bound_w, cap), min(bound_h, cap)
    widths, heights = scheme.sides(bound_w), scheme.sides(bound_h)
    if not widths or not heights:
        raise BudgetError(f"no page fits {scheme.describe()} inside {bound_w}x{bound_h}")
    from snapshot.rendering.glyphs import load_font

    font = load_font(font_name)
    tall, wide = max(heights), max(widths)
    cols = {w: g[0] for w in widths if (g := _grid(font, w, tall, padding))}
    rows = {h: g[1] for h in heights if (g := _grid(font, wide, h, padding))}
    best_sol: Solution | None = None
    for w, c in cols.items():
        for h, r in rows.items():
            chars = c * (r - 1)  # the header row carries no history
            if chars <= 0 or (max_pixels is not None and w * h > max_pixels):
                continue
            # Rank first, check the page second: a page that would not beat the best so far
            # is not kept whether or not it fits, and most pages do not (same result, a
            # fraction of the seen() and byte-bound calls).
            try:
                tokens = scheme.tokens(w, h)
                if best_sol is not None and not _better(chars, tokens, w * h, best_sol):
                    continue
                if scheme.seen(w, h) != (w, h):
                    continue
            except RequestRefused:
                continue
            nbytes = png_bytes_bound(w, h, bits)
            if limits.max_image_bytes is not None and nbytes > limits.max_image_bytes:
                continue
            if limits.max_request_bytes is not None and nbytes > limits.max_request_bytes:
                continue
            best_sol = Solution((w, h), c, r, chars, tokens, nbytes)
    if best_sol is None:
        raise BudgetError(
            f"no page for font {font_name} fits {scheme.describe()} unresampled inside "
            f"{bound_w}x{bound_h} and the byte budget; use a smaller font or a larger bound"
        )
    return best_sol


def _better(chars: int, tokens: int, area: int, best: Solution) -> bool:
    """More chars per token (exact integer comparison), then more chars, then less area."""
    lhs, rhs = chars * best.tokens, best.chars_per_page * tokens
    if lhs != rhs:
        return lhs > rhs
    if chars != best.chars_per_page:
        return chars > best.chars_per_page
    return area < best.size[0] * best.size[1]


__all__ = ["Solution", "solve_page"]
