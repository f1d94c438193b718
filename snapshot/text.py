"""Text normalization and layout: text in, grids of atlas indices out.

Everything here is linear in the text length and vectorized over code points
(a 5 MB single line wraps as fast as 5 MB of short lines).

>>> from snapshot.glyphs import load_font
>>> from snapshot.geometry import Geometry
>>> normalize("a\\tb  \\r\\nc\\x1b[31md\\x00").text
'a       b\\ncd␀'
>>> g = Geometry(load_font("misc-5x8"), cols=4, rows=3)
>>> [grid.shape for grid in layout("hello world", g)]
[(2, 4), (2, 4)]
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from snapshot.errors import InputError
from snapshot.geometry import Geometry
from snapshot.glyphs import CONTINUE, KEPT, NEWLINE, REPLACEMENT, SPACE

# CSI (incl. 8-bit-free forms), OSC (BEL or ST terminated), DCS/SOS/PM/APC strings,
# then any other two- or three-byte escape.
_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"
    r"|\x1b[ -/]*[0-~]"
    r"|\x1b"
)
_ZERO_WIDTH = "\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff\u180e\u00ad"
_ZERO_WIDTH += "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_ZERO_WIDTH_RE = re.compile(f"[{_ZERO_WIDTH}]")
_CONTROL_RE = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")
_CONTROL_MAP = {c: 0x2400 + c for c in range(0x20) if c != 0x0A}
_CONTROL_MAP[0x7F] = 0x2421
# bytes.translate deletes these, leaving only C0 controls (other than LF) and DEL
_NOT_CONTROL = bytes(b for b in range(256) if not ((b < 0x20 and b != 0x0A) or b == 0x7F))
_LINE_BREAK = -3  # lines mode: a newline that ends a row instead of being drawn


@dataclass(frozen=True)
class NormalizedText:
    """Normalized text plus counts of what normalization changed.

    >>> n = normalize("x\\r\\ny\\u200b\\x07")
    >>> n.text, n.crlf, n.zero_width, n.controls
    ('x\\ny␇', 1, 1, 1)
    """

    text: str
    crlf: int = 0  # CRLF pairs and lone CRs folded to LF
    tabs: int = 0
    ansi: int = 0  # escape sequences removed
    zero_width: int = 0
    controls: int = 0  # control characters replaced by their U+2400 pictures
    trailing_spaces: int = 0
    nfc_changed: bool = False
    invalid_utf8: int = 0  # U+FFFD introduced while decoding bytes

    def changes(self) -> dict[str, int]:
        """The nonzero counts, by name."""
        names = ("crlf", "tabs", "ansi", "zero_width", "controls", "trailing_spaces")
        out = {n: int(getattr(self, n)) for n in names if getattr(self, n)}
        if self.nfc_changed:
            out["nfc_changed"] = 1
        if self.invalid_utf8:
            out["invalid_utf8"] = self.invalid_utf8
        return out


def _strip_trailing_spaces(s: str) -> str:
    """Remove spaces before each newline and at the end; linear, C-speed searches."""
    parts = []
    pos = 0
    i = s.find(" \n")
    while i != -1:
        j = i
        while j > pos and s[j - 1] == " ":
            j -= 1
        parts.append(s[pos:j])
        pos = i + 1  # the newline starts the next part
        i = s.find(" \n", pos)
    parts.append(s[pos:].rstrip(" "))
    return "".join(parts)


def decode_bytes(data: bytes) -> tuple[str, int]:
    """UTF-8 with invalid bytes replaced by U+FFFD; also return how many were introduced.

    >>> decode_bytes(b"ok \\xff\\xfe!")
    ('ok ��!', 2)
    """
    text = data.decode("utf-8", errors="replace")
    introduced = text.count("\ufffd") - data.count("\ufffd".encode())
    return text, introduced


def read_text(path: str | Path) -> NormalizedText:
    """Read a file (or ``-`` for stdin) as UTF-8, counting replaced bytes, and normalize."""
    import sys

    if str(path) == "-":
        data = sys.stdin.buffer.read()
    else:
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise InputError(f"cannot read {path}: {exc.strerror or exc}") from exc
    text, bad = decode_bytes(data)
    norm = normalize(text)
    return NormalizedText(**{**norm.__dict__, "invalid_utf8": bad})


def normalize(text: str) -> NormalizedText:
    """Fold CRLF, strip ANSI escapes, drop zero-width characters, NFC, expand tabs,
    show other control characters as U+2400 pictures, strip trailing spaces per line.

    Idempotent: ``normalize(normalize(t).text).text == normalize(t).text``.

    >>> normalize("\\x1b]0;title\\x07ls\\x1b[0m  \\n\\x7f").text
    'ls\\n␡'
    """
    if not isinstance(text, str):
        raise InputError(f"text must be str, got {type(text).__name__}")
    s = text
    # C-speed scans rule out most work: the control bytes present (UTF-8 never
    # hides a C0 byte inside a multi-byte sequence) and, for non-ASCII text,
    # whether any zero-width character occurs at all
    ascii_only = s.isascii()
    found = s.encode("ascii" if ascii_only else "utf-8", "surrogatepass").translate(
        None, _NOT_CONTROL
    )
    ansi = crlf = zero_width = controls = 0
    if b"\x1b" in found:
        s, ansi = _ANSI.subn("", s)
    if b"\r" in found:
        crlf = s.count("\r")
        s = s.replace("\r\n", "\n").replace("\r", "\n")
    if not ascii_only and _ZERO_WIDTH_RE.search(s):
        s, zero_width = _ZERO_WIDTH_RE.subn("", s)
    nfc_changed = False
    if not s.isascii() and not unicodedata.is_normalized("NFC", s):
        s = unicodedata.normalize("NFC", s)
        nfc_changed = True
    tabs = s.count("\t")
    if tabs:
        s = s.expandtabs(8)
    if found.strip(b"\t\r\x1b") and _CONTROL_RE.search(s):
        controls = len(_CONTROL_RE.findall(s))
        s = s.translate(_CONTROL_MAP)
    before = len(s)
    if " \n" in s or s.endswith(" "):
        s = _strip_trailing_spaces(s)
    return NormalizedText(
        text=s,
        crlf=crlf,
        tabs=tabs,
        ansi=ansi,
        zero_width=zero_width,
        controls=controls,
        trailing_spaces=before - len(s),
        nfc_changed=nfc_changed,
    )


# --------------------------------------------------------------------------- header


_HEADER_RE = re.compile(
    r"page (\d+)/(\d+) (flow|lines\+?) (\S+) (\d+)x(\d+) pad (\d+) gap (\d+)x(\d+) "
    r"cell (\d+)x(\d+)$"
)
_HEADER_START_RE = re.compile(r"page (\d+)/(\d+) (flow|lines\+?) ")


def header_text(geometry: Geometry, number: int, total: int, continued: bool = False) -> str:
    """The header row: page number, mode, font and grid, so a reader can self-configure.

    Cut to the page width; the most useful fields come first. ``continued``
    (lines mode) says the page's last line goes on on the next page.

    >>> from snapshot.glyphs import load_font
    >>> header_text(Geometry(load_font("misc-5x8"), cols=80, rows=10), 1, 3)
    'page 1/3 flow misc-5x8 80x10 pad 2 gap 0x0 cell 5x8'
    """
    g = geometry
    w, h = g.font.cell
    mode = "flow" if g.flow else ("lines+" if continued else "lines")
    name = g.font.name.replace(" ", "_")
    return (
        f"page {number}/{total} {mode} {name} {g.cols}x{g.rows} "
        f"pad {g.padding} gap {g.col_gap}x{g.row_gap} cell {w}x{h}"
    )[: g.cols]


@dataclass(frozen=True)
class Header:
    """What a page header says (see :func:`header_text`); None where it was cut off."""

    number: int
    total: int
    flow: bool
    continued: bool
    font: str | None = None
    cols: int | None = None
    rows: int | None = None
    padding: int | None = None
    col_gap: int | None = None
    row_gap: int | None = None
    cell: tuple[int, int] | None = None


def parse_header(line: str) -> Header | None:
    """Parse a header row; None when it is not one. A cut-off header gives the
    page number and mode only.

    >>> parse_header("page 2/3 lines+ snap5x8 312x90 pad 2 gap 0x0 cell 5x8").continued
    True
    >>> parse_header("page 2/3 flow snap5").cols is None
    True
    >>> parse_header("page 2/3 lines") is None  # "lines+" cut short: mode unknown
    True
    """
    text = line.rstrip(" ")
    m = _HEADER_RE.match(text)
    if m is not None:
        n, t, mode, font, c, r, pad, cg, rg, w, h = m.groups()
        return Header(
            number=int(n),
            total=int(t),
            flow=mode == "flow",
            continued=mode == "lines+",
            font=font,
            cols=int(c),
            rows=int(r),
            padding=int(pad),
            col_gap=int(cg),
            row_gap=int(rg),
            cell=(int(w), int(h)),
        )
    m = _HEADER_START_RE.match(line)  # the mode must be followed by a space: not cut off
    if m is None:
        return None
    n, t, mode = m.groups()
    return Header(int(n), int(t), flow=mode == "flow", continued=mode == "lines+")


def text_indices(text: str, geometry: Geometry) -> np.ndarray:
    """Atlas indices for a short string drawn as-is (headers), one per cell."""
    cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)
    idx, atlas = geometry.font.lookup(cps)
    idx = np.where(idx < 0, REPLACEMENT, idx).astype(np.int32)
    wide = atlas.wide[idx]
    if wide.any():
        reps = 1 + wide.astype(np.int64)
        tails = (np.cumsum(reps) - 1)[wide]
        idx = np.repeat(idx, reps)
        idx[tails] = idx[tails - 1] + 1
    return idx[: geometry.cols]


# --------------------------------------------------------------------------- layout


@dataclass(frozen=True)
class KeptSpan:
    """A run of characters no font can draw, kept as text (``unrenderable="keep"``).

    ``start``/``end`` index the normalized text; the page shows the KEPT marker
    at (``page``, ``row``, ``col``) (0-based page, text row and column).
    """

    start: int
    end: int
    text: str
    page: int
    row: int
    col: int


@dataclass(frozen=True)
class Layout:
    """Result of :func:`layout_document`: grids plus what each page covers."""

    grids: list[np.ndarray]
    spans: list[tuple[int, int]]  # [start, end) in the normalized text, per page
    continued: list[bool]  # lines mode: the page's last line goes on on the next page
    replaced: dict[str, int] = field(default_factory=dict)
    kept: tuple[KeptSpan, ...] = ()


def layout(text: str, geometry: Geometry) -> list[np.ndarray]:
    """One ``(text_rows, cols)`` int32 grid of atlas indices per page.

    ``text`` is normalized first (normalizing twice changes nothing).

    >>> from snapshot.glyphs import load_font
    >>> g = Geometry(load_font("misc-5x8"), cols=3, rows=2, header=False)
    >>> [g.font.chars[i] for i in layout("ab\\nc", g)[0].ravel()] == ["a", "b", "\\ue000", "c", " ", " "]
    True
    """
    return layout_document(text, geometry).grids


# grids, page spans, continued flags, and where the cells of one atlas index went
_Placed = tuple[
    list[np.ndarray],
    list[tuple[int, int]],
    list[bool],
    Callable[[int], list[tuple[int, int, int]]],
]


def _undrawable_runs(bad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (exclusive) of each maximal run of True."""
    edges = np.diff(np.concatenate([[False], bad, [False]]).astype(np.int8))
    return np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)


