"""Fonts as glyph atlases: one numpy array of 1-bit cells per font and size.

A :class:`Font` is loaded once (freetype-py reads BDF, PCF, ``.pcf.gz``, OTB,
TTF and OTF) and cached. Its atlas starts with five fixed entries, then the
font's own glyphs::

    0 space   1 replacement   2 NEWLINE marker   3 CONTINUE marker   4 KEPT marker

Characters the font lacks are resolved lazily through a fallback chain
(DejaVu Sans Mono and DejaVu Sans from matplotlib's data dir fitted to the
cell, reverse-video caret letters for the U+2400 control pictures, a CJK font
the user has for East Asian wide characters over two cells) and appended to
the atlas; what nothing can draw maps to the replacement glyph. The atlas only
grows, so an index handed out once stays valid and the pixels for a character
do not depend on what was rendered before.

Beside the 1-bit atlas every font has a gray one (:attr:`Font.gray`, coverage
0..255, same indices): outline fonts rendered anti-aliased by freetype, the
project's gray-edged faces from their ``.gray`` companion file, and any other
bitmap font with its 1-bit glyphs' diagonal steps softened (:func:`soften`).
Gray pages are drawn from it (``Geometry(shade="gray")``); 1-bit pages never
touch it.

>>> font = load_font("misc-5x8")
>>> font.cell
(5, 8)
>>> font.atlas.shape[1:]
(8, 5)
>>> font.chars[font.index_of("A")]
'A'
"""

from __future__ import annotations

import functools
import gzip
import importlib.util
import os
import shutil
import subprocess
import tempfile
import threading
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from snapshot.errors import UnknownFontError

# Fixed atlas layout: every font has these five entries first.
SPACE = 0
REPLACEMENT = 1
NEWLINE = 2
CONTINUE = 3
KEPT = 4
#: The characters used as names of the marker entries in ``Font.chars``.
NEWLINE_MARK = "\ue000"
CONTINUE_MARK = "\ue001"
KEPT_MARK = "\ue002"
REPLACEMENT_CHAR = "\ufffd"
#: Wide-glyph right halves have this (empty) name in ``Font.chars``.
WIDE_TAIL = ""
#: Code points reserved for markers: text in this range is never drawn as itself.
MARKER_RANGE = range(0xE000, 0xE100)

T = TypeVar("T")

DEFAULT_FONT = "snap5x8"
MIN_DISTANCE = 3  # smallest Hamming distance a synthesized glyph keeps to every other

_LUT_SIZE = 0x110000
_UNRESOLVED = -1
_UNDRAWABLE = -2

_MISC = Path("/usr/share/fonts/X11/misc")
_SYSTEM_FONTS: dict[str, tuple[Path, ...]] = {
    "misc-4x6": (_MISC / "4x6.pcf.gz",),
    "misc-5x7": (_MISC / "5x7.pcf.gz",),
    "misc-5x8": (_MISC / "5x8.pcf.gz",),
    "misc-6x10": (_MISC / "6x10.pcf.gz",),
    "misc-6x12": (_MISC / "6x12.pcf.gz",),
    "misc-6x13": (_MISC / "6x13.pcf.gz",),
    "spleen-5x8": (_MISC / "spleen-5x8.pcf.gz",),
    "spleen-6x12": (_MISC / "spleen-6x12.pcf.gz",),
    "spleen-8x16": (_MISC / "spleen-8x16.pcf.gz",),
    "terminus-6x12": (
        _MISC / "ter-u12n_unicode.pcf.gz",
        Path("/usr/share/fonts/opentype/terminus/terminus-normal.otb"),
    ),
    "unifont": (_MISC / "unifont.pcf.gz",),
    # outline fonts where Debian puts them (fonts-noto-mono); never bundled
    "noto-sans-mono": (Path("/usr/share/fonts/truetype/noto/NotoSansMono-Regular.ttf"),),
}
_BUNDLED = ("snap5x8", "snap8x16", "snap5x10", "snap5x9", "snap5x9v2", "snap5x9v3", "snap5x9v4")
_CJK_CANDIDATES = (
    Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"),
    Path("/usr/share/fonts/opentype/noto/NotoSansCJKsc-Regular.otf"),
    Path("/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc"),
    Path("/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc"),
    Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"),
    Path("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf"),
    Path("/System/Library/Fonts/PingFang.ttc"),
    Path("C:/Windows/Fonts/msyh.ttc"),
)


# --------------------------------------------------------------------------- registry


@functools.cache
def _matplotlib_font(filename: str) -> Path | None:
    """A DejaVu font file from matplotlib's data folder.

    Looked up where the package lies (``mpl-data`` beside its ``__init__``)
    without importing it: importing matplotlib took 0.2 s, a third of
    ``snapshot render``'s wall time on 1 M characters. Only if the file is not
    there is matplotlib imported to ask it.
    """
    spec = importlib.util.find_spec("matplotlib")
    if spec is None:  # pragma: no cover - matplotlib is a runtime dependency
        return None
    for folder in spec.submodule_search_locations or ():
        path = Path(folder) / "mpl-data" / "fonts" / "ttf" / filename
        if path.is_file():
            return path
    import matplotlib  # pragma: no cover - a relocated data folder

    path = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / filename  # pragma: no cover
    return path if path.is_file() else None  # pragma: no cover


