"""The font-aware decoder: page pixels back to text (the legibility oracle).

Each cell is matched to the nearest glyph template by sum of squared
differences, so grayscale or resampled-then-restored pages still read; the
grid origin is searched a few px around where the geometry puts it. Without a
geometry the header row ("page i/n  font WxH  COLSxROWS ...") configures the
reader.

>>> from snapshot.rendering.glyphs import load_font
>>> from snapshot.rendering.geometry import Geometry
>>> from snapshot.rendering.page import render
>>> font = load_font("misc-5x8")
>>> page = render("print('hi')\\nexit 0", Geometry(font, cols=30, rows=4))[0]
>>> read(page.pixels, font)
"print('hi')\\nexit 0"
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from snapshot.errors import ImageError
from snapshot.rendering.geometry import Geometry
from snapshot.rendering.glyphs import (
    CONTINUE,
    KEPT,
    KEPT_MARK,
    NEWLINE,
    SPACE,
    WIDE_TAIL,
    Font,
)
from snapshot.rendering.text import Header, header_text, parse_header

#: Largest image load_png decodes (a 1568×728 page is 1.1 M px).
MAX_PIXELS = 64_000_000
#: Share of a page's ink (after subtracting the noise seen on blank cells) the
#: best templates may leave unexplained. Pristine pages score 0, JPEG ~0.01,
#: upscaled-and-restored pages 0.1-0.2; spleen-5x8 read as snap5x8 scores 0.24.
#: The looser limit applies when the page's own header names this font.
MISMATCH_LIMIT = 0.15
CONFIRMED_LIMIT = 0.35
_CONTROL_PICTURES = np.arange(0x2400, 0x2422, dtype=np.uint32)
PRIOR = 0.5  # SSD penalty for non-ASCII templates (twice that for fallback glyphs)
_SHIFT = 3  # px searched around the expected origin


@dataclass(frozen=True)
class _Templates:
    """Unique glyph bitmaps of a font with the atlas index each reads back as."""

    flat: np.ndarray  # (t, h*w) float32
    norms: np.ndarray  # (t,) float32, squared norms plus the prior penalty
    index: np.ndarray  # (t,) int: atlas index
    keys: np.ndarray  # (t,) uint64 bit keys (a hash above 64 px), sorted, for exact matching
    key_index: np.ndarray  # (t,) atlas index per sorted key
    key_row: np.ndarray  # (t,) template row per sorted key
    prior: np.ndarray  # (t,) float32 prior penalty per template row
    dmin: np.ndarray  # (t,) Hamming distance from each template to its nearest other


def _templates(font: Font) -> _Templates:
    # normalization turns control characters into U+2400 pictures; make sure
    # their (synthesized) glyphs are templates even in a fresh process
    font.lookup(_CONTROL_PICTURES)

    def make() -> _Templates:
        atlas = font.atlas
        n, h, w = atlas.shape
        flat = atlas.reshape(n, -1)
        # identical bitmaps (A and Greek Alpha, blanks): the lowest index wins, so
        # space, markers and the font's own glyphs beat fallbacks
        _, first = np.unique(flat, axis=0, return_index=True)
        first = np.sort(first)
        tf = flat[first].astype(np.float32)
        keys = _bit_keys(flat[first])
        order = np.argsort(keys, kind="stable")
        # a small prior for close calls on blurred pages: ASCII and markers over
        # other scripts, the font's own glyphs over fallbacks (exact matches and
        # clear wins are unaffected; one wrong pixel costs 1.0)
        primary = font.primary_chars
        prior = np.array(
            [
                0.0
                if i < 5 or ord(font.chars[i][:1] or " ") < 0x80
                else (PRIOR if font.chars[i] in primary else 2 * PRIOR)
                for i in first.tolist()
            ],
            np.float32,
        )
        norms = (tf**2).sum(axis=1) + prior
        dmin = _nearest_other(keys) if h * w <= 64 else np.zeros(len(first), np.int64)
        return _Templates(
            tf, norms, first, keys[order], first[order], order, prior, dmin.astype(np.float32)
        )

    return font.cached("read_templates", make)


def _nearest_other(keys: np.ndarray) -> np.ndarray:
    """For each bit key, the Hamming distance to the nearest other key."""
    out = np.empty(len(keys), np.int64)
    for start in range(0, len(keys), 512):
        part = keys[start : start + 512]
        dist = np.bitwise_count(part[:, None] ^ keys[None, :]).astype(np.int64)
        dist[np.arange(len(part)), np.arange(start, start + len(part))] = 1 << 30
        out[start : start + len(part)] = dist.min(axis=1)
    return out


def _bit_keys(bits: np.ndarray) -> np.ndarray:
    """Each row of 0/1 values as one uint64: exact up to 64 values, a hash above.

    Medium cells (8×16 = 128 px) need the hash; a hashed hit is verified
    against the template's pixels, so a collision can never misread a cell.
    """
    d = bits.shape[1]
    if d <= 64:
        weights = np.uint64(1) << np.arange(d, dtype=np.uint64)
        return (bits.astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64)
    key = np.zeros(len(bits), np.uint64)
    with np.errstate(over="ignore"):
        for n, start in enumerate(range(0, d, 64)):
            chunk = bits[:, start : start + 64]
            weights = np.uint64(1) << np.arange(chunk.shape[1], dtype=np.uint64)
            value = (chunk.astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64)
            # multiply-xorshift mixing with a different odd multiplier per chunk
            key = (key ^ value) * np.uint64(0x9E3779B97F4A7C15 + 2 * n)
            key ^= key >> np.uint64(29)
    return key


def _as_ink(pixels: np.ndarray, ink: str | None) -> np.ndarray:
    """Float32 image with 1 = ink, 0 = paper, from gray, RGB(A), float or bool pixels.

    Contrast is stretched so paper (the border's median) maps to 0 and the
    typical dark pixel to 1: low-contrast and washed-out pages match the 0/1
    templates, and so do pages where more than half the pixels are ink.
    """
    arr = np.asarray(pixels)
    if arr.ndim == 3:
        arr = arr[..., :3].mean(axis=2) if arr.shape[2] >= 3 else arr[..., 0]
    if arr.ndim != 2 or arr.size == 0:
        raise ImageError(f"expected an H×W (or H×W×3) image, got shape {np.shape(pixels)}")
    val = arr.astype(np.float32)
    if arr.dtype != bool and val.max(initial=0) > 1.0:
        val /= 255.0
    if ink is None:
        # The page's border is paper (every page has padding around its text
        # block); the median of the whole page is not, once ink is the majority.
        ink = "black-on-white" if _border_median(val) >= 0.5 else "white-on-black"
    val = 1.0 - val if ink == "black-on-white" else val
    paper = _border_median(val)
    dark = val[val > paper + 0.25]
    level = float(np.median(dark)) if dark.size else 1.0
    if paper == 0.0 and level == 1.0:
        return val  # already clean
    return np.clip((val - paper) / max(level - paper, 1e-3), 0.0, 1.0)


def _border_median(val: np.ndarray) -> float:
    """Median of the outermost ring of pixels: paper on every page the renderer draws."""
    if min(val.shape) < 3:
        return float(np.median(val))
    ring = np.concatenate([val[0], val[-1], val[1:-1, 0], val[1:-1, -1]])
    return float(np.median(ring))


def _cells(img: np.ndarray, x0: int, y0: int, geometry: Geometry, rows: range) -> np.ndarray:
    """Cells of the given grid rows as ``(len(rows), cols, h*w)``, paper outside the image."""
    w, h = geometry.cell
    pw, ph = geometry.pitch
    cols = geometry.cols
    r0, r1 = rows.start, rows.stop
    top = y0 + r0 * ph
    need_h = (r1 - r0) * ph
    need_w = cols * pw
    block = np.zeros((need_h, need_w), np.float32)
    sy0, sx0 = max(top, 0), max(x0, 0)
    sy1, sx1 = min(top + need_h, img.shape[0]), min(x0 + need_w, img.shape[1])
    if sy1 > sy0 and sx1 > sx0:
        block[sy0 - top : sy1 - top, sx0 - x0 : sx1 - x0] = img[sy0:sy1, sx0:sx1]
    cells = block.reshape(r1 - r0, ph, cols, pw)[:, :h, :, :w]
    return cells.transpose(0, 2, 1, 3).reshape(r1 - r0, cols, h * w)


def _match(
    cells: np.ndarray, tpl: _Templates, *, shortcuts: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Nearest template per cell: (atlas index, SSD), for ``(..., h*w)`` cells.

    The choice includes a small prior (see ``PRIOR``); the SSD returned does not.
    """
    shape = cells.shape[:-1]
    flat = cells.reshape(-1, cells.shape[-1])
    best = np.empty(len(flat), np.int64)
    ssd = np.empty(len(flat), np.float32)
    # exact matches first: pristine pages never reach the matrix product
    todo = np.ones(len(flat), bool)
    if shortcuts and len(tpl.keys):
        binary = (flat == 0.0) | (flat == 1.0)
        exact_rows = binary.all(axis=1)
        if exact_rows.any():
            keys = _bit_keys(flat[exact_rows].astype(np.uint8))
            pos = np.searchsorted(tpl.keys, keys).clip(0, len(tpl.keys) - 1)
            hit = tpl.keys[pos] == keys
            if flat.shape[1] > 64:  # hashed keys: confirm the pixels really are equal
                cand = np.flatnonzero(exact_rows)[hit]
                same = (flat[cand] == tpl.flat[tpl.key_row[pos[hit]]]).all(axis=1)
                hit[np.flatnonzero(hit)[~same]] = False
            rows = np.flatnonzero(exact_rows)[hit]
            best[rows] = tpl.key_index[pos[hit]]
            ssd[rows] = 0.0
            todo[rows] = False
    rest = np.flatnonzero(todo)
    if shortcuts and len(rest) and flat.shape[1] <= 64 and len(tpl.keys):
        # near-exact cells: the template the thresholded cell equals is provably
        # the nearest when the cell is closer to it than half the distance to
        # that template's nearest neighbour (triangle inequality; binary templates
        # are sqrt(Hamming) apart), so those cells skip the full comparison
        sub = flat[rest]
        keys = _bit_keys((sub >= 0.5).astype(np.uint8))
        pos = np.searchsorted(tpl.keys, keys).clip(0, len(tpl.keys) - 1)
        hit = np.flatnonzero(tpl.keys[pos] == keys)
        if len(hit):
            rows = tpl.key_row[pos[hit]]
            r2 = ((sub[hit] - tpl.flat[rows]) ** 2).sum(axis=1)
            gap = np.maximum(np.sqrt(tpl.dmin[rows]) - np.sqrt(r2), 0.0) ** 2
            score = r2 + tpl.prior[rows]
            sure = score < gap
            cells = rest[hit[sure]]
            best[cells] = tpl.index[rows[sure]]
            ssd[cells] = r2[sure]
            todo[cells] = False
            rest = np.flatnonzero(todo)
    for start in range(0, len(rest), 2048):
        part = rest[start : start + 2048]
        x = flat[part]
        # einsum, not BLAS: multithreaded GEMM on these thin matrices collapses
        # when the machine is busy (measured 2 ms -> 60 ms); this loop does not
        dots = np.einsum("ij,kj->ik", x, tpl.flat, optimize=False)
        d = (x**2).sum(axis=1)[:, None] - 2.0 * dots + tpl.norms[None, :]
        k = d.argmin(axis=1)
        best[part] = tpl.index[k]
        ssd[part] = np.maximum(d[np.arange(len(part)), k] - tpl.prior[k], 0.0)
    return best.reshape(shape), ssd.reshape(shape)


def _score(
    img: np.ndarray, x0: int, y0: int, g: Geometry, tpl: _Templates, rows: list[int]
) -> float:
    """Share of ink the best templates leave unexplained on sample rows (lower is better).

    The error on blank cells estimates the page's noise and is subtracted, so a
    noisy page in the right font scores near 0 while another font does not.
    """
    cells = np.concatenate([_cells(img, x0, y0, g, range(r, r + 1)) for r in rows])
    energy = (cells**2).sum(axis=-1)
    idx, ssd = _match(cells, tpl)
    inked = (idx != SPACE) & (energy > 0)
    if not inked.any():
        return 1.0
    blank = idx == SPACE
    noise = float(ssd[blank].mean()) if blank.any() else 0.0
    return max(0.0, float(ssd[inked].mean()) - noise) / float(energy[inked].mean())


def _find_origin(
    img: np.ndarray, g: Geometry, tpl: _Templates, center: tuple[int, int] | None = None
) -> tuple[int, int, float]:
    """Best (x0, y0) near ``center`` (default: the geometry's origin), and its score.

    The search stays under half a pitch each way, so it cannot lock onto a grid
    shifted by a whole cell; ties go to the origin nearest the centre.
    """
    sample = sorted({0, 1, g.rows // 2})
    sample = [r for r in sample if 0 <= r < g.rows]
    ox, oy = center if center is not None else g.origin
    best = (_score(img, ox, oy, g, tpl, sample), 0, ox, oy)
    if best[0] == 0.0:
        return ox, oy, 0.0
    pw, ph = g.pitch
    rx, ry = min(_SHIFT, (pw - 1) // 2), min(_SHIFT, (ph - 1) // 2)
    for dy in range(-ry, ry + 1):
        for dx in range(-rx, rx + 1):
            s = _score(img, ox + dx, oy + dy, g, tpl, sample)
            cand = (round(s, 9), abs(dx) + abs(dy), ox + dx, oy + dy)
            best = min(best, cand)
    return best[2], best[3], best[0]


def _read_header_at(img: np.ndarray, font: Font, x0: int, y0: int, gap: int) -> str:
    w = font.cell[0]
    cols = max(1, min(120, (img.shape[1] - max(x0, 0)) // (w + gap)))
    probe = Geometry(font, cols=max(3, cols), rows=2, padding=0, col_gap=gap, header=True)
    idx, _ = _match(_cells(img, x0, y0, probe, range(0, 1)), _templates(font))
    return "".join(font.chars[i] for i in idx[0][:cols])


def find_header(img: np.ndarray, font: Font) -> tuple[Header, int, int, int] | None:
    """Locate and parse the header row: (header, x0, y0, col_gap), or None.

    Tries origins up to 12 px from the top-left corner and column gaps 0–3.
    """
    w, h = font.cell
    tpl = _templates(font)
    want = [font.index_of(c) for c in "page "]
    if any(i is None for i in want):
        return None
    wanted = np.array(want)
    # the usual place first: default padding, no gap
    for x0, y0, gap in ((2, 2, 0), (0, 0, 0)):
        header = parse_header(_read_header_at(img, font, x0, y0, gap))
        if header is not None:
            return header, x0, y0, gap
    candidates = []
    for gap in range(0, 4):
        probe = Geometry(font, cols=5, rows=2, padding=0, col_gap=gap)
        for y0 in range(0, min(13, img.shape[0] - h + 1)):
            for x0 in range(0, min(13, img.shape[1] - 5 * (w + gap) + 1)):
                cells = _cells(img, x0, y0, probe, range(0, 1))
                idx, ssd = _match(cells, tpl)
                hits = int((idx[0] == wanted).sum())
                if hits >= 4:
                    candidates.append((-hits, float(ssd.sum()), gap, x0, y0))
    for _, _, gap, x0, y0 in sorted(candidates)[:6]:
        header = parse_header(_read_header_at(img, font, x0, y0, gap))
        if header is not None:
            return header, x0, y0, gap
    return None


def geometry_from_header(
    header: Header, font: Font, size: tuple[int, int], x0: int = 2, y0: int = 2, gap: int = 0
) -> Geometry:
    """The Geometry a header describes for a page of ``size`` px; a cut-off header's
    grid is inferred from the page size and where the header was found."""
    if header.font is not None and header.cell is not None and header.cell != font.cell:
        raise ImageError(
            f"page was drawn with {header.font} ({header.cell[0]}x{header.cell[1]} cells), "
            f"not {font.name} ({font.cell[0]}x{font.cell[1]}); read it with --font {header.font}"
        )
    w, h = font.cell
    if header.cols is None or header.rows is None:
        padding = min(x0, y0)
        cols = (size[0] - 2 * padding + gap) // (w + gap)
        rows = (size[1] - 2 * padding) // h
        g = Geometry(font, cols=cols, rows=rows, padding=padding, col_gap=gap, flow=header.flow)
    else:
        g = Geometry(
            font,
            cols=header.cols,
            rows=header.rows,
            padding=header.padding or 0,
            col_gap=header.col_gap or 0,
            row_gap=header.row_gap or 0,
            flow=header.flow,
        )
    if size[0] >= g.size[0] and size[1] >= g.size[1]:
        g = Geometry(**{**g.__dict__, "page_size": size})
    return g


def _refuse_cropped(g: Geometry, size: tuple[int, int], at: tuple[int, int]) -> None:
    """A page smaller than its header's text block lost rows or columns: reading the
    missing part as blank would be silent loss, so it is an error (half a cell of
    slack for pages shifted by a resample)."""
    (bx, by), (bw, bh) = at, g.block_size
    w, h = g.font.cell
    if size[0] + w // 2 < bx + bw or size[1] + h // 2 < by + bh:
        raise ImageError(
            f"page is cropped: its header describes a {g.cols}x{g.rows} grid that needs "
            f"{bx + bw}x{by + bh} px, but the image is {size[0]}x{size[1]}; read the whole page"
        )


def read(pixels: np.ndarray, font: Font, *, geometry: Geometry | None = None) -> str:
    """Decode a rendered page back to its normalized text (the header row is skipped).

    ``pixels``: H×W (or H×W×3) image as produced by ``Page.pixels``, possibly
    grayscale, blurred or shifted by a few px. Without ``geometry`` the page's
    header row supplies it. A page drawn in another font raises ``ImageError``.

    >>> from snapshot.rendering.glyphs import load_font
    >>> from snapshot.rendering.geometry import Geometry
    >>> from snapshot.rendering.page import render
    >>> font = load_font("misc-5x8")
    >>> g = Geometry(font, cols=12, rows=4, flow=False)
    >>> pages = render("a long line that wraps", g)
    >>> "".join(read(p.pixels, font, geometry=g) for p in pages)
    'a long line that wraps'
    """
    img = _as_ink(pixels, geometry.ink if geometry is not None else None)
    size = (img.shape[1], img.shape[0])
    header: Header | None = None
    center: tuple[int, int] | None = None
    if geometry is None:
        found = find_header(img, font)
        if found is None:
            raise ImageError(
                f"no page header readable in {font.name}: the page was drawn in another "
                "font or without a header; pass the font (--font) and geometry"
            )
        header, hx, hy, gap = found
        geometry = geometry_from_header(header, font, size, hx, hy, gap)
        center = (hx, hy)
        _refuse_cropped(geometry, size, center)
    elif geometry.font.cell != font.cell:
        raise ImageError(f"geometry font {geometry.font.name} does not match {font.name}")
    g = geometry
    tpl = _templates(font)
    x0, y0, score = _find_origin(img, g, tpl, center)
    idx, _ = _match(_cells(img, x0, y0, g, range(0, g.rows)), tpl)
    start = 0
    confirmed = False
    if g.header:
        row = "".join(font.chars[i] for i in idx[0])
        header = parse_header(row) or header
        start = 1
        if header is not None:
            # the header this geometry would draw, cell by cell: a blurred page in
            # this font still matches most of it, a page in another font does not
            expected = header_text(g, header.number, header.total, header.continued)
            same = sum(a == b for a, b in zip(row, expected, strict=False))
            confirmed = same >= 0.8 * len(expected)
    limit = CONFIRMED_LIMIT if confirmed else MISMATCH_LIMIT
    if score > limit:
        said = ""
        if header is not None and header.font and header.font != font.name:
            said = f" (its header names {header.font})"
        raise ImageError(
            f"page does not match font {font.name}{said}: {score:.0%} of its ink is "
            f"unexplained by the font's glyphs (limit {limit:.0%}); the page is "
            "in another font or too degraded to read; try another --font"
        )
    last = header is None or header.number == header.total
    continued = header is not None and header.continued
    return _cells_to_text(idx[start:], font, flow=g.flow, last=last, continued=continued)


def _cell_strings(font: Font) -> np.ndarray:
    """What each atlas index reads as: its character, or the marker's text."""
    table = {NEWLINE: "\n", CONTINUE: "", KEPT: KEPT_MARK}
    out = np.empty(len(font.chars), object)
    for i, ch in enumerate(font.chars):
        out[i] = table.get(i, "" if ch == WIDE_TAIL else ch)
    return out


def _cells_to_text(idx: np.ndarray, font: Font, *, flow: bool, last: bool, continued: bool) -> str:
    idx = np.asarray(idx)
    strings = font.cached("cell_strings", lambda: _cell_strings(font))
    # one join per row over a gathered table: no Python call per cell
    texts = ["".join(row) for row in strings[idx].tolist()] if idx.size else [""] * len(idx)
    cols = idx.shape[1] if idx.ndim == 2 else 0
    ends_blank = (idx[:, -1] == SPACE).tolist() if cols else [False] * len(idx)
    wide = font.wide
    starts = idx[:, 0].tolist() if cols else []
    seconds = idx[:, 1].tolist() if cols > 1 else []

    def pads_before(n: int, first: int) -> bool:
        # a space in the last column before a wide glyph is layout padding
        col = starts if first == 0 else seconds
        return n < len(col) and bool(wide[col[n]])

    def row_text(n: int, drop_pad: bool) -> str:
        return texts[n][:-1] if drop_pad and ends_blank[n] else texts[n]

    rows = len(texts)
    if flow:
        out = "".join(row_text(n, pads_before(n + 1, 0)) for n in range(rows))
        return out.rstrip(" ") if last else out
    lines: list[list[str | bool]] = []  # [text, ended]
    for n in range(rows):
        nxt_cont = n + 1 < rows and starts[n + 1] == CONTINUE
        cont_next = nxt_cont or (n + 1 == rows and continued)
        is_cont = cols > 0 and starts[n] == CONTINUE
        # body = the row without its CONTINUE cell (which reads as ""); a 1-cell
        # continued row has no body to drop padding from
        text = row_text(n, cont_next and pads_before(n + 1, 1) and (cols > 1 or not is_cont))
        if not cont_next:
            text = text.rstrip(" ")
        if is_cont and lines and not lines[-1][1]:
            lines[-1][0] = str(lines[-1][0]) + text
        else:
            lines.append([text, False])
        lines[-1][1] = not cont_next
    if last:  # blank rows after the text are page padding
        while lines and lines[-1] == ["", True]:
            lines.pop()
    out = "".join(str(t) + ("\n" if ended else "") for t, ended in lines)
    # the text's own final newline is drawn as a marker; the last line's end is not
    return out[:-1] if last and out.endswith("\n") else out


def decodable_chars(font: Font) -> str:
    """Characters the decoder reads back as themselves: the font's own glyphs whose
    bitmap no other character (or marker) shares.

    >>> from snapshot.rendering.glyphs import load_font
    >>> chars = decodable_chars(load_font("misc-5x8"))
    >>> "a" in chars, " " in chars
    (True, True)
    """
    tpl = _templates(font)
    primary = font.primary_chars
    # the first entry of each distinct bitmap is the one the decoder returns
    out = [font.chars[i] for i in tpl.index.tolist() if font.chars[i] in primary]
    return "".join(sorted(set(out)))


def load_png(
    path_or_bytes: str | os.PathLike[str] | bytes, *, max_pixels: int = MAX_PIXELS
) -> np.ndarray:
    """Decode a PNG (or any Pillow image) to an H×W uint8 gray array, refusing bombs.

    Truncated or corrupt files, unusual modes and images over ``max_pixels``
    raise ``ImageError``.

    >>> from snapshot.rendering.raster import to_png
    >>> load_png(to_png(np.zeros((2, 3), np.uint8), (3, 2))).tolist()
    [[0, 0, 0], [0, 0, 0]]
    """
    from PIL import Image

    name = "<bytes>"
    try:
        if isinstance(path_or_bytes, bytes | bytearray):
            src: io.BytesIO | Path = io.BytesIO(path_or_bytes)
        else:
            src = Path(path_or_bytes)
            name = str(src)
            if src.exists() and not src.is_file():  # a FIFO would block, a device never ends
                raise ImageError(f"{name}: not a regular file; give a PNG file")
        with Image.open(src) as im:
            w, h = im.size
            if w * h > max_pixels:
                raise ImageError(
                    f"{name}: {w}x{h} is {w * h:,} px, over the {max_pixels:,} px limit "
                    "(a decompression bomb?); pass max_pixels to allow it"
                )
            if im.mode not in ("1", "L", "LA", "P", "RGB", "RGBA", "I;16"):
                raise ImageError(f"{name}: unsupported image mode {im.mode}; use a gray or RGB PNG")
            im.load()
            gray = im.convert("L") if im.mode != "L" else im
            return np.asarray(gray, dtype=np.uint8).copy()
    except ImageError:
        raise
    except FileNotFoundError as exc:
        raise ImageError(f"{name}: no such file") from exc
    except (OSError, SyntaxError, ValueError, Image.DecompressionBombError) as exc:
        raise ImageError(f"{name}: not a readable image ({exc})") from exc


def read_page_file(path: str | os.PathLike[str], font: str | None = None) -> str:
    """The text of a page PNG drawn by snapshot, its font found from the page header.

    Without ``font`` each available font (but ``unifont``: too slow to load just
    to probe) is tried until one reads the page header; the header's own font
    name then wins.

    Parameters
    ----------
    path : str or PathLike
        The page PNG.
    font : str, optional
        Font name or file the page was drawn with (default: from the header).

    Returns
    -------
    str
        The normalized text of the page, as :func:`read` returns it.

    Raises
    ------
    ImageError
        The file is not a readable image, or no font finds a snapshot header in it
        (pass ``font``).

    Examples
    --------
    >>> import tempfile
    >>> from snapshot.rendering.glyphs import load_font
    >>> from snapshot.rendering.page import render
    >>> page = render("hello page", Geometry(load_font("misc-5x8"), cols=20, rows=3))[0]
    >>> png = Path(tempfile.mkdtemp()) / "page-001.png"
    >>> _ = png.write_bytes(page.png())
    >>> read_page_file(png)
    'hello page'
    """
    from snapshot.errors import SnapshotError
    from snapshot.rendering.glyphs import available_fonts, load_font

    pixels = load_png(path)
    if font:
        return read(pixels, load_font(font))
    img = _as_ink(pixels, None)
    tried: list[str] = []
    for name in available_fonts():
        if name == "unifont":
            continue  # too slow to load just to probe; pass --font unifont
        candidate = load_font(name)
        tried.append(name)
        found = find_header(img, candidate)
        if found is None:
            continue
        header = found[0]
        if header.font and header.font != name:
            try:
                candidate = load_font(header.font)
            except SnapshotError:
                continue
        return read(pixels, candidate)
    raise ImageError(
        f"{path}: no snapshot page header found with any font ({', '.join(tried)}); "
        "pass --font NAME"
    )