def layout_document(
    text: str, geometry: Geometry, *, unrenderable: str = "replace", normalized: bool = False
) -> Layout:
    """Layout plus bookkeeping: per-page text spans, replaced counts, kept spans.

    ``text`` is normalized first unless ``normalized`` says it already is; spans
    index the normalized text. ``unrenderable="keep"`` leaves each maximal run
    no font can draw as a :class:`KeptSpan` and draws the KEPT marker once.

    >>> from snapshot.glyphs import load_font
    >>> g = Geometry(load_font("misc-5x8"), cols=10, rows=3)
    >>> lay = layout_document("x\\ue000y", g)
    >>> lay.replaced, lay.spans
    ({'\\ue000': 1}, [(0, 3)])
    """
    if unrenderable not in ("replace", "keep"):
        raise InputError(f"unrenderable must be 'replace' or 'keep', got {unrenderable!r}")
    s = text if normalized else normalize(text).text
    g = geometry
    cols, per_rows = g.cols, g.text_rows
    if not s:
        return Layout(grids=[], spans=[], continued=[])
    cps = np.frombuffer(s.encode("utf-32-le", "surrogatepass"), np.uint32)
    idx, atlas = g.font.lookup(cps)  # a newline looks up as the NEWLINE marker
    n = len(cps)
    src = np.arange(n, dtype=np.int64)
    bad = idx < 0
    replaced: dict[str, int] = {}
    kept_runs: list[tuple[int, int]] = []
    if bad.any():
        if unrenderable == "replace":
            chars, counts = np.unique(cps[bad], return_counts=True)
            replaced = {chr(int(c)): int(k) for c, k in zip(chars, counts, strict=True)}
            idx[bad] = REPLACEMENT
        else:
            starts, ends = _undrawable_runs(bad)
            kept_runs = list(zip(starts.tolist(), ends.tolist(), strict=True))
            idx[starts] = KEPT
            keep = ~bad
            keep[starts] = True
            idx, src = idx[keep], src[keep]
    if not g.flow:
        idx[idx == NEWLINE] = _LINE_BREAK
        if s.endswith("\n"):
            idx[-1] = NEWLINE  # the final newline is drawn, so "a" and "a\n" differ
    # wide glyphs take two cells: the left half, then its right half at index + 1
    # (line breaks, < 0, clip to index 0: space)
    has_wide = atlas.wide.any()
    wide = np.take(atlas.wide, idx, mode="clip") if has_wide else np.zeros(len(idx), bool)
    if g.flow:
        lay = _flow(idx, src, wide, cols, per_rows, n)
    else:
        if wide.any():
            idx, src, wide = _expand_wide(idx, src, wide)
        lay = _lines(idx, src, wide, cols, per_rows, n)
    grids, spans, continued, cell_pos = lay
    kept: list[KeptSpan] = []
    if kept_runs:
        for (a, b), (page, row, col) in zip(kept_runs, cell_pos(KEPT), strict=True):
            kept.append(KeptSpan(a, b, s[a:b], page, row, col))
    return Layout(grids, spans, continued, replaced, tuple(kept))


