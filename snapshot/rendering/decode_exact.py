"""The round-trip check of the package's own pages: each cell's pixels looked up, not searched.

A page this package drew has a known font, grid and origin, and every cell
holds one glyph's bitmap exactly (1-bit, or the font's gray atlas on a gray
page, on the shade's levels: :func:`snapshot.rendering.raster.gray_coverage`). So each cell's pixels are hashed and looked up in a
table of the font's distinct bitmaps, and every hit is confirmed pixel for
pixel: a hash collision can never misread a cell. Identical bitmaps read as
the lowest atlas index, as :func:`snapshot.rendering.decode.read` reads them. A page
with any cell that is no glyph exactly (resampled, re-encoded, another font)
is left to the searching decoder, :func:`snapshot.rendering.decode.read`, which is what
:func:`round_trip` does.

>>> from snapshot.rendering.glyphs import load_font
>>> from snapshot.rendering.geometry import Geometry
>>> from snapshot.rendering.page import render
>>> g = Geometry(load_font("misc-5x8"), cols=30, rows=4)
>>> page = render("print('hi')\\nexit 0", g)[0]
>>> read_exact(page.pixels, g)
"print('hi')\\nexit 0"
>>> read_exact(page.pixels // 2, g) is None  # not this page's pixels any more
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from snapshot.rendering.decode import _CONTROL_PICTURES, _cells_to_text
from snapshot.rendering.geometry import Geometry
from snapshot.rendering.glyphs import Font
from snapshot.rendering.raster import gray_coverage
from snapshot.rendering.text import parse_header

__all__ = ["read_exact", "round_trip"]


@dataclass(frozen=True)
class _Table:
    """A font's distinct cell bitmaps (as coverage, 0 paper .. 255 ink), by hash."""

    keys: np.ndarray  # (t,) uint64, sorted
    index: np.ndarray  # (t,) atlas index per key: the lowest index drawing that bitmap
    words: np.ndarray  # (t, h, k) uint64: each bitmap row as k words, to confirm a hit


def _row_words(cells: np.ndarray, w: int) -> np.ndarray:
    """``(..., h, w)`` uint8 cell rows as ``(..., h, ceil(w / 8))`` uint64 words (zero padded)."""
    k = -(-w // 8)
    padded = np.zeros((*cells.shape[:-1], 8 * k), np.uint8)
    padded[..., :w] = cells
    return padded.view(np.uint64)


def _hash(words: np.ndarray, axes: tuple[int, int]) -> np.ndarray:
    """One uint64 per cell from its row words (multiply-xorshift), reducing ``axes`` (h, k).

    >>> a = np.zeros((2, 8, 1), np.uint64); a[1, 7, 0] = 255
    >>> k = _hash(a, (1, 2)); bool(k[0] != k[1])
    True
    """
    h_axis, k_axis = axes
    h, k = words.shape[h_axis], words.shape[k_axis]
    key: np.ndarray | None = None
    with np.errstate(over="ignore"):
        for n in range(h * k):
            word = np.take(np.take(words, n // k, axis=h_axis), n % k, axis=k_axis - 1)
            key = word if key is None else key ^ word
            key = key * np.uint64(0x9E3779B97F4A7C15 + 2 * n)
            key ^= key >> np.uint64(29)
    assert key is not None
    return key


def _table(font: Font, shade: str) -> _Table:
    # normalization turns control characters into U+2400 pictures (as decode.read does)
    font.lookup(_CONTROL_PICTURES)

    def make() -> _Table:
        bitmaps = font.atlas * np.uint8(255) if shade == "1-bit" else gray_coverage(font, shade)
        n, _, w = bitmaps.shape
        _, first = np.unique(bitmaps.reshape(n, -1), axis=0, return_index=True)
        first = np.sort(first)  # identical bitmaps: the lowest index wins
        words = _row_words(bitmaps[first].astype(np.uint8), w)
        keys = _hash(words, (1, 2))
        order = np.argsort(keys, kind="stable")
        return _Table(keys[order], first[order], words[order])

    return font.cached(("exact_table", shade), make)


def _cell_words(pixels: np.ndarray, g: Geometry) -> np.ndarray | None:
    """Coverage of the grid's cells as ``(rows, h, cols, k)`` uint64 row words, or None."""
    img = np.asarray(pixels)
    if img.ndim != 2 or img.dtype != np.uint8:
        return None
    w, h = g.cell
    pw, ph = g.pitch
    x0, y0 = g.origin
    need_w, need_h = g.cols * pw, g.rows * ph
    if x0 < 0 or y0 < 0 or img.shape[1] < x0 + need_w - g.col_gap:
        return None
    if img.shape[0] < y0 + need_h - g.row_gap:
        return None
    block = np.zeros((need_h, need_w), np.uint8)
    part = img[y0 : y0 + need_h, x0 : x0 + need_w]
    block[: part.shape[0], : part.shape[1]] = part
    if g.ink == "black-on-white":
        np.subtract(np.uint8(255), block, out=block)
    # no transpose of pixels: each cell row's w bytes become words where they lie
    cells = block.reshape(g.rows, ph, g.cols, pw)[:, :h, :, :w]
    return _row_words(cells, w)


def read_exact(pixels: np.ndarray, geometry: Geometry) -> str | None:
    """The text of a page drawn with ``geometry``, by exact cell lookup; None if a cell is no glyph.

    ``pixels`` is the page as :attr:`snapshot.rendering.page.Page.pixels` gives it (H×W
    uint8). The result is what :func:`snapshot.rendering.decode.read` returns for the
    same page with the same geometry; None means the page is not this
    geometry's drawing (read it with :func:`snapshot.rendering.decode.read`).

    >>> from snapshot.rendering.glyphs import load_font
    >>> from snapshot.rendering.page import render
    >>> g = Geometry(load_font("misc-5x8"), cols=12, rows=4, flow=False)
    >>> "".join(read_exact(p.pixels, g) or "?" for p in render("a long line that wraps", g))
    'a long line that wraps'
    """
    g = geometry
    words = _cell_words(pixels, g)
    if words is None:
        return None
    table = _table(g.font, g.shade)
    if words.shape[1] != table.words.shape[1] or not len(table.keys):
        return None
    keys = _hash(words, (1, 3))  # (rows, cols)
    pos = np.searchsorted(table.keys, keys).clip(0, len(table.keys) - 1)
    if not (table.keys[pos] == keys).all():
        return None
    # every hit confirmed pixel for pixel: a hash collision never misreads a cell
    if not (table.words[pos] == words.transpose(0, 2, 1, 3)).all():
        return None
    idx = table.index[pos]
    font = g.font
    start, header = 0, None
    if g.header:
        header = parse_header("".join(font.chars[i] for i in idx[0]))
        start = 1
    last = header is None or header.number == header.total
    continued = header is not None and header.continued
    return _cells_to_text(idx[start:], font, flow=g.flow, last=last, continued=continued)


def round_trip(pixels: np.ndarray, geometry: Geometry) -> str:
    """The round-trip check's reading of a page: :func:`read_exact`, else :func:`snapshot.rendering.decode.read`.

    >>> from snapshot.rendering.glyphs import load_font
    >>> from snapshot.rendering.page import render
    >>> g = Geometry(load_font("misc-5x8"), cols=20, rows=3)
    >>> page = render("hello", g)[0]
    >>> round_trip(page.pixels, g), round_trip(page.pixels // 2 + 64, g)
    ('hello', 'hello')
    """
    text = read_exact(pixels, geometry)
    if text is not None:
        return text
    from snapshot.rendering.decode import read

    return read(pixels, geometry.font, geometry=geometry)
