"""Pages: rendered text as packed 1-bit rows, with PNG bytes and pixels on demand.

>>> from snapshot.rendering.glyphs import load_font
>>> from snapshot.rendering.geometry import Geometry
>>> pages = render("hello\\nworld", Geometry(load_font("misc-5x8"), cols=40, rows=4))
>>> len(pages), pages[0].text, pages[0].rows
(1, 'hello\\nworld', ('hello\\nworld',))
>>> pages[0].pixels.shape, pages[0].png()[:4]
((36, 204), b'\\x89PNG')
"""

from __future__ import annotations

import itertools
import os
import struct
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, overload

import numpy as np

from snapshot.errors import InputError
from snapshot.rendering.geometry import Geometry
from snapshot.rendering.glyphs import CONTINUE_MARK, NEWLINE_MARK, WIDE_TAIL
from snapshot.rendering.parallel import check_workers, ordered_map, prefetch
from snapshot.rendering.raster import (
    count_ones,
    gray_pixels,
    gray_png,
    gray_scanlines,
    rasterize,
    to_png,
    unpack,
)
from snapshot.rendering.spans import SpanPlan, plan_spans
from snapshot.rendering.text import (
    LAYOUT_PIECE,
    KeptSpan,
    LayoutStream,
    NormalizedText,
    NormalizeStream,
    PageCells,
    TextReader,
    header_text,
    normalize,
    text_indices,
)

__all__ = ["KeptSpan", "Page", "PageStream", "Rendering", "iter_pages", "render", "render_document"]

#: Cells and text a :class:`PageStream` keeps in memory from its first pass
#: (about 450 default pages, 12 M characters); a longer text's pages all wait in
#: a temporary file (:class:`_CellSpool`), so no text is read or laid out twice.
LAYOUT_CACHE_BYTES = 64 << 20


_T = TypeVar("_T")


class _cached(Generic[_T]):
    """``functools.cached_property`` without its lock.

    Before Python 3.12 that lock belongs to the class attribute, so it is shared
    by every instance: pages encoded on two worker threads took turns on it and
    ``--workers 2`` ran no faster than one. Two threads computing the same
    page's value at once both get the same bytes (the work is deterministic),
    and the first stored wins.
    """

    def __init__(self, fn: Callable[[Any], _T]) -> None:
        self.fn = fn
        self.name = fn.__name__
        self.__doc__ = fn.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> _cached[_T]: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> _T: ...
    def __get__(self, obj: object | None, owner: type | None = None) -> _T | _cached[_T]:
        if obj is None:
            return self
        cache = obj.__dict__
        try:
            return cache[self.name]
        except KeyError:
            return cache.setdefault(self.name, self.fn(obj))