def _expand_wide(
    idx: np.ndarray, src: np.ndarray, wide: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Insert each wide glyph's right half (its index + 1) after it."""
    pos = np.arange(len(idx)) + np.cumsum(wide) - wide
    tails = pos[wide] + 1
    total = len(idx) + len(tails)
    out_idx = np.empty(total, np.int32)
    out_src = np.empty(total, np.int64)
    out_idx[pos] = idx
    out_idx[tails] = idx[wide] + 1
    out_src[pos] = src
    out_src[tails] = src[wide]
    out_wide = np.zeros(total, bool)
    out_wide[pos] = wide
    return out_idx, out_src, out_wide


def _flow(
    idx: np.ndarray, src: np.ndarray, wide: np.ndarray, cols: int, per_rows: int, n: int
) -> _Placed:
    """Flow mode: elements fill cells in order; a wide glyph adds its right half
    and, where it would straddle a row end, a blank pad cell before it.

    Without wide glyphs this is one copy. With them, a loop over the wide glyphs
    only finds the pads, one ``np.insert`` adds right halves and pads, and cells
    map to elements by binary search over the wide glyphs' cells.
    """
    per_page = cols * per_rows
    m = len(idx)
    where = np.flatnonzero(wide)
    lefts = []  # the cell of each wide glyph's left half
    padded = []  # wide glyphs preceded by a pad cell
    pads = 0
    for j, i in enumerate(where.tolist()):
        cell = i + j + pads
        if cell % cols == cols - 1:
            pads += 1
            cell += 1
            padded.append(i)
        lefts.append(cell)
    total = m + len(where) + pads
    pages = -(-total // per_page)
    flat = np.full(pages * per_page, SPACE, np.int32)
    left = np.array(lefts, np.int64)
    # offset (cell - element) of the elements after each wide glyph
    after = left + 2 - (where + 1)
    if len(where):
        # one np.insert: a right half after each wide glyph, a pad before some
        at = np.concatenate([where + 1, np.array(padded, np.int64)])
        values = np.concatenate([idx[where] + 1, np.full(len(padded), SPACE, idx.dtype)])
        flat[:total] = np.insert(idx, at, values)
    else:
        flat[:m] = idx
    grid = flat.reshape(pages, per_rows, cols)

    def elem_of(cells: np.ndarray) -> np.ndarray:
        """Element at each cell (cells that are not a right half or a pad)."""
        k = np.searchsorted(left, cells, side="right")
        shift = np.where(k > 0, after[np.maximum(k - 1, 0)] if len(after) else 0, 0)
        out = cells - shift
        is_left = (k > 0) & (left[np.maximum(k - 1, 0)] == cells) if len(left) else k < 0
        return np.where(is_left, where[np.maximum(k - 1, 0)] if len(where) else 0, out)

    def cell_of(elems: np.ndarray) -> np.ndarray:
        j = np.searchsorted(where, elems, side="left")
        own = (
            (j < len(where)) & (where[np.minimum(j, len(where) - 1)] == elems)
            if len(where)
            else j < 0
        )
        shift = np.where(j > 0, after[np.maximum(j - 1, 0)] if len(after) else 0, 0)
        return np.where(own, left[np.minimum(j, len(left) - 1)] if len(left) else 0, elems + shift)

    first = elem_of(np.arange(pages, dtype=np.int64) * per_page)
    starts = [int(src[e]) if e < m else n for e in first.tolist()]
    spans = list(zip(starts, [*starts[1:], n], strict=True))

    def cell_pos(index: int) -> list[tuple[int, int, int]]:
        cells = cell_of(np.flatnonzero(idx == index))
        return [(int(p // per_page), int(p % per_page // cols), int(p % cols)) for p in cells]

    return list(grid), spans, [False] * pages, cell_pos


def _line_cols(k: np.ndarray, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """(row within line, column) of the k-th cell of a line; continuation rows start at 1."""
    first = k < cols
    rest = np.maximum(k - cols, 0)
    row = np.where(first, 0, 1 + rest // (cols - 1))
    col = np.where(first, k, 1 + rest % (cols - 1))
    return row, col


def _lines(
    idx: np.ndarray, src: np.ndarray, wide: np.ndarray, cols: int, per_rows: int, n: int
) -> _Placed:
    brk = idx == _LINE_BREAK
    line_start_src = np.concatenate([[0], src[brk] + 1])
    line_all = np.cumsum(brk) - brk
    keep = ~brk
    idx, src, wide, line = idx[keep], src[keep], wide[keep], line_all[keep]
    nlines = len(line_start_src)

    def positions(line: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        counts = np.bincount(line, minlength=nlines)
        first_cell = np.cumsum(counts) - counts
        return counts, np.arange(len(line)) - first_cell[line]

    counts, k = positions(line)
    if wide.any():
        pads: list[int] = []
        current, shift = -1, 0
        for i in np.flatnonzero(wide).tolist():
            if line[i] != current:
                current, shift = int(line[i]), 0
            kk = int(k[i]) + shift
            col = kk if kk < cols else 1 + (kk - cols) % (cols - 1)
            if col == cols - 1:
                pads.append(i)
                shift += 1
        if pads:
            at = np.array(pads, np.int64)
            idx = np.insert(idx, at, SPACE)
            src = np.insert(src, at, src[at])
            line = np.insert(line, at, line[at])
            counts, k = positions(line)
    rows_per_line = 1 + np.maximum(0, -(-(counts - cols) // (cols - 1)))
    row_start = np.cumsum(rows_per_line) - rows_per_line
    total_rows = int(rows_per_line.sum())
    r, c = _line_cols(k, cols)
    grow = row_start[line] + r
    pages = -(-total_rows // per_rows)
    grid = np.full((pages * per_rows, cols), SPACE, np.int32)
    grid[grow, c] = idx
    is_cont = np.zeros(pages * per_rows + 1, bool)
    is_cont[:total_rows] = True
    is_cont[row_start] = False
    grid[is_cont[:-1], 0] = CONTINUE
    row_src = np.full(pages * per_rows + 1, n, np.int64)
    row_src[row_start] = line_start_src
    firsts = (c == 1) & (r >= 1)
    row_src[grow[firsts]] = src[firsts]
    starts = row_src[np.arange(pages) * per_rows].tolist()
    spans = list(zip(starts, [*starts[1:], n], strict=True))
    continued = [bool(is_cont[(p + 1) * per_rows]) for p in range(pages)]

    def cell_pos(index: int) -> list[tuple[int, int, int]]:
        pos = np.flatnonzero(idx == index)
        return [
            (int(grow[p] // per_rows), int(grow[p] % per_rows), int(c[p])) for p in pos.tolist()
        ]

    return list(grid.reshape(pages, per_rows, cols)), spans, continued, cell_pos