def _fonts_dir() -> Path | None:
    """The project's own BDFs: the installed package ``snapshot.fonts``, or in a source
    checkout (Python started inside the repository) the top-level ``fonts/`` beside it."""
    try:
        return Path(str(resources.files("snapshot.fonts")))
    except (ModuleNotFoundError, TypeError):
        checkout = Path(__file__).resolve().parents[2] / "fonts"
        return checkout if (checkout / "build.py").is_file() else None


def _bundled_path(name: str) -> Path | None:
    folder = _fonts_dir()
    path = folder / f"{name}.bdf" if folder is not None else None
    return path if path is not None and path.is_file() else None


def is_bundled(name: str) -> bool:
    """Whether font ``name`` ships with snapshot (drawn on every install), not one a
    system package may or may not provide.

    >>> is_bundled("snap5x8"), is_bundled("misc-6x12")
    (True, False)
    """
    return name in _BUNDLED


def available_fonts() -> dict[str, Path]:
    """Font names :func:`load_font` accepts, with their files (bundled first).

    >>> "misc-5x8" in available_fonts()
    True
    """
    found: dict[str, Path] = {}
    for name in _BUNDLED:
        path = _bundled_path(name)
        if path is not None:
            found[name] = path
    for name, candidates in _SYSTEM_FONTS.items():
        for path in candidates:
            if path.is_file():
                found[name] = path
                break
    mono = _matplotlib_font("DejaVuSansMono.ttf")
    if mono is not None:
        found["dejavu-sans-mono"] = mono
    return found


def default_font_name() -> str:
    """The dense font pages use by default: ``snap5x8``, or ``misc-5x8`` before it is built."""
    fonts = available_fonts()
    for name in (DEFAULT_FONT, "misc-5x8", "spleen-5x8"):
        if name in fonts:
            return name
    return next(iter(fonts), DEFAULT_FONT)


# --------------------------------------------------------------------------- freetype


def _open_face(path: Path, index: int = 0) -> Any:
    import freetype

    return freetype.Face(str(path), index)


def _mono_bitmap(face: Any) -> tuple[np.ndarray, int, int, int]:
    """The current glyph slot as a (rows, width) 0/1 array, plus left, top, advance."""
    slot = face.glyph
    bm = slot.bitmap
    rows, width, pitch = bm.rows, bm.width, bm.pitch
    if rows == 0 or width == 0:
        bits = np.zeros((0, 0), np.uint8)
    else:
        buf = np.frombuffer(bytes(bm.buffer), np.uint8).reshape(rows, abs(pitch))
        if bm.pixel_mode == 1:  # FT_PIXEL_MODE_MONO
            bits = np.unpackbits(buf, axis=1)[:, :width]
        else:  # gray: threshold at half
            bits = (buf[:, :width] >= 128).astype(np.uint8)
    return bits, slot.bitmap_left, slot.bitmap_top, slot.advance.x >> 6


def _place(
    bits: np.ndarray, width: int, height: int, x: int, y: int
) -> np.ndarray:  # pure: paste with clipping
    cell = np.zeros((height, width), np.uint8)
    if bits.size == 0:
        return cell
    h, w = bits.shape
    y0, x0 = max(y, 0), max(x, 0)
    y1, x1 = min(y + h, height), min(x + w, width)
    if y1 > y0 and x1 > x0:
        cell[y0:y1, x0:x1] = bits[y0 - y : y1 - y, x0 - x : x1 - x]
    return cell


def _load_flags() -> int:
    import freetype

    return int(freetype.FT_LOAD_RENDER | freetype.FT_LOAD_TARGET_MONO)


@dataclass(frozen=True)
class _FaceInfo:
    cell: tuple[int, int]
    ascent: int
    pixel_size: int


def _select_size(face: Any, pixel_size: int | None) -> int:
    """Pick a strike (bitmap fonts) or set a pixel size (scalable); return the size."""
    if face.num_fixed_sizes and not face.is_scalable:
        sizes = [s.height for s in face.available_sizes]
        want = pixel_size if pixel_size is not None else min(sizes)
        best = min(range(len(sizes)), key=lambda i: (abs(sizes[i] - want), sizes[i]))
        face.select_size(best)
        return int(sizes[best])
    size = pixel_size if pixel_size is not None else 12
    face.set_pixel_sizes(0, size)
    return size


def _face_info(face: Any, pixel_size: int) -> _FaceInfo:
    flags = _load_flags()
    advance = 0
    for probe in ("0", "M", "a"):
        if face.get_char_index(ord(probe)):
            face.load_char(probe, flags)
            advance = face.glyph.advance.x >> 6
            break
    if advance <= 0:
        advance = max(1, face.size.max_advance >> 6)
    ascent = face.size.ascender >> 6
    descent = -(face.size.descender >> 6)
    height = ascent + descent
    if face.num_fixed_sizes and not face.is_scalable:
        height = int(face.available_sizes[0].height) if face.num_fixed_sizes == 1 else height
        height = max(height, ascent + descent)
    return _FaceInfo(cell=(int(advance), int(height)), ascent=int(ascent), pixel_size=pixel_size)