@dataclass(frozen=True)
class Page:
    """One rendered page.

    ``packed`` holds the image as PNG-ready 1-bit rows; ``pixels`` (H×W uint8,
    0 = ink, 255 = paper for black-on-white) is unpacked on first use.
    ``grid`` is the full cell grid, header row included. On a gray geometry
    (``shade`` ``"gray"``, ``"gray16"``, ``"gray4"``) ``pixels`` and ``png()`` are
    drawn from the font's gray atlas (:func:`~snapshot.rendering.raster.gray_scanlines`);
    ``packed`` stays the 1-bit drawing, drawn only when asked for.

    >>> from snapshot.rendering.glyphs import load_font
    >>> page = render("hello", Geometry(load_font("snap5x8"), cols=20, rows=4))[0]
    >>> page.number, page.total, page.text, page.png()[:4]
    (1, 1, 'hello', b'\x89PNG')
    """

    number: int
    total: int
    geometry: Geometry
    text: str
    grid: np.ndarray = field(repr=False, compare=False)
    header: str = ""

    @_cached
    def packed(self) -> np.ndarray:
        """The 1-bit drawing as packed PNG rows ``(H, ceil(W / 8))``."""
        return rasterize(self.grid, self.geometry.font, self.geometry)

    @property
    def _gray(self) -> bool:
        return self.geometry.shade != "1-bit"

    @_cached
    def _scanlines(self) -> np.ndarray:
        # a gray page's PNG rows, drawn straight into the buffer deflate reads
        return gray_scanlines(self.grid, self.geometry.font, self.geometry)

    @_cached
    def pixels(self) -> np.ndarray:
        """H×W uint8 image: 0 black, 255 white (gray levels on a gray page)."""
        if self._gray:
            return gray_pixels(self._scanlines, self.geometry)
        return unpack(self.packed, self.geometry.size)

    def png(self) -> bytes:
        """PNG bytes (1-bit, or gray of the shade's bit depth on a gray page); identical
        for identical text and geometry."""
        return self._png

    @_cached
    def _png(self) -> bytes:
        if self._gray:
            return gray_png(self._scanlines, self.geometry)
        return to_png(self.packed, self.geometry.size)

    @_cached
    def ink(self) -> float:
        """Fraction of the 1-bit drawing's pixels that are ink (what a reader must
        not take for paper: :func:`snapshot.rendering.pagefiles.check_readable`)."""
        w, h = self.geometry.size
        if self._gray:  # without drawing it: cells never overlap, and no glyph pixel is cut
            font = self.geometry.font
            per_glyph = font.cached("ink_pixels", lambda: font.atlas.sum(axis=(1, 2)))
            return int(np.take(per_glyph, self.grid).sum()) / (w * h)
        white = count_ones(self.packed) / (w * h)  # 1 bits = white pixels
        return white if self.geometry.ink == "white-on-black" else 1.0 - white

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in px."""
        return self.geometry.size

    @_cached
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

    @_cached
    def used_rows(self) -> int:
        """``len(self.rows)`` without building the rows' text: the text rows drawn (on
        the last page, up to its last row that is not blank).

        >>> from snapshot.rendering.geometry import default_geometry
        >>> page = render_document("one\\ntwo\\n", default_geometry()).pages[0]
        >>> page.used_rows == len(page.rows) == 1  # one row: newlines are drawn as marks
        True
        """
        start = 1 if self.geometry.header else 0
        grid = self.grid[start:]
        if self.number != self.total or not len(grid):
            return len(grid)
        chars = self.geometry.font.chars
        blank = [i for i, c in enumerate(chars) if c in (" ", CONTINUE_MARK, WIDE_TAIL)]
        filled = np.flatnonzero(~np.isin(grid, blank).all(axis=1))
        return int(filled[-1]) + 1 if len(filled) else 0

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


def _header_grid(
    geometry: Geometry, cells: PageCells, number: int, total: int
) -> tuple[np.ndarray, str]:
    """The page's full cell grid (header row on top when the geometry has one) and header."""
    if not geometry.header:
        return cells.grid, ""
    head = header_text(geometry, number, total, cells.continued)
    row = np.full((1, geometry.cols), 0, np.int32)
    idx = text_indices(head, geometry)
    row[0, : len(idx)] = idx
    return np.concatenate([row, cells.grid]), head


# item size -> grid type in the spool: the narrowest unsigned type that holds the indices
_SPOOL_TYPES: dict[int, np.dtype[Any]] = {
    1: np.dtype(np.uint8),
    2: np.dtype(np.uint16),
    4: np.dtype(np.int32),
}


class _CellSpool:
    """Laid-out pages in an anonymous temporary file: the first pass's pages that
    do not fit :data:`LAYOUT_CACHE_BYTES`, read back in order while drawing.

    A grid is stored in the narrowest unsigned type its indices fit (ASCII text:
    one byte a cell), the text as UTF-8: about 2 bytes per character on disk
    instead of laying the text out again (a third of the drawing's CPU).
    Each read seeks under a lock, so passes over the pages may overlap.
    """

    _HEAD = struct.Struct("<qqqIIB?")  # start, end, text bytes, rows, cols, item size, continued

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the stream)
        self._lock = threading.Lock()
        self.pages = 0

    def write(self, cells: PageCells) -> None:
        grid = cells.grid
        low, high = (int(grid.min()), int(grid.max())) if grid.size else (0, 0)
        size = 4 if low < 0 or high >= 1 << 16 else 2 if high >= 1 << 8 else 1
        dtype = _SPOOL_TYPES[size]
        text = cells.text.encode("utf-8", "surrogatepass")
        rows, cols = grid.shape
        start, end = cells.span
        head = self._HEAD.pack(start, end, len(text), rows, cols, dtype.itemsize, cells.continued)
        with self._lock:
            self._file.seek(0, os.SEEK_END)
            self._file.write(head)
            self._file.write(grid.astype(dtype, copy=False).data)
            self._file.write(text)
            self.pages += 1

    def _read(self, at: int, n: int) -> bytes:
        with self._lock:
            self._file.seek(at)
            return self._file.read(n)

    def __iter__(self) -> Iterator[PageCells]:
        at = 0
        for _ in range(self.pages):
            head = self._read(at, self._HEAD.size)
            start, end, nbytes, rows, cols, size, continued = self._HEAD.unpack(head)
            at += self._HEAD.size
            grid = np.frombuffer(self._read(at, rows * cols * size), _SPOOL_TYPES[size])
            at += rows * cols * size
            text = self._read(at, nbytes).decode("utf-8", "surrogatepass")
            at += nbytes
            yield PageCells(
                grid.reshape(rows, cols).astype(np.int32), (start, end), continued, text
            )

    def close(self) -> None:
        self._file.close()


