"""Grids of atlas indices to packed 1-bit pixel rows, and those rows to PNG bytes.

Pure functions. The fast path never touches single pixels: each glyph row is a
small integer of ``pitch`` bits (``Font.rowbits``), one fancy index gathers
those integers for the whole page, and groups of ``g = 8 / gcd(pitch, 8)``
neighbouring cells are OR-ed into ``g * pitch``-bit integers whose bytes are
already PNG scanline bytes (5 px cells: 8 cells = 40 bits = 5 bytes).

Packed rows use PNG's bit order and meaning: leftmost pixel in the high bit,
1 = white. So black-on-white ink is a 0 bit.

>>> from snapshot.rendering.glyphs import load_font
>>> from snapshot.rendering.geometry import Geometry
>>> font = load_font("misc-5x8")
>>> g = Geometry(font, cols=8, rows=2, header=False)
>>> grid = np.array([[font.index_of(c) for c in "Hi there"]] * 2)
>>> packed = rasterize(grid, font, g)
>>> packed.shape, unpack(packed, g.size).shape
((20, 6), (20, 44))
>>> to_png(packed, g.size)[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from __future__ import annotations

import struct
import sys
import zlib
from math import gcd

import numpy as np
from isal import isal_zlib

from snapshot.rendering.geometry import GRAY_BITS, Geometry
from snapshot.rendering.glyphs import SPACE, Font

#: Deflate level (ISA-L's igzip, 0–3) for 1-bit pages. Deflate was three quarters
#: of a page's cost with zlib; on the 37 pages of ``b_1m.txt`` igzip level 1
#: takes a quarter of zlib level 1 (Z_RLE)'s CPU time for smaller files (76 vs
#: 81 KB a page), and releases the GIL, so worker threads compress side by side
#: (see docs/journal/bench-2026-11-to-12.md).
PNG_LEVEL = 1
#: Deflate level for 8-bit gray pages (the dense layout), unfiltered scanlines:
#: igzip level 1 takes a fifth of zlib level 1's time on snap5x9 gray pages of
#: ``b_1m.txt`` (2.3 vs 12.4 ms a page) for 210 KB a page instead of 203 KB.
GRAY_PNG_LEVEL = 1
#: ``level`` of :func:`gray_png` for no compression: the scanlines in stored deflate
#: blocks. Encoding then costs a copy and two checksums (ISA-L's), about a seventh of
#: igzip level 1's CPU on a dense page, for 5.4x the bytes (1,142 vs 211 KB a page of
#: ``b_1m.txt``; docs/journal/bench-2026-11-to-12.md, "Issue 29, fourth stop: dense").
STORED = -1
#: Most bytes one stored deflate block holds (its LEN field is 16 bits).
_STORED_BLOCK = 0xFFFF
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _lane_mask(byte: int) -> np.uint64:
    """``byte`` repeated in all eight byte lanes of a uint64."""
    return np.uint64(byte * 0x0101010101010101)


def shift_tables(lanes: np.ndarray, pitch: int, offset: int) -> list[tuple[int, np.ndarray]]:
    """Per cell slot k of a byte-aligned group: (first byte j, table ``(2, words, n)``).

    The table holds each glyph's contribution to bytes j and j + 1 of the group
    (eight glyph rows per uint64, one per byte lane) for a cell that starts
    ``offset + k * pitch`` bits into the group. Pure; callers cache it.
    """
    group = 8 // gcd(pitch, 8)
    lanes_t = np.ascontiguousarray(lanes.T)  # (words, n): 1-D gathers per word are fastest
    out = []
    for k in range(group):
        j, o = divmod(offset + k * pitch, 8)
        left = 8 - o - pitch  # where the pattern's low bit lands in byte j
        table = np.zeros((2, *lanes_t.shape), np.uint64)
        if left >= 0:
            table[0] = lanes_t << np.uint64(left)
        else:
            table[0] = (lanes_t >> np.uint64(-left)) & _lane_mask(0xFF >> -left)
            spill = 8 + left  # the low bits continue at the top of byte j + 1
            table[1] = (lanes_t << np.uint64(spill)) & _lane_mask((0xFF << spill) & 0xFF)
        out.append((j, table))
    return out


def _packed_lanes(grid: np.ndarray, font: Font, col_gap: int, offset: int) -> np.ndarray:
    """Packed ink bits (1 = ink) for pitches up to 8 px: ``(rows, h, nbytes)`` uint8.

    Each cell is gathered as ``ceil(h / 8)`` uint64 words holding one glyph row
    per byte lane, so all rows of a cell move together. A group of ``g`` cells
    ends on a byte boundary and fills ``g * pitch / 8`` bytes; per slot k one
    gather from a pre-shifted table and one or two ORs place the cells (their
    bits never overlap). ``offset`` (0..7) shifts everything right (the left
    padding); a group's spill byte is the next group's first byte.
    """
    rows, cols = grid.shape
    w, h = font.cell
    pw = w + col_gap
    group = 8 // gcd(pw, 8)
    nb = group * pw // 8  # bytes per group
    ncols = -(-cols // group) * group
    if ncols != cols:
        grid = np.concatenate([grid, np.full((rows, ncols - cols), SPACE, grid.dtype)], 1)
    ngroups = ncols // group
    tables = font.cached(("shift_tables", col_gap, offset), lambda: _tables(font, col_gap, offset))
    words = tables[0][1].shape[1]
    total = ngroups * nb + 1
    span = ngroups * nb
    out = np.zeros((words, rows, total + nb), np.uint64)  # + nb: room for strided views
    # slot k of every group, each contiguous: one transposing copy (and cast) of the grid
    slots = np.ascontiguousarray(grid.reshape(rows, ngroups, group).transpose(2, 0, 1), np.intp)
    for k, (j, table) in enumerate(tables):
        spills = bool(table[1].any())
        for word in range(words):
            o = out[word]
            o[:, j : j + span : nb] |= table[0, word][slots[k]]
            if spills:
                o[:, j + 1 : j + 1 + span : nb] |= table[1, word][slots[k]]
    # (words, rows, total) of 8-lane words -> bytes (rows, h, total), a strided view
    # the caller copies once, into the page
    as_bytes = out[:, :, :total].astype("<u8", copy=False).view(np.uint8)
    as_bytes = as_bytes.reshape(words, rows, total, 8).transpose(1, 0, 3, 2)
    return as_bytes.reshape(rows, words * 8, total)[:, :h]


def _tables(font: Font, col_gap: int, offset: int) -> list[tuple[int, np.ndarray]]:
    lanes = font.lanes
    if col_gap:
        lanes = lanes << np.uint64(col_gap)
    return shift_tables(lanes, font.cell[0] + col_gap, offset)


def _packed_wide(grid: np.ndarray, font: Font, col_gap: int, offset: int) -> np.ndarray:
    """Packed ink bits for pitches over 8 px, ``(rows, h, nbytes)``: gather bytes, then pack."""
    rows = grid.shape[0]
    h = font.cell[1]
    atlas = font.atlas
    if col_gap:
        atlas = np.concatenate([atlas, np.zeros((len(atlas), h, col_gap), np.uint8)], axis=2)
    ry = np.arange(h)
    pix = atlas[grid[:, None, :], ry[None, :, None]]  # (rows, h, cols, pw), no transpose copy
    flat = pix.reshape(rows * h, -1)
    if offset:
        flat = np.concatenate([np.zeros((rows * h, offset), np.uint8), flat], axis=1)
    return np.packbits(flat, axis=1).reshape(rows, h, -1)


def rasterize(grid: np.ndarray, font: Font, geometry: Geometry) -> np.ndarray:
    """Draw a grid of atlas indices as packed 1-bit PNG rows ``(H, ceil(W / 8))`` uint8.

    ``grid`` is ``(r, c)`` with ``r <= geometry.rows`` and ``c <= geometry.cols``,
    drawn from the top-left cell (the header row, when the geometry has one, is
    the grid's first row). Unpack with :func:`unpack` for an H×W image.

    >>> from snapshot.rendering.glyphs import load_font
    >>> font = load_font("misc-5x8")
    >>> g = Geometry(font, cols=3, rows=1, header=False, padding=0)
    >>> px = unpack(rasterize(np.array([[font.index_of("|")] * 3]), font, g), g.size)
    >>> (px == 0).sum(axis=0).tolist()
    [0, 0, 6, 0, 0, 0, 0, 6, 0, 0, 0, 0, 6, 0, 0]
    """
    g = geometry
    grid = np.asarray(grid)
    if grid.ndim != 2 or grid.shape[0] > g.rows or grid.shape[1] > g.cols:
        raise ValueError(f"grid shape {grid.shape} does not fit {g.cols}x{g.rows} cells")
    width, height = g.size
    rowbytes = (width + 7) // 8
    w, h = font.cell
    ph = h + g.row_gap
    # PNG scanlines with their filter byte (0: None) in front: to_png deflates them as they are
    scanlines = np.zeros((height, rowbytes + 1), np.uint8)
    out = scanlines[:, 1:]
    black_on_white = g.ink == "black-on-white"
    if black_on_white:
        out.fill(0xFF)  # paper; the cells' ink bits are inverted as they are copied in
    rows = grid.shape[0]
    if rows and grid.shape[1]:
        x0, y0 = g.origin
        q, s = divmod(x0, 8)
        if w + g.col_gap <= 8:
            block = _packed_lanes(grid, font, g.col_gap, s)
        else:
            block = _packed_wide(grid.astype(np.intp, copy=False), font, g.col_gap, s)
        nb = min(block.shape[2], rowbytes - q)
        if g.row_gap:
            ys = (y0 + np.arange(rows)[:, None] * ph + np.arange(h)[None, :]).ravel()
            flat = block[:, :, :nb].reshape(rows * h, nb)
            out[ys, q : q + nb] = ~flat if black_on_white else flat
        else:
            into = out[y0 : y0 + rows * h, q : q + nb].reshape(rows, h, nb)
            if black_on_white:
                np.invert(block[:, :, :nb], out=into)
            else:
                np.copyto(into, block[:, :, :nb])
    if width % 8:  # bits past the right edge: always 0, so pack(unpack(x)) == x
        out[:, -1] &= np.uint8((0xFF << (8 - width % 8)) & 0xFF)
    return out


# ones in each byte value: for numpy < 2, which has no bitwise_count
_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], np.int64)


def count_ones(packed: np.ndarray) -> int:
    """Set bits in packed rows (1 = white): paper pixels, counted without unpacking.

    numpy >= 2 counts them in C, 8 bytes at a time where the rows allow it.

    >>> count_ones(np.array([[0b10100000, 0xFF]], np.uint8))
    10
    """
    count = getattr(np, "bitwise_count", None)
    if count is None:
        return int(_POPCOUNT[packed].sum())
    whole = _scanlines(packed)  # rasterize's rows: their filter bytes are 0, so count those
    if whole is not None:
        packed = whole
    if packed.flags.c_contiguous and packed.nbytes % 8 == 0:
        packed = packed.reshape(-1).view(np.uint64)  # 8x fewer elements to count and add
    return int(count(packed).sum(dtype=np.int64))


def unpack(packed: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Packed 1-bit rows to an H×W uint8 image (0 black, 255 white).

    >>> unpack(np.array([[0b10100000]], np.uint8), (3, 1)).tolist()
    [[255, 0, 255]]
    """
    width, _ = size
    bits = np.unpackbits(packed, axis=1)[:, :width]
    return bits * np.uint8(255)


def pack(pixels: np.ndarray) -> np.ndarray:
    """An H×W image (ink dark) to packed 1-bit rows (threshold at 128).

    >>> pack(np.array([[255, 0, 255]], np.uint8)).tolist()
    [[160]]
    """
    return np.packbits(np.asarray(pixels) >= 128, axis=1)


def _chunk(kind: bytes, data: bytes) -> bytes:
    crc = isal_zlib.crc32(data, isal_zlib.crc32(kind))  # no kind + data copy of a 100 KB IDAT
    return b"".join((struct.pack(">I", len(data)), kind, data, struct.pack(">I", crc)))


def _png(ihdr: bytes, idat: bytes | bytearray) -> bytes:
    # one join: the IDAT data (a page's bulk) is copied once, not into its chunk first
    crc = isal_zlib.crc32(idat, isal_zlib.crc32(b"IDAT"))
    return b"".join(
        (
            _PNG_SIGNATURE,
            _chunk(b"IHDR", ihdr),
            struct.pack(">I", len(idat)),
            b"IDAT",
            idat,
            struct.pack(">I", crc),
            _chunk(b"IEND", b""),
        )
    )


def _stored(raw: np.ndarray) -> bytearray:
    """Zlib-format stream of ``raw``'s bytes in stored (uncompressed) deflate blocks.

    What :data:`STORED` writes: no search, no Huffman codes, so the cost is one
    copy and the Adler-32 (ISA-L's); same input, same bytes.

    >>> data = (np.arange(70_000) % 251).astype(np.uint8)
    >>> out = _stored(data)
    >>> zlib.decompress(out) == data.tobytes(), len(out) - data.size  # header, 2 blocks, Adler
    (True, 16)
    """
    data = np.ascontiguousarray(raw).data.cast("B")
    n = len(data)
    blocks = max(1, -(-n // _STORED_BLOCK))
    out = bytearray(2 + 5 * blocks + n + 4)
    out[:2] = b"\x78\x01"  # deflate, 32 KB window, no dictionary, fastest
    at = 2
    for i in range(blocks):
        start = i * _STORED_BLOCK
        size = min(_STORED_BLOCK, n - start)
        out[at : at + 5] = struct.pack("<BHH", i == blocks - 1, size, size ^ 0xFFFF)
        out[at + 5 : at + 5 + size] = data[start : start + size]
        at += 5 + size
    out[at:] = struct.pack(">I", isal_zlib.adler32(data))
    return out


def _deflate(raw: np.ndarray, level: int) -> bytes:
    """Zlib-format deflate of ``raw``'s bytes with ISA-L's igzip at ``level`` (0–3).

    Same input, same level and the same ``isal`` build give the same bytes, except that
    in about 0.6 % of fresh processes drawing on 2 threads some pages get other bytes
    for the same pixels (cause not found: docs/journal/bench-2026-11-to-12.md, "PNG bytes that depend only
    on pixels").
    igzip never falls back to stored blocks, so on noise it writes more than
    its input (and more than zlib's ``deflateBound``, which
    :func:`snapshot.profiles.png_bytes_bound` relies on): such data is stored
    instead (stdlib zlib, level 0). Text pages never come near it.

    >>> noise = np.random.default_rng(0).integers(0, 256, 4096, dtype=np.uint8)
    >>> len(_deflate(noise, 1)) == noise.size + 5 + 6  # stored: one block header and the wrapper
    True
    >>> len(_deflate(np.zeros(4096, np.uint8), 1)) < 100
    True
    """
    if not 0 <= level <= isal_zlib.ISAL_BEST_COMPRESSION:
        raise ValueError(f"deflate level must be 0..{isal_zlib.ISAL_BEST_COMPRESSION}, got {level}")
    comp = isal_zlib.compressobj(level, isal_zlib.DEFLATED, 15, 9)
    out = comp.compress(raw.data) + comp.flush()  # no tobytes() copy
    if len(out) >= raw.nbytes:
        return zlib.compress(raw.data, 0)
    return out


def _scanlines(packed: np.ndarray) -> np.ndarray | None:
    """The PNG scanlines ``packed`` is the pixel part of (as :func:`rasterize` draws
    them: each row after a 0 filter byte), or None: then they are built by copying."""
    base = packed.base
    if not isinstance(base, np.ndarray) or base.dtype != np.uint8 or base.ndim != 2:
        return None
    height, rowbytes = packed.shape
    if base.shape != (height, rowbytes + 1) or not base.flags.c_contiguous:
        return None
    at = packed.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    if at != 1 or packed.strides != base.strides or base[:, 0].any():
        return None
    return base


def to_png(packed_or_pixels: np.ndarray, size: tuple[int, int], *, level: int = PNG_LEVEL) -> bytes:
    """Encode a 1-bit grayscale PNG; same input, same bytes (no timestamps, fixed deflate level).

    Takes packed rows ``(H, ceil(W / 8))`` or an H×W uint8 image.

    >>> png = to_png(np.full((2, 3), 255, np.uint8), (3, 2))
    >>> png[12:16], struct.unpack(">II", png[16:24])
    (b'IHDR', (3, 2))
    """
    width, height = size
    arr = np.asarray(packed_or_pixels)
    rowbytes = (width + 7) // 8
    if arr.shape == (height, width) and (width != rowbytes or arr.max(initial=0) > 1):
        arr = pack(arr)
    if arr.shape != (height, rowbytes) or arr.dtype != np.uint8:
        raise ValueError(f"expected packed rows {(height, rowbytes)} or pixels {(height, width)}")
    raw = _scanlines(arr)
    if raw is None:
        raw = np.empty((height, rowbytes + 1), np.uint8)
        raw[:, 0] = 0  # filter type None: 1-bit text gains little from filters
        raw[:, 1:] = arr
    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return _png(ihdr, _deflate(raw, level))


# --------------------------------------------------------------------------- gray pages
# A separate path: 1-bit pages above never touch the gray atlas, and gray pages
# never go through the 1-bit drawing.

#: Bytes after a gray page's scanlines: a group's 8-byte window may reach up to
#: 8 bytes past its group (at most 8) of the last row; only zero bits land there.
_SLACK = 16


def gray_coverage(font: Font, shade: str) -> np.ndarray:
    """``(n, h, w)`` ink coverage (0 paper .. 255 ink) of each glyph as a ``shade`` page draws it.

    :attr:`Font.gray` as it is for ``"gray"``; for ``"gray16"`` / ``"gray4"`` rounded
    to the nearest of 16 / 4 evenly spaced levels (multiples of 17 / 85).

    >>> from snapshot.rendering.glyphs import load_font
    >>> font = load_font("snap5x9v2")
    >>> [len(np.unique(gray_coverage(font, s))) for s in ("gray", "gray16", "gray4")]
    [51, 14, 4]
    """
    bits = GRAY_BITS[shade]
    if bits == 8:
        return font.gray
    top = (1 << bits) - 1

    def make() -> np.ndarray:
        levels = (font.gray.astype(np.uint16) * top + 127) // 255  # round half up
        return (levels * (255 // top)).astype(np.uint8)

    return font.cached(("gray_coverage", shade), make)


def rasterize_gray(grid: np.ndarray, font: Font, geometry: Geometry) -> np.ndarray:
    """Draw a grid of atlas indices from :attr:`Font.gray` as an H×W uint8 image.

    Same cell placement as :func:`rasterize`; the values are final pixels (for
    black-on-white, 255 − coverage, with the coverage of :func:`gray_coverage`),
    so ``rasterize_gray`` of a 1-bit-only glyph set equals ``unpack(rasterize(...))``.

    >>> from snapshot.rendering.glyphs import load_font
    >>> font = load_font("misc-5x8")
    >>> g = Geometry(font, cols=3, rows=1, header=False, padding=0, shade="gray")
    >>> px = rasterize_gray(np.array([[font.index_of("|")] * 3]), font, g)
    >>> px.shape, (px == 0).sum(axis=0).tolist()[:5]
    ((8, 15), [0, 0, 6, 0, 0])
    """
    return gray_pixels(gray_scanlines(grid, font, geometry), geometry)


def gray_scanlines(grid: np.ndarray, font: Font, geometry: Geometry) -> np.ndarray:
    """A gray page's PNG scanlines ``(H, 1 + ceil(W * bits / 8))``: filter byte 0, then pixels.

    Drawn straight into the buffer deflate reads (no H×W image copied in);
    ``bits`` is the shade's (:data:`snapshot.rendering.geometry.GRAY_BITS`), leftmost
    pixel in the high bits. :func:`gray_pixels` turns it into an H×W image,
    :func:`gray_png` into PNG bytes.

    >>> from snapshot.rendering.glyphs import load_font
    >>> font = load_font("snap5x9v2")
    >>> g = Geometry(font, cols=3, rows=1, header=False, padding=2, shade="gray4")
    >>> lines = gray_scanlines(np.array([[font.index_of(c) for c in "Hi!"]]), font, g)
    >>> lines.shape, int(lines[:, 0].max()), int(lines[0, 1])  # 2 bits a px; paper is 0b11
    ((13, 6), 0, 255)
    """
    g = geometry
    grid = np.asarray(grid)
    if grid.ndim != 2 or grid.shape[0] > g.rows or grid.shape[1] > g.cols:
        raise ValueError(f"grid shape {grid.shape} does not fit {g.cols}x{g.rows} cells")
    bits = GRAY_BITS[g.shade]
    width, height = g.size
    stride = 1 + -(-width * bits // 8)
    grid = grid.astype(np.intp, copy=False)
    # paper (all levels 1 for black-on-white), ink levels XOR-ed in (on paper of
    # 1 bits, XOR gives top − level); _SLACK bytes past the end take the last
    # row's overreach of 8-byte windows (zero bits past its drawing)
    buf = np.full(height * stride + _SLACK, 0xFF if g.ink == "black-on-white" else 0, np.uint8)
    raw = buf[: height * stride].reshape(height, stride)
    raw[:, 0] = 0  # filter type None
    if grid.size:
        _draw_packed(grid, font, g, bits, buf, stride)
    if width * bits % 8:  # bits past the right edge: always 0, so the bytes depend on pixels only
        raw[:, -1] &= np.uint8((0xFF << (8 - width * bits % 8)) & 0xFF)
    return raw


def _draw_coverage(grid: np.ndarray, font: Font, g: Geometry, out: np.ndarray) -> None:
    """Coverage (0 paper) into the zeroed H×W ``out``, one gather per scanline: the slow
    path of :func:`_draw_packed`, for cells no word holds or cut by the page's edge."""
    width, _ = g.size
    pw, ph = g.pitch
    rows, cols = grid.shape
    if not (rows and cols):
        return
    x0, y0 = g.origin
    fit = min(cols, (width - x0) // pw)  # whole cells inside the page's width
    part = min(pw, width - x0 - fit * pw) if fit < cols else 0  # a cell cut by the edge
    key = ("gray_rows", g.shade, g.col_gap)
    tables = font.cached(key, lambda: _gray_rows(gray_coverage(font, g.shade), g.col_gap))
    for y, table in enumerate(tables):
        # scanline y of every text row: one gather of pw-byte items straight into the page
        lines = out[y0 + y : y0 + rows * ph : ph]
        n = len(lines)
        dest = lines[:, x0 : x0 + fit * pw].view(table.dtype)
        np.take(table, grid[:n, :fit], out=dest, mode="clip")
        if part > 0:
            cut = table[grid[:n, fit]].view(np.uint8).reshape(n, pw)
            lines[:, x0 + fit * pw : x0 + fit * pw + part] = cut[:, :part]


def _draw_packed(
    grid: np.ndarray, font: Font, g: Geometry, bits: int, buf: np.ndarray, stride: int
) -> None:
    """Ink levels (``bits`` a pixel) XOR-ed into the paper of the scanlines in ``buf``.

    As :func:`_packed_lanes` does for 1 bit: ``group`` neighbouring cells end on
    a byte boundary (5 px cells: 4 cells of 2 bits, 2 of 4 bits = 5 bytes); each
    slot's cells are gathered from a table already shifted to their place in an
    8-byte window, and the groups' windows are XOR-ed into the rows where they
    lie (their bits never overlap, so XOR adds them), even groups then odd ones,
    so windows that overlap (a group is 5 bytes, a window 8; with a left padding
    that is not a whole byte, its last bits spill into the next group's first
    byte) are never written by one call at once.
    """
    rows, cols = grid.shape
    width, height = g.size
    h = font.cell[1]
    pw, ph = g.pitch
    x0, y0 = g.origin
    q, s = divmod(x0 * bits, 8)
    cb = pw * bits
    group = 8 // gcd(cb, 8)
    nb = group * cb // 8
    if s + 8 * nb > 64 or x0 + cols * pw > width:  # no one-word group, or a cell cut by the edge
        levels = np.zeros((height, width), np.uint8)
        _draw_coverage(grid, font, g, levels)  # on the shade's levels
        packed = _pack_levels(levels // np.uint8(255 // ((1 << bits) - 1)), bits)
        buf[: height * stride].reshape(height, stride)[:, 1:] ^= packed
        return
    ncols = -(-cols // group) * group
    if ncols != cols:
        grid = np.concatenate([grid, np.full((rows, ncols - cols), SPACE, grid.dtype)], 1)
    key = ("gray_slots", g.shade, g.col_gap, s)
    tables = font.cached(key, lambda: _slot_tables(font, g.shade, g.col_gap, s))
    # (rows, groups, h) native words, bytes in order: each cell's h rows are one
    # contiguous item; mode="clip" (indices are always in range) skips bounds checks
    words = np.take(tables[0], grid[:, 0::group], axis=0, mode="clip")
    for k in range(1, group):
        words |= np.take(tables[k], grid[:, k::group], axis=0, mode="clip")
    by_line = words.transpose(2, 0, 1)  # written scanline by scanline: the page's order
    ngroups = words.shape[1]
    for first in (0, 1):
        n = len(range(first, ngroups, 2))
        windows = np.ndarray(
            (h, rows, n),
            np.uint64,
            buffer=buf,
            offset=y0 * stride + 1 + q + first * nb,
            strides=(stride, ph * stride, 2 * nb),
        )
        np.bitwise_xor(windows, by_line[:, :, first::2], out=windows)


def _slot_tables(font: Font, shade: str, col_gap: int, s: int) -> list[np.ndarray]:
    """Per cell slot k of a group: ``(n, h)`` uint64 windows, each glyph row's levels at its
    place, as native words whose bytes in memory are the window's bytes in order."""
    bits = GRAY_BITS[shade]
    top = (1 << bits) - 1
    levels = (gray_coverage(font, shade) // np.uint8(255 // top)).astype(np.uint64)
    n, h, w = levels.shape
    cb = (w + col_gap) * bits
    out = []
    for k in range(8 // gcd(cb, 8)):
        table = np.zeros((n, h), np.uint64)
        for i in range(w):  # gap columns stay 0 (paper)
            table |= levels[:, :, i] << np.uint64(64 - (s + k * cb + (i + 1) * bits))
        out.append(np.ascontiguousarray(table.byteswap() if sys.byteorder == "little" else table))
    return out


def _pack_levels(levels: np.ndarray, bits: int) -> np.ndarray:
    """H×W levels (< 2**bits) to packed rows, leftmost pixel in the high bits."""
    per = 8 // bits
    height, width = levels.shape
    padded = np.zeros((height, -(-width // per) * per), np.uint8)
    padded[:, :width] = levels
    parts = padded.reshape(height, -1, per)
    out = np.zeros(parts.shape[:2], np.uint8)
    for i in range(per):
        out |= parts[:, :, i] << np.uint8(8 - (i + 1) * bits)
    return out


def gray_pixels(scanlines: np.ndarray, geometry: Geometry) -> np.ndarray:
    """The H×W uint8 image (0 black .. 255 white) of :func:`gray_scanlines`' buffer.

    >>> from snapshot.rendering.glyphs import load_font
    >>> font = load_font("snap5x9v2")
    >>> g = Geometry(font, cols=3, rows=1, header=False, shade="gray16")
    >>> px = gray_pixels(gray_scanlines(np.array([[font.index_of("x")] * 3]), font, g), g)
    >>> px.shape, sorted({int(v) % 17 for v in px.ravel()})
    ((13, 19), [0])
    """
    width, height = geometry.size
    bits = GRAY_BITS[geometry.shade]
    packed = scanlines[:, 1:]
    if bits == 8:
        return np.ascontiguousarray(packed)
    top = (1 << bits) - 1
    shifts = np.arange(8 - bits, -1, -bits, dtype=np.uint8)
    levels = (packed[:, :, None] >> shifts) & np.uint8(top)
    return levels.reshape(height, -1)[:, :width] * np.uint8(255 // top)


def gray_png(scanlines: np.ndarray, geometry: Geometry, *, level: int = GRAY_PNG_LEVEL) -> bytes:
    """PNG bytes of :func:`gray_scanlines`' buffer: a grayscale PNG of the shade's bit depth.

    Same scanlines, same bytes (fixed deflate level, no timestamps). ``level`` is
    igzip's (0–3) or :data:`STORED` (not compressed: the same pixels, more bytes).

    >>> from snapshot.rendering.glyphs import load_font
    >>> g = Geometry(load_font("snap5x9v2"), cols=3, rows=1, header=False, shade="gray4")
    >>> lines = gray_scanlines(np.zeros((1, 3), int), g.font, g)
    >>> png = gray_png(lines, g)
    >>> struct.unpack(">IIBB", png[16:26])
    (19, 13, 2, 0)
    >>> len(gray_png(lines, g, level=STORED)) - len(png) > 0  # the same image, stored
    True
    """
    width, height = geometry.size
    bits = GRAY_BITS[geometry.shade]
    if scanlines.shape != (height, 1 + -(-width * bits // 8)) or scanlines.dtype != np.uint8:
        raise ValueError(f"scanlines {scanlines.shape} do not fit a {width}x{height} page")
    ihdr = struct.pack(">IIBBBBB", width, height, bits, 0, 0, 0, 0)
    raw = np.ascontiguousarray(scanlines)
    return _png(ihdr, _stored(raw) if level == STORED else _deflate(raw, level))


def _gray_rows(coverage: np.ndarray, col_gap: int) -> list[np.ndarray]:
    """Per glyph row y: ``(n,)`` items of ``pitch`` bytes, row y of each glyph's coverage."""
    cells = coverage
    if col_gap:
        gap = np.zeros((len(coverage), coverage.shape[1], col_gap), np.uint8)
        cells = np.concatenate([coverage, gap], 2)
    pw = cells.shape[2]
    return [np.ascontiguousarray(cells[:, y]).view(f"V{pw}").ravel() for y in range(cells.shape[1])]


def to_png_gray(pixels: np.ndarray, *, level: int = GRAY_PNG_LEVEL) -> bytes:
    """Encode an H×W uint8 image as an 8-bit grayscale PNG; same input, same bytes.

    Scanlines are unfiltered and deflate runs at a fixed level (:data:`GRAY_PNG_LEVEL`).

    >>> png = to_png_gray(np.full((2, 3), 200, np.uint8))
    >>> struct.unpack(">IIBB", png[16:26])
    (3, 2, 8, 0)
    """
    arr = np.asarray(pixels)
    if arr.ndim != 2 or arr.dtype != np.uint8:
        raise ValueError(f"expected an H×W uint8 image, got {arr.shape} {arr.dtype}")
    height, width = arr.shape
    raw = np.empty((height, width + 1), np.uint8)
    raw[:, 0] = 0  # filter type None: smaller than Sub or Up on anti-aliased text
    raw[:, 1:] = arr
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return _png(ihdr, _deflate(raw, level))