def _render_chars(
    face: Any,
    codes: Iterable[int],
    info: _FaceInfo,
) -> list[tuple[int, np.ndarray]]:
    """Render each code point into one cell (or two, for glyphs about twice as wide)."""
    flags = _load_flags()
    w, h = info.cell
    out: list[tuple[int, np.ndarray]] = []
    for cp in codes:
        face.load_char(cp, flags)
        bits, left, top, advance = _mono_bitmap(face)
        span = 2 if advance >= 2 * w - 1 and w > 1 else 1
        out.append((cp, _place(bits, w * span, h, left, info.ascent - top)))
    return out


# --------------------------------------------------------------------------- synthesized glyphs


def _hamming_min(glyph: np.ndarray, others: np.ndarray) -> int:
    if len(others) == 0:
        return glyph.size
    diff = (others.reshape(len(others), -1) != glyph.reshape(1, -1)).sum(axis=1)
    return int(diff.min())


def distinct_glyph(
    design: np.ndarray, others: np.ndarray, min_distance: int = MIN_DISTANCE
) -> np.ndarray:
    """Return ``design``, minimally edited so it is ≥ ``min_distance`` from all ``others``.

    Greedy and deterministic: while too close, flip the pixel that most raises
    the minimum distance (ties: first in row-major order).

    >>> a = np.zeros((3, 3), np.uint8)
    >>> g = distinct_glyph(a, a[None])
    >>> int((g != a).sum())
    3
    """
    glyph = design.astype(np.uint8).copy()
    flat_others = others.reshape(len(others), -1).astype(np.int16)
    for _ in range(glyph.size):
        if _hamming_min(glyph, others) >= min_distance:
            return glyph
        flat = glyph.reshape(-1).astype(np.int16)
        dist = (flat_others != flat).sum(axis=1)
        close = flat_others[dist == dist.min()]
        # flipping pixel p changes the distance to a close glyph by +1 where they agree
        gain = (close == flat).sum(axis=0)
        glyph.reshape(-1)[int(np.argmax(gain))] ^= 1
    raise ValueError("cell too small for a distinct glyph")  # pragma: no cover