class PageStream:
    """Pages of a text, laid out and drawn as they are consumed, in bounded memory.

    ``source`` is a ``str`` or an iterable of text chunks (e.g.
    :class:`snapshot.rendering.text.TextReader`, or a generator), read once. Every page
    header states the page count, so a first pass lays the whole text out
    before the first page is drawn; it keeps the pages' cells in memory when
    they fit :data:`LAYOUT_CACHE_BYTES`, else in an anonymous temporary file
    (about 2 bytes per character). A :class:`~snapshot.rendering.text.TextReader` of a
    file in flow mode is instead cut into spans the workers count, then lay out
    (:mod:`snapshot.rendering.spans`): nothing is held or spooled. Rasterizing (and, with
    ``encode``, PNG encoding) runs on ``workers`` threads
    (:func:`snapshot.rendering.parallel.ordered_map`); pages come out in order and are
    byte-identical whatever the worker count.

    ``total``, ``chars``, ``replaced``, ``kept`` and ``normalized`` (what
    normalization changed) are known before the first page is drawn.

    >>> from snapshot.rendering.glyphs import load_font
    >>> chunks = (part for part in ["hello ", "world"])
    >>> stream = PageStream(chunks, Geometry(load_font("misc-5x8"), cols=4, rows=3))
    >>> stream.total, [page.text for page in stream]
    (2, ['hello wo', 'rld'])
    """

    def __init__(
        self,
        source: str | Iterable[str],
        geometry: Geometry,
        *,
        unrenderable: str = "replace",
        workers: int | None = 1,
        encode: bool = False,
    ) -> None:
        if unrenderable not in ("replace", "keep"):
            raise InputError(f"unrenderable must be 'replace' or 'keep', got {unrenderable!r}")
        self.geometry = geometry
        self.unrenderable = unrenderable
        self.workers = check_workers(workers)
        self.encode = encode
        self._source = source
        self._text: str | None = None  # the normalized text of a str source
        self._spool: _CellSpool | None = None  # pages past the in-memory budget
        self._cache: list[PageCells] = []
        self._plan: SpanPlan | None = None  # a file laid out span by span on the workers
        self._surveyed = False
        self._total = 0
        self._chars = 0
        self._replaced: dict[str, int] = {}
        self._kept: tuple[KeptSpan, ...] = ()
        self._normalized = NormalizedText("")

    # -- what the first pass finds

    def _survey(self) -> None:
        if self._surveyed:
            return
        if isinstance(self._source, TextReader):
            plan = plan_spans(
                self._source, self.geometry, unrenderable=self.unrenderable, workers=self.workers
            )
            if plan is not None:
                self._plan, self._total, self._chars = plan, plan.pages, plan.chars
                self._replaced = dict(plan.replaced)
                self._normalized = NormalizedText("", **plan.counts, nfc_changed=plan.nfc_changed)
                self._surveyed = True
                return
        layout = LayoutStream(self.geometry, unrenderable=self.unrenderable)
        cache: list[PageCells] = []
        spool: _CellSpool | None = None
        held = 0
        total = 0
        for piece in itertools.chain(self._pieces(), [None]):
            for cells in layout.feed(piece) if piece is not None else layout.finish():
                total += 1
                held += cells.grid.nbytes + sys.getsizeof(cells.text)
                if spool is None and held <= LAYOUT_CACHE_BYTES:
                    cache.append(cells)
                    continue
                if spool is None:  # too long to hold: every page waits on disk, memory is freed
                    spool = _CellSpool()
                    for kept in cache:
                        spool.write(kept)
                    cache = []
                spool.write(cells)
        self._cache, self._spool = cache, spool
        self._total = total
        self._chars = layout.chars
        self._replaced = dict(layout.replaced)
        self._kept = tuple(layout.kept)
        self._surveyed = True

    def _pieces(self) -> Iterator[str]:
        """Normalized text in pieces, read once: the first pass keeps every page's cells."""
        src = self._source
        if isinstance(src, str):
            norm = normalize(src)
            self._text, self._normalized = norm.text, norm
            text = self._text
            for start in range(0, len(text), LAYOUT_PIECE):
                yield text[start : start + LAYOUT_PIECE]
            return
        stream = NormalizeStream(src)
        # reading, decoding and normalizing the next piece overlap laying out this one
        yield from prefetch(stream)
        self._normalized = stream.counts()

    @property
    def total(self) -> int:
        """Number of pages."""
        self._survey()
        return self._total

    @property
    def chars(self) -> int:
        """Characters of the normalized text."""
        self._survey()
        return self._chars

    @property
    def replaced(self) -> dict[str, int]:
        """Each character nothing could draw, and how often it became the replacement glyph."""
        self._survey()
        return self._replaced

    @property
    def kept(self) -> tuple[KeptSpan, ...]:
        """Runs no font can draw, left as text (``unrenderable="keep"``)."""
        self._survey()
        return self._kept

    @property
    def normalized(self) -> NormalizedText:
        """What normalization changed (``text`` empty for a chunked source)."""
        self._survey()
        return self._normalized

    # -- drawing

    def _cells(self) -> Iterator[PageCells]:
        if self._plan is not None:
            yield from self._plan.cells()
            return
        yield from self._cache
        if self._spool is not None:
            yield from self._spool

    def _draw(self, job: tuple[int, PageCells]) -> Page:
        number, cells = job
        g = self.geometry
        grid, head = _header_grid(g, cells, number, self._total)
        page = Page(number, self._total, g, cells.text, grid, head)
        if g.shade == "1-bit":
            page.packed  # noqa: B018 (drawn here, on a worker; a gray page draws its own)
        if self.encode:
            page.png()  # encoded here, on a worker, and cached on the page
            page.ink  # noqa: B018 (counted here too: what writing a page checks first)
        return page

    def __iter__(self) -> Iterator[Page]:
        self._survey()
        jobs = enumerate(self._cells(), start=1)
        return ordered_map(self._draw, jobs, workers=self.workers)


def iter_pages(
    source: str | Iterable[str],
    geometry: Geometry,
    *,
    unrenderable: str = "replace",
    workers: int | None = 1,
    encode: bool = False,
) -> PageStream:
    """Pages of ``source`` as they are drawn: see :class:`PageStream`.

    >>> from snapshot.rendering.glyphs import load_font
    >>> g = Geometry(load_font("misc-5x8"), cols=20, rows=3)
    >>> [p.number for p in iter_pages("x" * 100, g, workers=2, encode=True)]
    [1, 2, 3]
    """
    return PageStream(source, geometry, unrenderable=unrenderable, workers=workers, encode=encode)


def render_document(
    text: str, geometry: Geometry, *, unrenderable: str = "replace", workers: int | None = 1
) -> Rendering:
    """Normalize, lay out and rasterize ``text``; empty text gives zero pages.

    All pages at once; :func:`iter_pages` hands them out as they are drawn.

    >>> from snapshot.rendering.glyphs import load_font
    >>> from snapshot.rendering.geometry import Geometry
    >>> r = render_document("a\\ue001b", Geometry(load_font("misc-5x8"), 20, 3), unrenderable="keep")
    >>> r.chars, r.replaced, [(k.text, k.col) for k in r.kept]
    (3, {}, [('\\ue001', 1)])
    """
    stream = PageStream(text, geometry, unrenderable=unrenderable, workers=workers)
    pages = tuple(stream)
    return Rendering(pages, stream.chars, dict(stream.replaced), stream.kept, stream._text or "")


def render(text: str, geometry: Geometry) -> list[Page]:
    """Render ``text`` to pages (characters nothing can draw become the replacement glyph).

    >>> from snapshot.rendering.glyphs import load_font
    >>> from snapshot.rendering.geometry import Geometry
    >>> render("", Geometry(load_font("misc-5x8"), cols=10, rows=3))
    []
    """
    return list(render_document(text, geometry).pages)