def _marker_designs(w: int, h: int, ascent: int) -> dict[int, np.ndarray]:
    """Marker shapes scaled to the cell: bold ↵ NEWLINE, capped ↳ CONTINUE, hatched KEPT box,
    and a box with a punched-out "?" as the replacement glyph."""
    mid = max(1, min(h - 2, ascent - max(1, ascent // 3)))
    top = max(0, ascent - max(3, (ascent * 3) // 4))
    newline = np.zeros((h, w), np.uint8)
    newline[top : mid + 1, max(0, w - 2) : w] = 1  # a bold right stem: unlike the font's own ↵
    newline[mid, 0:w] = 1  # foot
    newline[mid - 1, 1] = newline[min(h - 1, mid + 1), 1] = 1  # arrow head
    cont = np.zeros((h, w), np.uint8)
    cont[top : mid + 1, 0] = 1  # left stem, like ↳
    cont[mid, 0:w] = 1
    cont[mid - 1, w - 2] = cont[min(h - 1, mid + 1), w - 2] = 1
    cont[top, 0 : max(1, w // 2)] = 1  # a cap so it is not a plain └ or ↳
    kept = np.zeros((h, w), np.uint8)
    kept[top : ascent + 1, :] = 1  # a box with a checkered inside: "something here"
    inner = kept[top + 1 : ascent, 1 : w - 1]
    yy, xx = np.indices(inner.shape)
    inner[(yy + xx) % 2 == 1] = 0
    replacement = np.zeros((h, w), np.uint8)
    replacement[top : ascent + 1, :] = 1  # a solid box with a "?" punched out
    q = replacement[top : ascent + 1, :]
    if q.shape[0] >= 5 and w >= 4:
        q[1, 1 : w - 1] = 0
        q[2, w - 2] = 0
        q[3, w // 2] = 0
        q[-1, w // 2] = 0
    return {NEWLINE: newline, CONTINUE: cont, KEPT: kept, REPLACEMENT: replacement}


_CARET_LETTERS = "@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_"


def _control_picture_source(cp: int) -> str | None:
    """The caret letter a U+2400 control picture is drawn as (reverse video), or None."""
    if 0x2400 <= cp <= 0x241F:
        return _CARET_LETTERS[cp - 0x2400]
    if cp == 0x2421:  # DEL
        return "?"
    return None


# --------------------------------------------------------------------------- gray glyphs

FULL_INK = 255
#: Coverage given to the inner corner of a diagonal step by :func:`soften`.
SOFT_STEP = 96
GRAY_SUFFIX = ".gray"


def soften(bitmaps: np.ndarray, step: int = SOFT_STEP) -> np.ndarray:
    """1-bit glyphs ``(..., h, w)`` as gray coverage with their diagonal steps smoothed.

    Ink is 255. A paper pixel that closes a diagonal step (ink on two perpendicular
    sides, paper on the corner between them) gets ``step``: strokes read as lines,
    not staircases, while L corners and straight edges stay crisp.

    >>> soften(np.array([[1, 0], [0, 1]], np.uint8)).tolist()
    [[255, 96], [96, 255]]
    >>> soften(np.array([[1, 0], [1, 1]], np.uint8)).tolist()
    [[255, 0], [255, 255]]
    """
    ink = np.asarray(bitmaps) > 0
    pad = np.pad(ink, [(0, 0)] * (ink.ndim - 2) + [(1, 1), (1, 1)])
    up, down = pad[..., :-2, 1:-1], pad[..., 2:, 1:-1]
    left, right = pad[..., 1:-1, :-2], pad[..., 1:-1, 2:]
    ul, ur = pad[..., :-2, :-2], pad[..., :-2, 2:]
    dl, dr = pad[..., 2:, :-2], pad[..., 2:, 2:]
    step_px = (
        (up & left & ~ul) | (up & right & ~ur) | (down & left & ~dl) | (down & right & ~dr)
    ) & ~ink
    out = np.where(ink, FULL_INK, 0).astype(np.uint8)
    out[step_px] = step
    return out


def read_gray_companion(path: Path) -> tuple[tuple[int, int], dict[int, np.ndarray]]:
    """Parse a ``.gray`` file (``fonts/build.py`` writes them): cell and coverage per code point.

    Format: a ``# snapshot-gray/1 W H`` line, then one ``U+XXXX`` and ``W*H`` hex bytes
    (row-major, 00 paper .. ff ink) per line.
    """
    lines = path.read_text(encoding="ascii").splitlines()
    head = lines[0].split() if lines else []
    if len(head) != 4 or head[:2] != ["#", "snapshot-gray/1"]:
        raise UnknownFontError(
            f"{path}: not a snapshot-gray/1 file; rebuild it with fonts/build.py"
        )
    w, h = int(head[2]), int(head[3])
    out: dict[int, np.ndarray] = {}
    for line in lines[1:]:
        if not line or line.startswith("#"):
            continue
        code, data = line.split()
        out[int(code.removeprefix("U+"), 16)] = np.frombuffer(
            bytes.fromhex(data), np.uint8
        ).reshape(h, w)
    return (w, h), out


def _gray_outline(face: Any, cp: int, cell: tuple[int, int], ascent: int, span: int) -> np.ndarray:
    """Anti-aliased coverage of one code point, placed in the cell like the 1-bit render."""
    import freetype

    face.load_char(cp, int(freetype.FT_LOAD_RENDER))  # FT_LOAD_TARGET_NORMAL: 8-bit gray
    slot = face.glyph
    bm = slot.bitmap
    w, h = cell
    if bm.rows == 0 or bm.width == 0:
        return np.zeros((h, w * span), np.uint8)
    buf = np.frombuffer(bytes(bm.buffer), np.uint8).reshape(bm.rows, abs(bm.pitch))
    return _place(buf[:, : bm.width], w * span, h, slot.bitmap_left, ascent - slot.bitmap_top)


def _gray_source(
    path: Path, pixel_size: int, info: _FaceInfo, primary: frozenset[int]
) -> Callable[[_Atlas, int], np.ndarray]:
    """How a font fills its gray atlas from entry ``start`` on (see :attr:`Font.gray`)."""
    companion: dict[int, np.ndarray] = {}
    gray_file = path.with_suffix(GRAY_SUFFIX)
    if gray_file.is_file():
        cell, companion = read_gray_companion(gray_file)
        if cell != info.cell:
            raise UnknownFontError(f"{gray_file}: cell {cell} does not match {path} {info.cell}")
    face: list[Any] = []  # opened on first use; freetype faces are not shared across fonts

    def outline() -> Any | None:
        if not face:
            opened = _open_face(path)
            if not opened.is_scalable:
                face.append(None)
            else:
                _select_size(opened, pixel_size)
                face.append(opened)
        return face[0]

    def make(atlas: _Atlas, start: int) -> np.ndarray:
        glyphs = atlas.glyphs[start:]
        out = soften(glyphs)
        i = start
        while i < len(atlas.chars):
            ch = atlas.chars[i]
            cp = ord(ch) if len(ch) == 1 else -1
            k = i - start
            if i >= 5 and cp in primary:
                if cp in companion and not atlas.wide[i]:
                    out[k] = companion[cp]
                elif (ft := outline()) is not None:
                    span = 2 if atlas.wide[i] else 1
                    drawn = _gray_outline(ft, cp, info.cell, info.ascent, span)
                    w = info.cell[0]
                    out[k] = drawn[:, :w]
                    if span == 2 and k + 1 < len(out):
                        out[k + 1] = drawn[:, w:]
                        i += 1
            i += 1
        return out

    return make


# --------------------------------------------------------------------------- atlas state


@dataclass(frozen=True)
class _Atlas:
    """One immutable snapshot of a font's atlas; replaced, never mutated."""

    glyphs: np.ndarray  # (n, h, w) uint8 0/1
    chars: tuple[str, ...]
    wide: np.ndarray  # (n,) bool: left half of a two-cell glyph
    lut: np.ndarray  # (0x110000,) int32: index, _UNRESOLVED or _UNDRAWABLE
    rowbits: np.ndarray  # (n, h) uint64: each glyph row as a w-bit integer, MSB left
    lanes: np.ndarray  # (n, ceil(h / 8)) little-endian uint64: row y in byte y (w <= 8 only)
    derived: dict[object, object] = field(default_factory=dict, compare=False)


def _rowbits(glyphs: np.ndarray) -> np.ndarray:
    w = glyphs.shape[2]
    weights = (np.uint64(1) << np.arange(w - 1, -1, -1, dtype=np.uint64)).astype(np.uint64)
    return (glyphs.astype(np.uint64) * weights).sum(axis=2, dtype=np.uint64)


def _lanes(rowbits: np.ndarray) -> np.ndarray:
    """Glyph rows as bytes, eight rows to a uint64 (row y in byte y % 8 of word y // 8)."""
    n, h = rowbits.shape
    words = -(-h // 8)
    raw = np.zeros((n, words * 8), np.uint8)
    raw[:, :h] = rowbits & np.uint64(0xFF)
    return raw.view("<u8").astype(np.uint64)


def _make_atlas(
    glyphs: np.ndarray, chars: tuple[str, ...], wide: np.ndarray, lut: np.ndarray
) -> _Atlas:
    rowbits = _rowbits(glyphs)
    return _Atlas(glyphs, chars, wide, lut, rowbits, _lanes(rowbits))


class _Fallback:
    """The fallback faces for one cell size, opened on first use."""

    def __init__(self, cell: tuple[int, int], ascent: int) -> None:
        self.cell = cell
        self.ascent = ascent
        self._faces: list[tuple[Any, _FaceInfo, bool]] | None = None

    def faces(self) -> list[tuple[Any, _FaceInfo, bool]]:
        """(face, placement, is_cjk) in chain order."""
        if self._faces is None:
            faces: list[tuple[Any, _FaceInfo, bool]] = []
            for filename in ("DejaVuSansMono.ttf", "DejaVuSans.ttf"):
                path = _matplotlib_font(filename)
                if path is not None:
                    face = _open_face(path)
                    faces.append((face, self._fit(face), False))
            cjk = find_cjk_font()
            if cjk is not None:
                face = _open_face(cjk)
                faces.append((face, self._fit_cjk(face), True))
            self._faces = faces
        return self._faces

    def _fit(self, face: Any) -> _FaceInfo:
        """Largest pixel size whose advance fits the cell width."""
        w, h = self.cell
        flags = _load_flags()
        best = 4
        for size in range(4, 4 * h):
            face.set_pixel_sizes(0, size)
            face.load_char("M", flags)
            if (face.glyph.advance.x >> 6) > w or (face.size.ascender >> 6) > h + 1:
                break
            best = size
        face.set_pixel_sizes(0, best)
        return _FaceInfo(cell=self.cell, ascent=self.ascent, pixel_size=best)

    def _fit_cjk(self, face: Any) -> _FaceInfo:
        w, h = self.cell
        size = max(4, min(2 * w, h))
        return _FaceInfo(cell=(2 * w, h), ascent=self.ascent, pixel_size=size)

    def render(self, cp: int) -> tuple[np.ndarray, bool] | None:
        """(bitmap of width w or 2w, is_wide), or None when nothing here draws ``cp``."""
        w, h = self.cell
        ch = chr(cp)
        wide = unicodedata.east_asian_width(ch) in ("W", "F")
        flags = _load_flags()
        for face, info, is_cjk in self.faces():
            if not face.get_char_index(cp):
                continue
            face.set_pixel_sizes(0, info.pixel_size)
            face.load_char(cp, flags)
            bits, left, top, advance = _mono_bitmap(face)
            if bits.sum() == 0 and unicodedata.category(ch)[0] != "Z":
                continue  # an empty glyph for a visible character is no drawing at all
            span = 2 if wide else 1
            width = w * span
            if is_cjk:
                # centre ideographs in their two cells: the em box is square
                x = (width - bits.shape[1]) // 2
                y = (h - bits.shape[0]) // 2
            else:
                x = left + (width - max(advance, 1)) // 2
                y = self.ascent - top
            return _place(bits, width, h, x, y), wide
        return None


class _AtlasCache:
    """Mutable holder of a font's current :class:`_Atlas` snapshot.

    Reads never lock: they take ``self.current`` once and use that snapshot.
    Extensions (new fallback glyphs) build a new snapshot and publish it in one
    assignment, under a lock so two threads cannot hand out the same index for
    different glyphs. Entries are only appended, so any index seen before stays
    valid, and a character's pixels do not depend on rendering history.
    """

    def __init__(self, atlas: _Atlas, primary: frozenset[int], fallback: _Fallback) -> None:
        self.current = atlas
        self.primary = primary
        self.fallback = fallback
        self._lock = threading.Lock()
        # gray coverage of the first len(self.gray) atlas entries (append-only, like the atlas)
        self.gray = np.zeros((0, *atlas.glyphs.shape[1:]), np.uint8)
        self.gray_source: Callable[[_Atlas, int], np.ndarray] | None = None

    def gray_for(self, atlas: _Atlas) -> np.ndarray:
        """Gray coverage ``(n, h, w)`` for every entry of ``atlas``, extended as needed."""
        gray = self.gray
        n = len(atlas.chars)
        if len(gray) >= n:
            return gray[:n]
        with self._lock:
            gray = self.gray
            if len(gray) < n:
                assert self.gray_source is not None
                gray = np.concatenate([gray, self.gray_source(atlas, len(gray))])
                self.gray = gray
        return gray[:n]

    def resolve(self, codepoints: Iterable[int]) -> _Atlas:
        """Make sure every code point has a LUT entry; return the snapshot that has them."""
        atlas = self.current
        todo = sorted({int(c) for c in codepoints if atlas.lut[int(c)] == _UNRESOLVED})
        if not todo:
            return atlas
        with self._lock:
            atlas = self.current
            todo = [c for c in todo if atlas.lut[c] == _UNRESOLVED]
            if not todo:
                return atlas
            w = atlas.glyphs.shape[2]
            new_glyphs: list[np.ndarray] = []
            new_chars: list[str] = []
            new_wide: list[bool] = []
            lut = atlas.lut.copy()
            n = len(atlas.chars)
            for cp in todo:
                drawn = None
                if cp not in MARKER_RANGE and not (0xD800 <= cp < 0xE000):
                    drawn = self._draw(cp, atlas)
                if drawn is None:
                    lut[cp] = _UNDRAWABLE
                    continue
                bitmap, wide = drawn
                lut[cp] = n + len(new_glyphs)
                if wide:
                    new_glyphs += [bitmap[:, :w], bitmap[:, w:]]
                    new_chars += [chr(cp), WIDE_TAIL]
                    new_wide += [True, False]
                else:
                    new_glyphs.append(bitmap)
                    new_chars.append(chr(cp))
                    new_wide.append(False)
            if new_glyphs:
                glyphs = np.concatenate([atlas.glyphs, np.stack(new_glyphs)])
                wide_arr = np.concatenate([atlas.wide, np.array(new_wide, bool)])
                atlas = _make_atlas(glyphs, atlas.chars + tuple(new_chars), wide_arr, lut)
            else:
                atlas = _Atlas(
                    atlas.glyphs, atlas.chars, atlas.wide, lut, atlas.rowbits, atlas.lanes
                )
            self.current = atlas
            return atlas

    def _draw(self, cp: int, atlas: _Atlas) -> tuple[np.ndarray, bool] | None:
        drawn = self.fallback.render(cp)
        if drawn is not None:
            return drawn
        letter = _control_picture_source(cp)
        if letter is not None:
            idx = atlas.lut[ord(letter)]
            if idx >= 0:
                return (1 - atlas.glyphs[idx]).astype(np.uint8), False
        return None


# --------------------------------------------------------------------------- Font


@dataclass(frozen=True)
class Font:
    """A monospaced bitmap font turned into a glyph atlas.

    Load it with :func:`load_font`; fields other than the atlas cache compare.

    >>> font = load_font("misc-5x8")
    >>> font.name, font.cell, font.covers("ő"), font.chars[:2]
    ('misc-5x8', (5, 8), True, (' ', '\\ufffd'))
    """

    name: str
    path: Path
    cell: tuple[int, int]
    pixel_size: int
    ascent: int = 0
    _cache: _AtlasCache | None = field(default=None, repr=False, compare=False, hash=False)

    @property
    def _state(self) -> _Atlas:
        assert self._cache is not None, "Font objects come from load_font()"
        return self._cache.current

    @property
    def atlas(self) -> np.ndarray:
        """``(n, h, w)`` uint8 array, 1 = ink."""
        return self._state.glyphs

    @property
    def chars(self) -> tuple[str, ...]:
        """The character of each atlas entry (markers: U+E000.., wide right halves: '')."""
        return self._state.chars

    @property
    def rowbits(self) -> np.ndarray:
        """``(n, h)`` uint64: each glyph row as a w-bit integer, leftmost pixel highest."""
        return self._state.rowbits

    @property
    def lanes(self) -> np.ndarray:
        """``(n, ceil(h / 8))`` uint64: glyph rows as bytes, row y in byte y % 8 of word y // 8."""
        return self._state.lanes

    @property
    def gray(self) -> np.ndarray:
        """``(n, h, w)`` uint8 ink coverage (0 paper, 255 full ink), same indices as
        :attr:`atlas`: anti-aliased outlines, a ``.gray`` companion, or :func:`soften`.

        >>> font = load_font("misc-5x8")
        >>> font.gray.shape == font.atlas.shape, int(font.gray.max())
        (True, 255)
        """
        assert self._cache is not None
        return self._cache.gray_for(self._state)

    def cached(self, key: object, make: Callable[[], T]) -> T:
        """A value derived from the current atlas snapshot, computed once per snapshot.

        Used by pure functions that precompute tables from the atlas (the raster's
        shift tables, the decoder's templates); a new snapshot starts empty.
        """
        state = self._state
        try:
            return state.derived[key]  # type: ignore[return-value]
        except KeyError:
            value = make()
            state.derived[key] = value
            return value

    @property
    def wide(self) -> np.ndarray:
        """``(n,)`` bool: entry is the left half of a glyph drawn over two cells."""
        return self._state.wide

    def index_of(self, ch: str) -> int | None:
        """Atlas index drawing ``ch`` (fallback glyphs included), or None if nothing can.

        >>> load_font("misc-5x8").index_of(" ")
        0
        """
        if len(ch) != 1:
            raise ValueError(f"index_of takes one character, got {ch!r}")
        assert self._cache is not None
        idx = int(self._cache.resolve([ord(ch)]).lut[ord(ch)])
        return idx if idx >= 0 else None

    def covers(self, ch: str) -> bool:
        """True when the font itself (not a fallback) draws ``ch``."""
        assert self._cache is not None
        return len(ch) == 1 and ord(ch) in self._cache.primary

    def lookup(self, codepoints: np.ndarray) -> tuple[np.ndarray, _Atlas]:
        """Vectorized: atlas index per code point (``-2`` = nothing can draw it).

        Returns the indices and the atlas snapshot they refer to.

        >>> font = load_font("misc-5x8")
        >>> idx, _ = font.lookup(np.array([65, 0xE000], np.uint32))
        >>> font.chars[idx[0]], int(idx[1])
        ('A', -2)
        """
        assert self._cache is not None
        atlas = self._cache.current
        idx = np.take(atlas.lut, codepoints)  # half the time of lut[codepoints]
        missing = idx == _UNRESOLVED
        if missing.any():
            atlas = self._cache.resolve(np.unique(codepoints[missing]).tolist())
            idx = np.take(atlas.lut, codepoints)
        return idx, atlas

    @property
    def primary_chars(self) -> frozenset[str]:
        """Characters the font itself draws."""
        assert self._cache is not None
        return frozenset(chr(c) for c in self._cache.primary)


# --------------------------------------------------------------------------- loading


def _build(name: str, path: Path, pixel_size: int | None) -> Font:
    try:
        face = _open_face(path)
    except Exception as exc:
        raise UnknownFontError(f"cannot load font file {path}: {exc}") from exc
    size = _select_size(face, pixel_size)
    info = _face_info(face, size)
    w, h = info.cell
    codes = [cp for cp, _ in face.get_chars() if cp > 0]
    rendered = _render_chars(face, codes, info)
    by_cp = dict(rendered)
    glyphs: list[np.ndarray] = []
    chars: list[str] = []
    wide: list[bool] = []
    lut = np.full(_LUT_SIZE, _UNRESOLVED, np.int32)
    blank = np.zeros((h, w), np.uint8)
    fixed: dict[int, np.ndarray] = {SPACE: blank}
    # the font's own marker glyphs, when it has them (the project fonts do)
    for index, cp in ((NEWLINE, 0xE000), (CONTINUE, 0xE001), (KEPT, 0xE002)):
        if cp in by_cp and by_cp[cp].shape[1] == w:
            fixed[index] = by_cp[cp]
    if 0xFFFD in by_cp and by_cp[0xFFFD].shape[1] == w:
        fixed[REPLACEMENT] = by_cp[0xFFFD]
    primary: set[int] = set()
    for cp, bitmap in rendered:
        if cp in MARKER_RANGE or cp in (0x20, 0xFFFD) or 0xD800 <= cp < 0xE000:
            continue
        if bitmap.shape[1] == 2 * w:
            glyphs += [bitmap[:, :w], bitmap[:, w:]]
            chars += [chr(cp), WIDE_TAIL]
            wide += [True, False]
        else:
            glyphs.append(bitmap)
            chars.append(chr(cp))
            wide.append(False)
        primary.add(cp)
    own = np.stack(glyphs) if glyphs else np.zeros((0, h, w), np.uint8)
    fallback = _Fallback((w, h), info.ascent)
    designs = _marker_designs(w, h, info.ascent)
    # synthesized entries must stay clear of the font's glyphs and of arrows the
    # fallback fonts would draw, so the decoder never confuses them
    arrows = [fallback.render(ord(c)) for c in "↵↩↪→⏎␤↳⤶▒▓█?"]
    others = [own] + [a[0][None] for a in arrows if a is not None and a[0].shape[1] == w]
    others += [fixed[k][None] for k in sorted(fixed)]
    for index in (REPLACEMENT, NEWLINE, CONTINUE, KEPT):
        if index not in fixed:
            fixed[index] = distinct_glyph(designs[index], np.concatenate(others))
            others.append(fixed[index][None])
    head = np.stack([fixed[i] for i in range(5)])
    all_glyphs = np.concatenate([head, own])
    all_chars = (" ", REPLACEMENT_CHAR, NEWLINE_MARK, CONTINUE_MARK, KEPT_MARK, *chars)
    for i, ch in enumerate(all_chars):
        if i >= 5 and ch != WIDE_TAIL:
            lut[ord(ch)] = i
    lut[0x20] = SPACE
    lut[0x0A] = NEWLINE  # layout draws newlines as the marker (lines mode re-maps them)
    lut[0xFFFD] = REPLACEMENT
    for cp in MARKER_RANGE:
        lut[cp] = _UNDRAWABLE
    lut[0xD800:0xE000] = _UNDRAWABLE
    primary.add(0x20)
    wide_arr = np.array([False] * 5 + wide, bool)
    atlas = _make_atlas(all_glyphs, all_chars, wide_arr, lut)
    cache = _AtlasCache(atlas, frozenset(primary), fallback)
    cache.gray_source = _gray_source(path, size, info, frozenset(primary))
    return Font(
        name=name, path=path, cell=(w, h), pixel_size=size, ascent=info.ascent, _cache=cache
    )


@functools.lru_cache(maxsize=32)
def _load_cached(name: str, path: Path, pixel_size: int | None) -> Font:
    return _build(name, path, pixel_size)


def _font_file(name_or_path: str | os.PathLike[str]) -> tuple[str, Path]:
    """A font's name and file: bundled or installed by name, or a BDF/PCF/OTB/TTF/OTF path."""
    text = os.fspath(name_or_path)
    fonts = available_fonts()
    if text in fonts:
        return text, fonts[text]
    path = Path(text).expanduser()
    if path.is_file():
        stem = path.name
        for suffix in (".gz", ".pcf", ".bdf", ".otb", ".ttf", ".otf", ".ttc"):
            stem = stem.removesuffix(suffix)
        return stem, path.resolve()
    names = ", ".join(fonts) or "(none installed)"
    raise UnknownFontError(
        f"unknown font {text!r}; available: {names} (or give a path to a BDF/PCF/OTB/TTF/OTF file)"
    )


def load_font(name_or_path: str | os.PathLike[str], *, pixel_size: int | None = None) -> Font:
    """Load a font by name (bundled or installed) or from a BDF/PCF/OTB/TTF/OTF file.

    Loading happens once per font and size; later calls return the same object.

    >>> font = load_font("misc-5x8")
    >>> font is load_font("misc-5x8")
    True
    >>> load_font("no-such-font")
    Traceback (most recent call last):
    ...
    snapshot.errors.UnknownFontError: unknown font 'no-such-font'; available: ...
    """
    return _load_cached(*_font_file(name_or_path), pixel_size)


def font_cell(
    name_or_path: str | os.PathLike[str], *, pixel_size: int | None = None
) -> tuple[int, int]:
    """``load_font(...).cell`` from the face's metrics alone: no glyph drawn (a density
    needs only the cell; drawing a font's every glyph costs ~0.1 s).

    >>> font_cell("misc-5x8") == load_font("misc-5x8").cell
    True
    """
    return _cell_cached(_font_file(name_or_path)[1], pixel_size)


@functools.lru_cache(maxsize=64)
def _cell_cached(path: Path, pixel_size: int | None) -> tuple[int, int]:
    try:
        face = _open_face(path)
    except Exception as exc:
        raise UnknownFontError(f"cannot load font file {path}: {exc}") from exc
    return _face_info(face, _select_size(face, pixel_size)).cell


def find_cjk_font() -> Path | None:
    """A CJK-capable font file the user has (never downloaded), or None."""
    env = os.environ.get("SNAPSHOT_CJK_FONT")
    if env:
        return Path(env) if Path(env).is_file() else None
    return _find_cjk_font()


@functools.lru_cache(maxsize=1)
def _find_cjk_font() -> Path | None:
    for path in _CJK_CANDIDATES:
        if path.is_file():
            return path
    if shutil.which("fc-list"):
        try:
            out = subprocess.run(
                ["fc-list", ":lang=zh", "file"], capture_output=True, text=True, timeout=10
            ).stdout
        except (OSError, subprocess.SubprocessError):
            return None
        for line in sorted(out.splitlines()):
            path = Path(line.strip().rstrip(":"))
            if path.is_file():
                return path
    return None


def ungzipped(path: Path) -> Path:
    """A plain copy of a ``.gz`` font in the temp dir (Pillow re-inflates .gz per glyph)."""
    if path.suffix != ".gz":
        return path
    target = Path(tempfile.gettempdir()) / f"snapshot-{os.getuid()}-{path.stem}"
    if not target.is_file():
        tmp = target.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(gzip.decompress(path.read_bytes()))
        tmp.replace(target)
    return target


def closest_pairs(
    font: Font, limit: int = 5, chars: str | None = None
) -> list[tuple[str, str, int]]:
    """The ``limit`` pairs of the font's own glyphs with the smallest Hamming distance.

    Identical bitmaps (distance 0, e.g. Latin A and Greek Alpha) count only when
    both characters are in ``chars`` (default: printable ASCII).

    >>> closest_pairs(load_font("misc-5x8"), limit=1)[0][2] >= 0
    True
    """
    pool = chars if chars is not None else "".join(chr(c) for c in range(0x21, 0x7F))
    picked = [(c, font.index_of(c)) for c in pool if font.covers(c)]
    found = [(c, i) for c, i in picked if i is not None]
    if len(found) < 2:
        return []
    glyphs = font.atlas[[i for _, i in found]].reshape(len(found), -1).astype(np.int16)
    dist = (glyphs[:, None, :] != glyphs[None, :, :]).sum(axis=2)
    iu = np.triu_indices(len(found), k=1)
    order = np.lexsort((iu[1], iu[0], dist[iu]))[:limit]
    return [(found[iu[0][k]][0], found[iu[1][k]][0], int(dist[iu][k])) for k in order]
